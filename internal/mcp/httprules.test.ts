// The Streamable HTTP transport's own rules come first: a request it would not take (no session, a content type or
// an Accept it does not serve, a protocol version it does not speak) gets its answer (400, 415, 406) whatever the
// message, even a tools/call that dacli would answer with a short invalid-params error within a session.

import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { killServed, serveHttp } from '../testkit/mcphttp.js'
import { type Fixture, fixture } from '../testkit/ws.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
}, 60_000)
afterAll(() => {
  killServed()
})

describe('Streamable HTTP: the transport answers a request it would not take, before dacli looks at the message', () => {
  const INIT = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  }
  const BAD_CALL = { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 1 } }
  let url = ''
  let token = ''
  beforeAll(async () => {
    const served = await serveHttp(fx.copy())
    url = served.url
    token = served.token
  }, 30_000)
  const post = (body: unknown, headers: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify(body),
    })

  test('a tools/call without Mcp-Session-Id is 400 like any other non-initialize request', async () => {
    const plain = await post(
      { jsonrpc: '2.0', id: 6, method: 'tools/list' },
      { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    )
    expect(plain.status).toBe(400)
    const res = await post(BAD_CALL, {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    })
    expect(res.status).toBe(400)
  })

  test('a method the endpoint does not take (PUT, PATCH) is 405 naming the ones it does, with or without a session', async () => {
    for (const method of ['PUT', 'PATCH']) {
      const res = await fetch(url, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Mcp-Session-Id': 'x' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
      })
      expect(res.status, method).toBe(405)
      expect(res.headers.get('allow')).toBe('POST, GET, DELETE')
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
        'takes POST, GET and DELETE',
      )
    }
  })

  test('an unsupported MCP-Protocol-Version header is answered 400 whatever the message', async () => {
    const init = await post(INIT, { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' })
    const sid = init.headers.get('mcp-session-id') as string
    await init.text()
    expect(sid).toBeTruthy()
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': sid,
      'MCP-Protocol-Version': '1999-01-01',
    }
    const list = await post({ jsonrpc: '2.0', id: 7, method: 'tools/list' }, headers)
    expect(list.status).toBe(400)
    const call = await post(BAD_CALL, headers)
    expect(call.status).toBe(400)
  })

  test('a POST whose Content-Type is not application/json is 415, and one not accepting SSE is 406', async () => {
    const init = await post(INIT, { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' })
    const sid = init.headers.get('mcp-session-id') as string
    await init.text()
    const ct = await post(BAD_CALL, {
      'Content-Type': 'text/plain',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': sid,
    })
    expect(ct.status).toBe(415)
    const acc = await post(BAD_CALL, { 'Content-Type': 'application/json', Accept: 'text/html', 'Mcp-Session-Id': sid })
    expect(acc.status).toBe(406)
  })
  test('within a session, a tools/call with bad params is still a short invalid-params error (-32602)', async () => {
    const accept = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }
    const init = await post(INIT, accept)
    const sid = init.headers.get('mcp-session-id') as string
    await init.text()
    const res = await post(BAD_CALL, { ...accept, 'Mcp-Session-Id': sid })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32602)
  })
  test('within a session, JSON that is no JSON-RPC message is -32600 (invalid request), as on stdio; no JSON is -32700', async () => {
    const accept = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }
    const init = await post(INIT, accept)
    const sid = init.headers.get('mcp-session-id') as string
    await init.text()
    for (const [body, id] of [
      [{ hello: 1 }, null],
      [{ jsonrpc: '1.0', id: 9, method: 'tools/list' }, 9],
      [[1, 2], null],
      [[{ jsonrpc: '2.0', id: 10, method: 'tools/list' }, 'x'], null],
    ] as const) {
      const res = await post(body, { ...accept, 'Mcp-Session-Id': sid })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600 } })
    }
    const raw = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, ...accept, 'Mcp-Session-Id': sid },
      body: '{not json',
    })
    expect(raw.status).toBe(400)
    expect(((await raw.json()) as { error: { code: number } }).error.code).toBe(-32700)
  })
})
