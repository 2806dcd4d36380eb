// Changes made by the world (by hand, not by dacli) in one clone, carried to another through record push and pull.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, test, vi } from 'vitest'
import { originWithCode, pulledClone } from '../../testkit/coordination.js'
import { dacliIn, git, tempDir, type Workspace, workspace } from '../../testkit/ws.js'

async function twoClones() {
  const a: Workspace = await workspace()
  a.write('.gitignore', '.dacli/\n')
  git(a.root, 'add', '.gitignore')
  const remote = originWithCode(a)
  ;(await a.dacli('project', 'add', 'API', '--slug', 'api')).expectExit(0)
  ;(await a.dacli('task', 'add', 'One', '--project', 'api', '--accept', 'x')).expectExit(0)
  ;(await a.dacli('task', 'add', 'Two', '--project', 'api', '--accept', 'y')).expectExit(0)
  ;(await a.dacli('record', 'push')).expectExit(0)
  const b = await pulledClone(remote)
  return { a, b, remote }
}

const ONE = '.dacli/projects/api/tasks/open/001-one.md'

test('a file made executable by hand: the record keeps plain files, so no clone undoes another clone on its next record', async () => {
  const { a, b } = await twoClones()
  fs.chmodSync(path.join(a.root, ONE), 0o755)
  // The bit is not recorded: nothing to record, nothing for the other clone to take and then take away again.
  expect((await a.dacli('record', '--json')).expectExit(0).json.outcome).toBe('unchanged')
  fs.chmodSync(path.join(b.root, ONE), 0o755)
  expect((await b.dacli('record', '--json')).expectExit(0).json.outcome).toBe('unchanged')
  ;(await a.dacli('task', 'edit', 'api/1', '--priority', 'must')).expectExit(0)
  ;(await a.dacli('record', 'push')).expectExit(0)
  expect((await b.dacli('record', 'pull', '--json')).expectExit(0).json.outcome).toBe('fast-forward')
  expect((await b.dacli('record', '--json')).expectExit(0).json.outcome).toBe('unchanged')
}, 30_000)

test('a project folder removed by hand in one clone while the other adds a task to it: the task is not lost', async () => {
  const { a, b } = await twoClones()
  fs.rmSync(path.join(a.root, '.dacli/projects/api'), { recursive: true })
  ;(await a.dacli('record', 'push')).expectExit(0)
  ;(await b.dacli('task', 'add', 'Three', '--project', 'api', '--accept', 'z')).expectExit(0)
  const r = await b.dacli('record', 'pull', '--json')
  const listed = (await b.dacli('task', 'list', '--json')).json.tasks.map((t: any) => t.title)
  const files = fs.readdirSync(path.join(b.root, '.dacli'), { recursive: true }) as string[]
  expect(files).toContain(path.join('projects', 'api', 'tasks', 'open', '003-three.md'))
  // The project stays with the task kept in it (its file from the side that still had it): Three is listed, in both.
  expect({ code: r.code, listed }).toEqual({ code: 0, listed: ['Three'] })
  ;(await b.dacli('record', 'push')).expectExit(0)
  ;(await a.dacli('record', 'pull')).expectExit(0)
  expect((await a.dacli('task', 'list', '--json')).json.tasks.map((t: any) => t.title)).toEqual(['Three'])
}, 30_000)

afterEach(() => {
  vi.useRealTimers()
})

test('a same-size edit made in place with the modification time put back is recorded (the stat cache checks the change time)', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'P', '--slug', 'p')
  for (const t of ['Alpha task', 'Beta task']) await ws.ok('task', 'add', t, '--project', 'p', '--accept', 'crit one')
  const file = path.join(ws.root, '.dacli', 'projects', 'p', 'tasks', 'open', '002-beta-task.md')
  const old = Math.floor(Date.now() / 1000) - 3600 // whole seconds: put back exactly below
  fs.utimesSync(file, old, old)
  // Every file settled (this process's clock a minute on): the stat cache keeps each one.
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] })
  await ws.ok('record')
  const text = fs.readFileSync(file, 'utf8')
  const edited = text.replace('- [ ] crit one', '- [x] crit one')
  expect(edited.length).toBe(text.length)
  const fd = fs.openSync(file, 'r+') // in place: the same inode, the same size
  fs.writeSync(fd, edited, 0)
  fs.closeSync(fd)
  fs.utimesSync(file, old, old) // as `touch -r` or `rsync --inplace -t` do: the modification time put back
  expect((await ws.ok('task', 'show', 'p/2', '--json')).json.acceptance_done).toBe(1)
  // The same answer as with no cache at all (a copy of the workspace, made first, without .dacli/cache).
  const copy = tempDir('dacli-truth-')
  fs.cpSync(ws.root, copy, { recursive: true })
  fs.rmSync(path.join(copy, '.dacli', 'cache'), { recursive: true, force: true })
  const got = (await ws.dacli('record', '--json')).expectExit(0).json
  const want = JSON.parse((await dacliIn(copy, ['record', '--json'])).stdout)
  expect({ outcome: got.outcome, files: got.files_changed }).toEqual({
    outcome: want.outcome,
    files: want.files_changed,
  })
  expect(got.outcome).toBe('recorded')
})

test('a file where a folder of the pull belongs fails the pull whole: nothing written, the record not moved', async () => {
  const { a, b } = await twoClones()
  ;(await a.dacli('task', 'edit', 'api/1', '--title', 'One, retitled')).expectExit(0)
  ;(await a.dacli('project', 'add', 'Web', '--slug', 'web')).expectExit(0)
  ;(await a.dacli('record', 'push')).expectExit(0)
  // In b, a plain file sits where the new project's folder goes (api/ sorts before web/).
  fs.writeFileSync(path.join(b.root, '.dacli/projects/web'), 'not a folder\n')
  ;(await b.dacli('record')).expectExit(0)
  const one = fs.readFileSync(path.join(b.root, ONE), 'utf8')
  const tip = git(b.root, 'rev-parse', 'refs/heads/dacli/record').trim()
  const r = (await b.dacli('record', 'pull', '--json')).expectExit(1)
  expect(fs.readFileSync(path.join(b.root, ONE), 'utf8')).toBe(one)
  expect(git(b.root, 'rev-parse', 'refs/heads/dacli/record').trim()).toBe(tip)
  expect(r.error.message).toContain('is not a folder; nothing was merged')
  // Out of the way, the pull merges both and raises no decision.
  fs.rmSync(path.join(b.root, '.dacli/projects/web'))
  expect((await b.dacli('record', 'pull', '--json')).expectExit(0).json.decisions ?? []).toEqual([])
  expect(fs.readFileSync(path.join(b.root, ONE), 'utf8')).toContain('# One, retitled')
}, 30_000)
