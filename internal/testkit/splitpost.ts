// A POST sent over a raw socket in two parts, for tests of a server stopped while a request is under way: its head
// and the start of its body now (the server is then reading the rest), the rest when the test says.

import * as net from 'node:net'

export interface SplitPost {
  /** Send the rest of the body. */
  rest(): void
  /** Everything the server wrote back, once it closed the connection. */
  readonly reply: Promise<string>
}

/** POST `body` to `url` with `headers`; only its first `sent` characters go now (the body is ASCII). */
export async function splitPost(
  url: URL,
  headers: Record<string, string>,
  body: string,
  sent: number,
): Promise<SplitPost> {
  const socket = net.connect(Number(url.port), url.hostname)
  let text = ''
  socket.setEncoding('utf8')
  socket.on('data', (c) => {
    text += c
  })
  const reply = new Promise<string>((resolve) => socket.on('close', () => resolve(text)))
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  const head = Object.entries({ Host: url.host, ...headers, 'Content-Length': String(Buffer.byteLength(body)) })
  socket.write(
    [`POST ${url.pathname} HTTP/1.1`, ...head.map(([k, v]) => `${k}: ${v}`), '', body.slice(0, sent)].join('\r\n'),
  )
  return { rest: () => void socket.write(body.slice(sent)), reply }
}

/** The JSON document in a reply, whatever framing it has (chunked or not, an event stream's data line). */
export const documentIn = (reply: string): unknown =>
  JSON.parse(reply.slice(reply.indexOf('{'), reply.lastIndexOf('}') + 1))
