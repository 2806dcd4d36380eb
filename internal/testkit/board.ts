// Driving `dacli board` from tests: start it in process (the stop function is
// what Ctrl-C would call), plain HTTP requests with any headers (fetch refuses
// to set Host), and the CSRF token from the page.

import * as http from 'node:http'
import { dacliIn, type Fixture, type Run, type RunOpts } from './ws.js'

export interface Reply {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

export function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const r = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c) => {
        body += c
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    r.on('error', reject)
    if (opts.body !== undefined) r.write(opts.body)
    r.end()
  })
}

export interface Started {
  url: string
  base: string
  token: string
  stop: () => void
  doc: { url: string; port: number; host: string; read_only: boolean; identity: string }
}

export function startBoard(f: Fixture, extra: string[] = [], as?: string): Promise<Started> {
  return startWith((...a) => f.ws.dacli(...a), extra, as)
}

/** The same, on a workspace made some other way (a generated 10,000-task one). */
export function startBoardIn(root: string, extra: string[] = []): Promise<Started> {
  return startWith(
    (...a) => {
      const last = a[a.length - 1]
      return dacliIn(
        root,
        a.filter((x): x is string => typeof x === 'string'),
        typeof last === 'object' ? last : {},
      )
    },
    extra,
    undefined,
  )
}

async function startWith(
  dacli: (...args: (string | RunOpts)[]) => Promise<Run>,
  extra: string[],
  as: string | undefined,
): Promise<Started> {
  let stop: (() => void) | null = null
  const r = await dacli('board', '--json', ...extra, {
    onInterrupt: (s) => {
      stop = s
    },
    ...(as === undefined ? {} : { as }),
  })
  r.expectExit(0)
  const doc = r.json
  const url = new URL(doc.url)
  return {
    url: doc.url,
    base: `http://127.0.0.1:${doc.port}`,
    token: url.searchParams.get('t') as string,
    stop: () => (stop as unknown as () => void)(),
    doc,
  }
}

/** The CSRF token the page carries in its <meta>. */
export const csrfOf = (html: string): string => /name="dacli-csrf" content="([^"]+)"/.exec(html)?.[1] ?? ''
