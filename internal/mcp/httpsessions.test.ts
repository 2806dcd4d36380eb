// `dacli mcp serve --http`: the places for sessions (100, at most 50 a token) are shared by every token. A session a
// client left without DELETE — the SDK client's close() sends none — gives its place up to a new one; a session with
// a request in flight or an open event stream never does, and only then is an initialize answered 503.

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { killServed, serveHttp } from '../testkit/mcphttp.js'
import { documentIn } from '../testkit/splitpost.js'
import { type Fixture, fixture } from '../testkit/ws.js'

const VERSION = '2025-11-25'
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
}
const WHOAMI = {
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'whoami', arguments: { schema_version: 1 } },
}

function post(url: string, body: unknown, token: string, sid?: string) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${token}`,
      ...(sid === undefined ? {} : { 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': VERSION }),
    },
    body: JSON.stringify(body),
  })
}

/** What a well-behaved SDK client does: connect, call a tool, close (no DELETE). The session's id. */
async function visit(url: string, token: string): Promise<string> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  })
  const client = new Client({ name: 'visit', version: '0' })
  await client.connect(transport)
  const r = await client.callTool({ name: 'whoami', arguments: { schema_version: 1 } })
  expect(r.isError).toBeFalsy()
  const sid = transport.sessionId as string
  await client.close()
  return sid
}

/** A session opened by hand (initialize, then initialized), idle once this resolves. */
async function opened(url: string, token: string): Promise<string> {
  const r = await post(url, INIT, token)
  expect(r.status).toBe(200)
  await r.text()
  const sid = r.headers.get('mcp-session-id') as string
  const n = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, token, sid)
  expect(n.status).toBe(202)
  return sid
}

/** A session with its event stream (GET) open until the returned abort is called: busy all along. */
async function streaming(url: string, token: string): Promise<{ sid: string; stop: () => void }> {
  const sid = await opened(url, token)
  const ac = new AbortController()
  const r = await fetch(url, {
    signal: ac.signal,
    headers: {
      Accept: 'text/event-stream',
      Authorization: `Bearer ${token}`,
      'Mcp-Session-Id': sid,
      'Mcp-Protocol-Version': VERSION,
    },
  })
  expect(r.status).toBe(200)
  return { sid, stop: () => ac.abort() }
}

/** The status of a tools/call on the session (200 alive, 404 closed). */
async function alive(url: string, token: string, sid: string): Promise<number> {
  const r = await post(url, WHOAMI, token, sid)
  await r.text()
  return r.status
}

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
}, 60_000)
afterAll(() => {
  killServed()
})

describe('mcp serve --http: sessions left without DELETE', () => {
  test('a token that connected, called and closed 100 times does not lock another token out', async () => {
    const s = await serveHttp(fx.copy())
    for (let i = 0; i < 100; i++) await visit(s.url, s.token)
    // Another agent's token: a session, and a call in it.
    const transport = new StreamableHTTPClientTransport(new URL(s.url), {
      requestInit: { headers: { Authorization: `Bearer ${fx.rw.token}` } },
    })
    const client = new Client({ name: 'other', version: '0' })
    await client.connect(transport)
    const r = (await client.callTool({ name: 'whoami', arguments: { schema_version: 1 } })) as any
    expect(r.structuredContent.id).toBe(fx.rw.id)
    await client.close()
    // And the first token still opens sessions (its own oldest idle one makes room).
    await visit(s.url, s.token)
  }, 120_000)

  test('a full server closes the least recently used idle session, never one with a request or a stream open', async () => {
    const s = await serveHttp(fx.copy())
    // The two oldest sessions are the reader's, each busy: one with its event stream open, one in a call whose body
    // is still being sent.
    const stream = await streaming(s.url, fx.ro.token)
    const inFlight = await opened(s.url, fx.ro.token)
    // Its head and the start of its body now, the rest at the end.
    const body = new TextEncoder().encode(JSON.stringify(WHOAMI))
    let rest = () => {}
    const call = fetch(s.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${fx.ro.token}`,
        'Mcp-Session-Id': inFlight,
        'Mcp-Protocol-Version': VERSION,
      },
      body: new ReadableStream({
        start(c) {
          c.enqueue(body.slice(0, 10))
          rest = () => {
            c.enqueue(body.slice(10))
            c.close()
          }
        },
      }),
      duplex: 'half',
    } as RequestInit)
    // 98 idle ones of two other tokens: the server is full (100).
    const first = await visit(s.url, s.token)
    for (let i = 1; i < 50; i++) await visit(s.url, s.token)
    for (let i = 0; i < 48; i++) await visit(s.url, fx.rw.token)

    // The reader opens a third: none of its own is idle, so the oldest idle session of all (the launch token's first)
    // is closed for it.
    const third = await opened(s.url, fx.ro.token)
    expect(await alive(s.url, fx.ro.token, third)).toBe(200)
    expect(await alive(s.url, s.token, first)).toBe(404)
    expect(await alive(s.url, fx.ro.token, stream.sid)).toBe(200)
    rest()
    const reply = await call
    expect(reply.status).toBe(200)
    expect(documentIn(await reply.text())).toMatchObject({ id: 2, result: { structuredContent: { id: fx.ro.id } } })
    stream.stop()
  }, 120_000)

  test('503 only when every session that could make room is busy: 50 for one token, 100 for all', async () => {
    const s = await serveHttp(fx.copy())
    const mine = []
    for (let i = 0; i < 50; i++) mine.push(await streaming(s.url, s.token))
    const over = await post(s.url, INIT, s.token)
    expect(over.status).toBe(503)
    expect(((await over.json()) as any).error.message).toBe(
      'this token has 50 sessions, each in use; close one (DELETE) and retry',
    )
    // Another token is not held back by it.
    const theirs = []
    for (let i = 0; i < 50; i++) theirs.push(await streaming(s.url, fx.rw.token))
    const full = await post(s.url, INIT, fx.ro.token)
    expect(full.status).toBe(503)
    expect(((await full.json()) as any).error.message).toBe(
      'too many sessions (100), each in use; close one (DELETE) and retry',
    )
    // One stream closed (no DELETE): its session is idle, and gives its place to the next initialize.
    const freed = theirs[0] as { sid: string; stop: () => void }
    freed.stop()
    let status = 0
    for (let tries = 0; tries < 100 && status !== 200; tries++) {
      await new Promise((r) => setTimeout(r, 50))
      const r = await post(s.url, INIT, fx.ro.token)
      status = r.status
      await r.text()
    }
    expect(status).toBe(200)
    expect(await alive(s.url, fx.rw.token, freed.sid)).toBe(404)
    expect(await alive(s.url, s.token, (mine[0] as { sid: string }).sid)).toBe(200)
    for (const m of [...mine, ...theirs]) m.stop()
  }, 120_000)
})
