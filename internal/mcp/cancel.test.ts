// A tool call the client cancels (notifications/cancelled, sent by the SDK client when its signal aborts) stops
// the work it waits on: a --verify command's process group is killed at once, not run to its end, and the
// check or close it guarded writes nothing. The server goes on answering.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import { session } from '../testkit/mcp.js'
import { type Fixture, fixture, snapshotOf, tempDir } from '../testkit/ws.js'

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
