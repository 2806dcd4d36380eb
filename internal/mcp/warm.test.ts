// The server fills its memory of the workspace at start (warm.ts): with no call made, the reads of an agent's loop
// have run about every project, and they changed nothing but the caches.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { expect, test } from 'vitest'
import { afterMutation, services } from '../../cmd/services.js'
import { identityOf } from '../domain/identity/identity.js'
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

test('mcp serve reads every project before its first call: the index holds each one with no call made', async () => {
  const ws = await twoProjects()
  ;(await ws.dacli('task', 'add', 'Three', '--project', 'bravo')).expectExit(0)
  // The files older than the racy window, so a read keeps them in the index; then no cache at all.
  await new Promise((r) => setTimeout(r, 3_100))
  const cache = path.join(ws.root, '.dacli', 'cache')
  fs.rmSync(cache, { recursive: true, force: true })
  const before = ws.snapshot()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', 'serve', '--quiet'],
    cwd: ws.root,
    env: baseEnv() as Record<string, string>,
    stderr: 'pipe',
  })
  const client = new Client({ name: 'warm', version: '0' })
  await client.connect(transport)
  try {
    const index = path.join(cache, 'index')
    const sections = () => (fs.existsSync(index) ? fs.readFileSync(index, 'utf8') : '')
    const deadline = Date.now() + 20_000
    while (!(sections().includes('tasks/alpha\t') && sections().includes('tasks/bravo\t')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50))
    expect(sections()).toContain('tasks/alpha\t')
    expect(sections()).toContain('tasks/bravo\t')
    expect(ws.snapshot()).toEqual(before)
  } finally {
    await client.close()
  }
}, 40_000)
