// The cache key (cachekey.ts): made once per clone, by whichever of several processes started at once gets there
// first, and used by all of them; a clone of the repository makes its own.

import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { BIN, baseEnv, git, tempDir, workspace } from '../testkit/ws.js'

/** Run the built bin in `cwd`, as a process of its own. */
const run = (cwd: string, args: string[]) =>
  new Promise<{ code: number | null; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: baseEnv() })
    let stdout = ''
    child.stdout.on('data', (c) => {
      stdout += c
    })
    child.on('close', (code) => resolve({ code, stdout }))
  })

test('processes started at once on a fresh clone make one key and all use it; another clone makes its own', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (let i = 1; i <= 30; i++) (await ws.dacli('task', 'add', `Task ${i}`, '--project', 'p', '--quiet')).expectExit(0)
  const dir = path.join(ws.root, '.git', 'dacli')
  fs.rmSync(dir, { recursive: true, force: true })
  fs.rmSync(path.join(ws.root, '.dacli', 'cache'), { recursive: true, force: true })
  // The task files settle, so the listings below cache them.
  await new Promise((r) => setTimeout(r, 3_200))
  const answers = await Promise.all(Array.from({ length: 6 }, () => run(ws.root, ['task', 'list', '--json'])))
  for (const a of answers) expect(a.code).toBe(0)
  expect(new Set(answers.map((a) => a.stdout)).size).toBe(1)
  // One key, nothing left behind by the processes that lost the race.
  expect(fs.readdirSync(dir)).toEqual(['cache-key'])
  const key = fs.readFileSync(path.join(dir, 'cache-key'), 'utf8')
  // The caches they wrote verify under it: once settled, the commands that read them record them found whole.
  await new Promise((r) => setTimeout(r, 3_200))
  expect((await run(ws.root, ['task', 'list', '--json'])).stdout).toBe(answers[0]?.stdout)
  expect((await run(ws.root, ['task', 'show', 'p/1', '--json'])).code).toBe(0)
  const recorded = JSON.parse(fs.readFileSync(path.join(dir, 'cache-key.verified'), 'utf8')) as Record<string, string>
  expect(Object.keys(recorded).sort()).toEqual(['index', 'items'])
  expect(fs.readFileSync(path.join(dir, 'cache-key'), 'utf8')).toBe(key)
  // A clone of the repository (with .dacli/ committed) has a git directory, and so a key, of its own.
  git(ws.root, 'add', '-A')
  git(ws.root, 'commit', '-qm', 'tasks')
  const other = path.join(tempDir(), 'clone')
  spawnSync('git', ['clone', '-q', ws.root, other])
  expect((await run(other, ['task', 'list', '--json'])).code).toBe(0)
  const theirs = fs.readFileSync(path.join(other, '.git', 'dacli', 'cache-key'), 'utf8')
  expect(theirs).toMatch(/^[A-Za-z0-9_-]{43}\n$/)
  expect(theirs).not.toBe(key)
}, 30_000)
