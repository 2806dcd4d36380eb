// Robustness: malformed JSON-RPC, wrong argument types, unknown
// tools and a flood of calls never take the server down; every request gets an
// answer, and nothing but protocol lines reaches stdout.

import { PassThrough } from 'node:stream'
import { beforeAll, describe, expect, test } from 'vitest'
import { INITIALIZE, serveInProcess, toolCall } from '../testkit/mcpserve.js'
import { type Fixture, fixture, snapshotOf } from '../testkit/ws.js'
import { LineTransport } from './stdio.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
})

describe('the line transport', () => {
  const open = (maxLine?: number) => {
    const input = new PassThrough()
    const output = new PassThrough()
    const t = new LineTransport(input, output, maxLine)
    const got: unknown[] = []
    let written = ''
    output.on('data', (d: Buffer) => {
      written += d.toString()
    })
    t.onmessage = (m) => got.push(m)
    return {
      input,
      t,
      got,
      answers: () =>
        written
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
    }
  }
  const tick = () => new Promise((r) => setImmediate(r))

  test('messages split across chunks, several per chunk, CRLF and blank lines', async () => {
    const { input, t, got } = open()
    await t.start()
    input.write('{"jsonrpc":"2.0","id":1,"me')
    input.write('thod":"ping"}\r\n\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,')
    input.write('"method":"ping"}\n')
    await tick()
    expect(got).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ])
  })

  test('unparseable, invalid and oversized lines are answered with JSON-RPC errors, and reading goes on', async () => {
    const { input, t, got, answers } = open(64)
    await t.start()
    input.write('not json\n')
    input.write('{"id":7,"hello":1}\n')
    input.write('[{"jsonrpc":"2.0","id":8,"method":"ping"}]\n')
    input.write(`{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"${'x'.repeat(50)}`)
    input.write(`${'y'.repeat(50)}"}}\n{"jsonrpc":"2.0","id":10,"method":"ping"}\n`)
    // Oversized with the id last, and with no readable id at all (issue 12, item 21: the request's id when it can be read).
    input.write(`{"jsonrpc":"2.0","method":"ping","params":{"id":1,"pad":"${'z'.repeat(100)}"},"id":"late"}\n`)
    input.write(`{"jsonrpc":"2.0","params":{"id":3,"pad":"${'z'.repeat(100)}"}}\n`)
    await tick()
    expect(answers().map((a) => [a.id, a.error.code])).toEqual([
      [null, -32700],
      [7, -32600],
      [null, -32600],
      [9, -32600],
      ['late', -32600],
      [null, -32600],
    ])
    expect(answers()[3].error.message).toMatch(/larger than 64 bytes/)
    expect(got).toEqual([{ jsonrpc: '2.0', id: 10, method: 'ping' }])
  })

  test('answers to a reader that lags: written in order, never more than one drain listener (no listener warning)', async () => {
    const input = new PassThrough()
    const output = new PassThrough({ highWaterMark: 16 })
    const t = new LineTransport(input, output)
    await t.start()
    let most = 0
    output.on('newListener', (event) => {
      if (event === 'drain') most = Math.max(most, output.listenerCount('drain') + 1)
    })
    const sent = Array.from({ length: 500 }, (_, i) => t.send({ jsonrpc: '2.0', id: i, result: {} }))
    let written = ''
    await new Promise((r) => setTimeout(r, 5))
    output.on('data', (d: Buffer) => {
      written += d.toString()
    })
    await Promise.all(sent)
    expect(most).toBe(1)
    const ids = written
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).id)
    expect(ids).toEqual([...Array(500).keys()])
  })

  test('at the end of input it waits for the answers still owed, except to cancelled requests', async () => {
    const { input, t } = open()
    let closed = 0
    t.onclose = () => closed++
    await t.start()
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":"b","method":"ping"}\n')
    input.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b"}}\n')
    input.end()
    await tick()
    expect(closed).toBe(0)
    await t.send({ jsonrpc: '2.0', id: 1, result: {} })
    expect(closed).toBe(1)
  })

  test('the end of input closes the transport once', async () => {
    const { input, t } = open()
    let closed = 0
    t.onclose = () => closed++
    await t.start()
    input.end()
    await tick()
    await t.close()
    expect(closed).toBe(1)
  })
})

describe('the server under abuse', () => {
  test('malformed JSON-RPC, unknown methods, bad params, unknown tools and wrong types: every request answered', async () => {
    const s = serveInProcess(fx.ws.root, ['--quiet'])
    s.send(INITIALIZE)
    await s.response(0)
    s.send('{"jsonrpc":"2.0","id":1,"method":')
    s.send({ jsonrpc: '2.0', id: 2, method: 'no/such/method' })
    s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 5 } })
    s.send(toolCall(4, 'no_such_tool', { schema_version: 1 }))
    s.send(toolCall(5, 'list_tasks', { schema_version: 1, limit: 'lots', status: 'open' }))
    s.send(toolCall(6, 'add_task', { schema_version: 1, title: ['a'], project: 'alpha', force: 'maybe' }))
    s.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami', arguments: 'x' } })
    s.send(toolCall(8, 'status', { schema_version: 1 }))
    // JSON.parse keeps "__proto__" as a key of its own; an object copy (the SDK's) would drop it without a word.
    s.send(
      '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"status","arguments":{"schema_version":1,"__proto__":{"all":true}}}}',
    )
    expect((await s.response(null)).error.code).toBe(-32700)
    expect((await s.response(2)).error.code).toBe(-32601)
    // A tools/call of the wrong shape is invalid params (-32602) with a short message, not the SDK's schema dump.
    expect((await s.response(3)).error).toEqual({
      code: -32602,
      message: 'invalid params for tools/call: params.name must be the tool name (a string)',
    })
    // An unknown tool is a protocol error (-32602), as the specification puts it; not a tool result.
    const unknown = await s.response(4)
    expect(unknown.result).toBeUndefined()
    expect(unknown.error).toMatchObject({ code: -32602, message: 'Unknown tool: no_such_tool' })
    expect(unknown.error.data.tools).toContain('list_tasks')
    // Arguments of the wrong type are a tool result with isError (the model reads it and corrects the call).
    const five = JSON.parse((await s.response(5)).result.content[0].text)
    expect(five.details.invalid_params).toEqual([
      { field: 'status', expected: 'an array of strings', got: 'a string ("open")' },
      { field: 'limit', expected: 'an integer', got: 'a string ("lots")' },
    ])
    const six = JSON.parse((await s.response(6)).result.content[0].text)
    expect(six.details.problems).toEqual([
      'title must be a string, got an array',
      'force must be a boolean, got a string ("maybe")',
    ])
    expect((await s.response(7)).error).toEqual({
      code: -32602,
      message: "invalid params for tools/call: params.arguments must be an object of the tool's arguments",
    })
    expect((await s.response(8)).result.structuredContent.schema).toBe('workspace-status/v1')
    expect((await s.response(9)).error).toEqual({
      code: -32602,
      message: 'invalid params for tools/call: params.arguments holds "__proto__", no argument',
    })
    const out = await s.end()
    expect(out).toMatchObject({ exitCode: 0, stdout: '', stderr: '' })
  })

  test('1,000 mixed calls at once: each answered exactly once, the writes all land', async () => {
    const root = fx.copy()
    const s = serveInProcess(root, ['--quiet'])
    s.send(INITIALIZE)
    await s.response(0)
    const N = 1000
    for (let i = 1; i <= N; i++) {
      switch (i % 5) {
        case 0:
          s.send(toolCall(i, 'show_task', { schema_version: 1, ref: 'alpha/1' }))
          break
        case 1:
          s.send(toolCall(i, 'list_tasks', { schema_version: '1', status: ['open'] }))
          break
        case 2:
          s.send(toolCall(i, 'add_note', { schema_version: 1, kind: 'finding', title: `F${i}`, project: 'alpha' }))
          break
        case 3:
          s.send(toolCall(i, 'show_task', { ref: 'alpha/1' }))
          break
        default:
          s.send(`{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"whoami"`)
      }
    }
    s.send({ jsonrpc: '2.0', id: N + 1, method: 'ping' })
    await s.response(N + 1)
    // Every request that carries an id is answered (the unterminated ones, every fifth, only as parse errors).
    for (let i = 1; i <= N; i++) if (i % 5 !== 4) await s.response(i)
    const answers = s.lines().map((l) => JSON.parse(l))
    const ids = answers.map((a) => a.id).filter((id) => typeof id === 'number' && id > 0 && id <= N)
    expect(ids.length).toBe((N / 5) * 4)
    expect(new Set(ids).size).toBe(ids.length)
    expect(answers.filter((a) => a.id === null && a.error?.code === -32700)).toHaveLength(N / 5)
    const byId = new Map(answers.map((a) => [a.id, a]))
    expect(byId.get(5).result.structuredContent.ref).toBe('alpha/001-first-thing')
    expect(byId.get(3).result.isError).toBe(true)
    expect(byId.get(2).result.structuredContent.schema).toBe('note/v1')
    await s.end()
    const notes = await serveInProcess(root, ['--quiet'])
    notes.send(INITIALIZE)
    await notes.response(0)
    // One page holds them all (a call without limit gets the tool's default page).
    notes.send(toolCall(1, 'list_notes', { schema_version: 1, kind: 'finding', limit: N }))
    const listed = (await notes.response(1)).result.structuredContent
    expect(listed.notes).toHaveLength(N / 5)
    expect(listed.total).toBe(N / 5)
    await notes.end()
    // 1,000 calls with 200 durable writes: minutes on a machine shared by many test runs (speed is the bench's).
  }, 600_000)

  test('requests written with stdin closed right after are all answered before the server stops', async () => {
    const s = serveInProcess(fx.ws.root, ['--quiet'])
    s.send(INITIALIZE)
    for (let i = 1; i <= 50; i++) s.send(toolCall(i, i % 2 ? 'status' : 'next_tasks', { schema_version: 1 }))
    const out = await s.end()
    expect(out.exitCode).toBe(0)
    const ids = s.lines().map((l) => JSON.parse(l).id)
    expect(ids.sort((a, b) => a - b)).toEqual([...Array(51).keys()])
  })

  test('a 1 MB title through MCP is a clear usage error and writes nothing', async () => {
    const s = serveInProcess(fx.ws.root, ['--quiet'])
    s.send(INITIALIZE)
    await s.response(0)
    s.send(toolCall(1, 'add_task', { schema_version: 1, title: 'x'.repeat(1 << 20), project: 'alpha' }))
    const r = (await s.response(1)).result
    expect(r.isError).toBe(true)
    expect(JSON.parse(r.content[0].text)).toMatchObject({ exit_code: 2, kind: 'usage' })
    await s.end()
  })
})

test('malformed params on methods other than tools/call: -32602 with one short line naming the param, nothing run', async () => {
  const s = serveInProcess(fx.ws.root, ['--quiet'])
  // A malformed initialize is refused so and initializes nothing: a well-formed one follows.
  s.send({ jsonrpc: '2.0', id: 9, method: 'initialize' })
  expect((await s.response(9)).error).toEqual({
    code: -32602,
    message: 'invalid params for initialize: params is missing (an object)',
  })
  s.send(INITIALIZE)
  await s.response(0)
  s.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  const cases: [unknown, string][] = [
    [
      { method: 'resources/list', params: { cursor: 5 } },
      'resources/list: params.cursor must be a string, not a number',
    ],
    [{ method: 'resources/read', params: {} }, 'resources/read: params.uri is missing (a string)'],
    [{ method: 'tools/list', params: { cursor: 7 } }, 'tools/list: params.cursor must be a string, not a number'],
    [{ method: 'resources/subscribe' }, 'resources/subscribe: params is missing (an object)'],
  ]
  for (const [i, [m]] of cases.entries()) s.send({ jsonrpc: '2.0', id: 10 + i, ...(m as object) })
  for (const [i, [, message]] of cases.entries()) {
    expect((await s.response(10 + i)).error).toEqual({ code: -32602, message: `invalid params for ${message}` })
  }
  // Well-formed, the same methods answer.
  s.send({ jsonrpc: '2.0', id: 20, method: 'tools/list' })
  expect((await s.response(20)).result.tools.length).toBeGreaterThan(0)
  await s.end()
})

test('the lifecycle on stdio: before initialize only initialize and ping are served; a second initialize is refused', async () => {
  const root = fx.copy()
  const before = snapshotOf(root)
  const s = serveInProcess(root, ['--quiet'])
  s.send(toolCall(1, 'add_task', { schema_version: 1, title: 'Too early', project: 'alpha' }))
  s.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
  s.send({ jsonrpc: '2.0', id: 3, method: 'ping' })
  expect((await s.response(1)).error).toEqual({
    code: -32600,
    message: 'Invalid Request: tools/call before initialize (send initialize first)',
  })
  expect((await s.response(2)).error.code).toBe(-32600)
  expect((await s.response(3)).result).toEqual({})
  expect(snapshotOf(root)).toEqual(before)
  s.send(INITIALIZE)
  expect((await s.response(0)).result.protocolVersion).toBe('2025-06-18')
  // As the HTTP transport answers it: no renegotiation on the same connection.
  s.send({ ...INITIALIZE, id: 4, params: { ...INITIALIZE.params, protocolVersion: '2025-03-26' } })
  expect((await s.response(4)).error).toEqual({ code: -32600, message: 'Invalid Request: Server already initialized' })
  s.send(toolCall(5, 'whoami', { schema_version: 1 }))
  expect((await s.response(5)).result.structuredContent.schema).toBe('identity/v1')
  await s.end()
})
