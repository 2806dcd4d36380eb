// JSON-RPC batches are taken or refused by the protocol version the connection negotiated, the same on stdio and
// over HTTP (batches.ts): 2025-03-26 takes them, 2025-06-18 does not.

import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { killServed, serveHttp } from '../testkit/mcphttp.js'
import { INITIALIZE, serveInProcess, toolCall } from '../testkit/mcpserve.js'
import { type Fixture, fixture } from '../testkit/ws.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
}, 60_000)
afterAll(() => {
  killServed()
})

const BATCH = [
  { jsonrpc: '2.0', id: 1, method: 'ping' },
  toolCall(2, 'whoami', { schema_version: 1 }),
  { jsonrpc: '2.0', method: 'notifications/initialized' },
]
const REFUSED = 'Invalid Request: protocol version 2025-06-18 takes no JSON-RPC batches (2025-03-26 does)'
const initAt = (version: string) => ({ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: version } })

/** The ids answered and whether each is a result. */
const answered = (answers: { id: unknown; result?: unknown }[]) =>
  answers.map((a) => [a.id, a.result !== undefined]).sort((x, y) => Number(x[0]) - Number(y[0]))

describe('stdio', () => {
  test('2025-03-26: a batch is served, its answers one array', async () => {
    const s = serveInProcess(fx.ws.root, ['--quiet'])
    s.send(initAt('2025-03-26'))
    expect((await s.response(0)).result.protocolVersion).toBe('2025-03-26')
    s.send(BATCH)
    const line = await until(() => s.lines().find((l) => l.startsWith('[')))
    expect(answered(JSON.parse(line))).toEqual([
      [1, true],
      [2, true],
    ])
    await s.end()
  })

  test('2025-06-18: a batch is refused (-32600), nothing in it runs', async () => {
    const s = serveInProcess(fx.ws.root, ['--quiet'])
    s.send(initAt('2025-06-18'))
    await s.response(0)
    s.send(BATCH)
    expect((await s.response(null)).error).toEqual({ code: -32600, message: REFUSED })
    s.send({ jsonrpc: '2.0', id: 3, method: 'ping' })
    await s.response(3)
    expect(s.lines().some((l) => /"id":[12]\b/.test(l))).toBe(false)
    await s.end()
  })
})

async function until<T>(what: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = what()
    if (v !== undefined) return v
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error('never came')
}

describe('Streamable HTTP', () => {
  const accept = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }
  /** The JSON-RPC messages of an answer, whether JSON or an event stream. */
  const messagesOf = (text: string): any[] => {
    if (text.trimStart().startsWith('{') || text.trimStart().startsWith('[')) return [JSON.parse(text)].flat()
    return text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .flatMap((l) => [JSON.parse(l.slice(6))].flat())
  }
  async function sessionAt(version: string) {
    const served = await serveHttp(fx.copy())
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(served.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${served.token}`, ...accept, ...headers },
        body: JSON.stringify(body),
      })
    const init = await post(initAt(version))
    const sid = init.headers.get('mcp-session-id') as string
    expect(messagesOf(await init.text())[0].result.protocolVersion).toBe(version)
    return (body: unknown) => post(body, { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': version })
  }

  test('2025-03-26: a batch is served', async () => {
    const post = await sessionAt('2025-03-26')
    const res = await post(BATCH)
    expect(res.status).toBe(200)
    expect(answered(messagesOf(await res.text()))).toEqual([
      [1, true],
      [2, true],
    ])
  }, 30_000)

  test('2025-06-18: a batch is refused as on stdio', async () => {
    const post = await sessionAt('2025-06-18')
    const res = await post(BATCH)
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: REFUSED } })
  }, 30_000)
})
