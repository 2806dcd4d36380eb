// The Streamable HTTP transport's own rules come first: a request it would not take (no session, a content type or
// an Accept it does not serve, a protocol version it does not speak) gets its answer (400, 415, 406) whatever the
// message, even a tools/call that dacli would answer with a short invalid-params error within a session.

import { type ChildProcess, spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BIN, baseEnv, type Fixture, fixture } from '../testkit/ws.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
}, 60_000)

const children: ChildProcess[] = []
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
})

/** `mcp serve` with `args` in `root`: its URL and bearer token once it prints them (or its exit code). */
function launch(root: string, args: string[]) {
  const child = spawn(process.execPath, [BIN, 'mcp', 'serve', ...args], { cwd: root, env: baseEnv() })
  children.push(child)
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => {
    out += d
  })
  child.stderr.on('data', (d) => {
    err += d
  })
  const result = new Promise<{ code: number | null; url: string | null; token: string | null }>((resolve) => {
    const deadline = Date.now() + 15_000
    const tick = () => {
      const token = /shown once\): (\w+)\n/.exec(err)?.[1] ?? null
      if (out.includes('\n') && token !== null) return resolve({ code: null, url: out.trim(), token })
      if (child.exitCode !== null) return resolve({ code: child.exitCode, url: null, token: null })
      if (Date.now() > deadline) return resolve({ code: null, url: out.trim() || null, token })
      setTimeout(tick, 25)
    }
    tick()
  })
  return { child, result }
}

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
    const r = await launch(fx.copy(), ['--http', '127.0.0.1:0']).result
    if (r.url === null || r.token === null) throw new Error('the HTTP server did not start')
    url = r.url
    token = r.token
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
})
