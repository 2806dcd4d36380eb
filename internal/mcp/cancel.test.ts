// A tool call the client cancels (notifications/cancelled, sent by the SDK client when its signal aborts) stops
// the work it waits on: a --verify command's process group is killed at once, not run to its end, and the
// check or close it guarded writes nothing. The server goes on answering. Told to stop (SIGTERM), a stdio server
// does the same for every call under way, answers them and exits 0.

import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import { session } from '../testkit/mcp.js'
import { INITIALIZE, toolCall } from '../testkit/mcpserve.js'
import { BIN, baseEnv, type Fixture, fixture, snapshotOf, tempDir } from '../testkit/ws.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
}, 60_000)

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function until(what: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (what()) return true
    await new Promise((r) => setTimeout(r, 25))
  }
  return what()
}

test.each([
  ['check_task', { ref: 'alpha/3', all: true }],
  ['accept_task', { ref: 'alpha/3' }],
])(
  '%s cancelled while its --verify runs: the command is killed, nothing is written',
  async (tool, args) => {
    const root = fx.copy()
    const pidFile = path.join(tempDir('dacli-cancel-'), 'verify.pid')
    const mcp = await session(root, { as: fx.rw.token })
    try {
      const before = snapshotOf(root)
      const ac = new AbortController()
      const call = mcp.client.callTool(
        { name: tool, arguments: { schema_version: 1, ...args, verify: `echo $$ > '${pidFile}'; sleep 30` } },
        undefined,
        { signal: ac.signal },
      )
      const settled = call.then(
        () => 'answered',
        () => 'rejected',
      )
      expect(await until(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', 10_000)).toBe(
        true,
      )
      const pid = Number(fs.readFileSync(pidFile, 'utf8'))
      expect(alive(pid)).toBe(true)
      ac.abort()
      expect(await settled).toBe('rejected')
      expect(await until(() => !alive(pid), 3_000), `verify shell ${pid} still runs`).toBe(true)
      // The call ran out on the server side without writing (the task's bytes, and every other file, as they were).
      await new Promise((r) => setTimeout(r, 300))
      expect(snapshotOf(root)).toEqual(before)
      const next = await mcp.call('show_task', { schema_version: 1, ref: 'alpha/3' })
      expect(next.isError, JSON.stringify(next)).toBeFalsy()
      expect((next.structuredContent as { status: string }).status).toBe('active')
    } finally {
      await mcp.close()
    }
  },
  30_000,
)

test('mcp serve on stdio, told to stop (SIGTERM) while calls wait: each is answered, the verify killed, exit 0', async () => {
  const root = fx.copy()
  const before = snapshotOf(root)
  const srv = await busyServer(root)
  const { child, pid } = srv
  child.kill('SIGTERM')
  expect(await srv.exitedWithin(20_000)).toBe(0)
  const answers = new Map(
    srv
      .out()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l))
      .map((m: { id: number; result: any }) => [m.id, m] as const),
  )
  expect(answers.get(2)).toMatchObject({
    result: { structuredContent: { schema: 'watch-event-list/v1', ended: 'interrupted' } },
  })
  const three = answers.get(3) as { result: { isError: boolean; content: { text: string }[] } }
  const refused = JSON.parse(three.result.content[0]?.text ?? 'null')
  expect(three.result.isError).toBe(true)
  expect(refused.message).toMatch(/could not run the verification command: the caller cancelled it/)
  expect(alive(pid)).toBe(false)
  expect(snapshotOf(root)).toEqual(before)
}, 30_000)

/** A real `mcp serve` on pipes with a watch (through cli) and a check_task --verify under way. */
/** A real `mcp serve` on pipes, as the rw agent: what it wrote, and when it exited. */
function stdioServer(root: string) {
  const child = spawn(process.execPath, [BIN, 'mcp', 'serve'], {
    cwd: root,
    env: { ...baseEnv(), DACLI_AGENT: fx.rw.token },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => {
    out += d
  })
  child.stderr.on('data', (d) => {
    err += d
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`)
  return { child, exited, send, out: () => out, err: () => err }
}

async function busyServer(root: string) {
  const pidFile = path.join(tempDir('dacli-gone-'), 'verify.pid')
  const { child, exited, send, out, err } = stdioServer(root)
  send(INITIALIZE)
  send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  send(toolCall(2, 'cli', { schema_version: 1, argv: ['watch', '--timeout', '15s'] }))
  send(
    toolCall(3, 'check_task', {
      schema_version: 1,
      ref: 'alpha/3',
      all: true,
      verify: `echo $$ > '${pidFile}'; sleep 30`,
    }),
  )
  expect(await until(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', 15_000)).toBe(true)
  const pid = Number(fs.readFileSync(pidFile, 'utf8'))
  const exitedWithin = (ms: number) =>
    Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), ms))])
  const cleanup = () => {
    if (alive(pid)) process.kill(pid, 'SIGKILL')
    child.kill('SIGKILL')
  }
  return { child, send, pid, exitedWithin, cleanup, out, err }
}

test('mcp serve on stdio whose client is gone (stdout broken: EPIPE): the calls are cancelled, nothing written, exit 0 without a stack', async () => {
  const root = fx.copy()
  const before = snapshotOf(root)
  const s = await busyServer(root)
  try {
    // The client stops reading; the next answer the server writes fails with EPIPE.
    s.child.stdout.destroy()
    s.send({ jsonrpc: '2.0', id: 9, method: 'ping' })
    expect(await s.exitedWithin(5_000)).toBe(0)
    expect(s.err()).not.toMatch(/\n\s+at |Unhandled|node:events/)
    expect(s.err()).toMatch(/dacli mcp: stdout cannot be written, the client is gone \(write EPIPE\)/)
    expect(await until(() => !alive(s.pid), 3_000), `verify shell ${s.pid} still runs`).toBe(true)
    await new Promise((r) => setTimeout(r, 300))
    expect(snapshotOf(root)).toEqual(before)
  } finally {
    s.cleanup()
  }
}, 30_000)

test('requests piped in before stdin ends are answered, a verify included (the end of stdin cancels nothing)', async () => {
  const root = fx.copy()
  const { child, exited, out } = stdioServer(root)
  const lines = [
    INITIALIZE,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    toolCall(2, 'check_task', { schema_version: 1, ref: 'alpha/3', all: true, verify: 'sleep 1; true' }),
  ]
  child.stdin.end(lines.map((m) => `${JSON.stringify(m)}\n`).join(''))
  expect(await exited).toBe(0)
  const answer = out()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .find((m: { id?: number }) => m.id === 2)
  expect(answer.result.isError, JSON.stringify(answer)).toBeFalsy()
  expect(answer.result.structuredContent.details.verification).toMatchObject({ command: 'sleep 1; true', exit_code: 0 })
}, 30_000)
