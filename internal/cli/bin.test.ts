// The bin writes its output to file descriptors 1 and 2 itself (no stdout stream is made for a command's output):
// a long answer must arrive whole through a pipe, multi-byte text intact, and a reader that stops early must not
// turn into an error.

import { spawn, spawnSync } from 'node:child_process'
import { beforeAll, expect, test } from 'vitest'
import { BIN, baseEnv, tempDir, type Workspace, workspace } from '../testkit/ws.js'

const title = (i: number) => `Entrée ${i} — ${'naïve café '.repeat(30)}`
let ws: Workspace

beforeAll(async () => {
  ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
  for (let i = 1; i <= 120; i++)
    (await ws.dacli('task', 'add', title(i), '--project', 'alpha', '--force')).expectExit(0)
})

test('a long answer arrives whole through a pipe, multi-byte characters intact', () => {
  const r = spawnSync(process.execPath, [BIN, 'task', 'list', '--json'], {
    cwd: ws.root,
    env: baseEnv(),
    maxBuffer: 1 << 26,
  })
  expect(r.status, String(r.stderr)).toBe(0)
  expect(r.stdout.length).toBeGreaterThan(64 * 1024) // more than a pipe holds: the writes wait for the reader
  const doc = JSON.parse(r.stdout.toString('utf8')) as { tasks: { title: string }[] }
  expect(doc.tasks.map((t) => t.title)).toEqual(Array.from({ length: 120 }, (_, i) => title(i + 1).trim()))
  const help = spawnSync(process.execPath, [BIN, 'help'], { cwd: tempDir(), env: baseEnv(), encoding: 'utf8' })
  expect(help.stdout).toMatch(/^dacli \S+ — /)
})

test('a reader that closes the pipe early is not an error: exit 0, nothing on stderr', async () => {
  const child = spawn(process.execPath, [BIN, 'task', 'list', '--json'], { cwd: ws.root, env: baseEnv() })
  let err = ''
  child.stderr.on('data', (d) => {
    err += String(d)
  })
  child.stdout.destroy() // closed before the bin has started: its first write meets a closed pipe
  const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)))
  expect(err).toBe('')
  expect(code).toBe(0)
})
