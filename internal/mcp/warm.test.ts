// The server fills its memory of the workspace at start (warm.ts): with no call made, the reads of an agent's loop
// have run about every project, and they changed nothing but the caches.

import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { afterMutation, services } from '../../cmd/services.js'
import { identityOf } from '../domain/identity/identity.js'
import { servedOverStdio } from '../testkit/mcp.js'
import { BIN, baseEnv, table, workspace } from '../testkit/ws.js'
import { buildToolset, type Toolset } from './call.js'
import { warm } from './warm.js'

const READ_TOOLS = ['list_tasks', 'next_tasks', 'show_task', 'get_context']

async function twoProjects() {
  const ws = await workspace()
  for (const p of ['alpha', 'bravo']) (await ws.dacli('project', 'add', p, '--slug', p)).expectExit(0)
  for (const t of ['One', 'Two']) (await ws.dacli('task', 'add', t, '--project', 'alpha')).expectExit(0)
  return ws
}

test('in process: the four reads about each project with a task, the two about one without; none once stopped', async () => {
  const ws = await twoProjects()
  const env = baseEnv()
  const now = () => new Date()
  const identity = await identityOf(await services.store(ws.root, env, now))
  const rt = { env, cwd: ws.root, now, services, table, identity, afterMutation }
  const before = ws.snapshot()
  // alpha: list, next, show and context of alpha/1; bravo has no task: list and next. The minimal profile makes only
  // the calls of the tools it serves.
  const calls = (set: Toolset) => {
    const served = READ_TOOLS.filter((n) => set.tools.some((t) => t.name === n))
    return served.length + served.filter((n) => n === 'list_tasks' || n === 'next_tasks').length
  }
  const full = buildToolset(table, 'full')
  expect(calls(full)).toBe(6)
  expect(await warm(full, rt, () => false)).toBe(6)
  const minimal = buildToolset(table, 'minimal')
  expect(calls(minimal)).toBeLessThan(6)
  expect(await warm(minimal, rt, () => false)).toBe(calls(minimal))
  expect(await warm(buildToolset(table, 'full'), rt, () => true)).toBe(0)
  // Reads: no object file changed (the caches aside).
  expect(ws.snapshot()).toEqual(before)
})

/** Wait until the workspace's index holds a tasks section for each project (a read of it ran), or 20 s. */
async function indexHolds(root: string, projects: readonly string[]): Promise<string> {
  const index = path.join(root, '.dacli', 'cache', 'index')
  const text = () => (fs.existsSync(index) ? fs.readFileSync(index, 'utf8') : '')
  const deadline = Date.now() + 20_000
  while (!projects.every((p) => text().includes(`tasks/${p}\t`)) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50))
  return text()
}

/** The server read both projects (their sections came into the index) and changed no object file. */
async function expectWarmed(root: string, snapshot: () => Map<string, string>, before: Map<string, string>) {
  const text = await indexHolds(root, ['alpha', 'bravo'])
  expect(text).toContain('tasks/alpha\t')
  expect(text).toContain('tasks/bravo\t')
  expect(snapshot()).toEqual(before)
}

/** A workspace of two projects with a task each, settled (so a read keeps them in the index), with no cache. */
async function settledWithoutCache() {
  const ws = await twoProjects()
  ;(await ws.dacli('task', 'add', 'Three', '--project', 'bravo')).expectExit(0)
  await new Promise((r) => setTimeout(r, 3_100))
  fs.rmSync(path.join(ws.root, '.dacli', 'cache'), { recursive: true, force: true })
  return ws
}

test('mcp serve reads every project before its first call: the index holds each one with no call made', async () => {
  const ws = await settledWithoutCache()
  const before = ws.snapshot()
  const client = await servedOverStdio(ws.root, 'warm')
  try {
    await expectWarmed(ws.root, () => ws.snapshot(), before)
  } finally {
    await client.close()
  }
}, 40_000)

test('mcp serve --http does the same as the launching identity, with no session opened', async () => {
  const ws = await settledWithoutCache()
  const before = ws.snapshot()
  const child = spawn(process.execPath, [BIN, 'mcp', 'serve', '--http', '127.0.0.1:0', '--quiet'], {
    cwd: ws.root,
    env: baseEnv() as NodeJS.ProcessEnv,
    stdio: 'ignore',
  })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  try {
    await expectWarmed(ws.root, () => ws.snapshot(), before)
  } finally {
    child.kill('SIGTERM')
    await exited
  }
}, 40_000)
