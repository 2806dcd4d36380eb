// System.lstatInto answers exactly as fs.lstatSync does, for every kind of entry a task folder can hold, and turns
// itself off where it cannot be trusted; a listing takes every task file's stamp through it.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, test, vi } from 'vitest'
import { CacheFile, cachePath } from '../internal/store/filecache.js'
import { listProject } from '../internal/store/taskindex.js'
import { tempDir, workspace } from '../internal/testkit/ws.js'
import { fastLstat } from './faststat.js'
import { nodeSystem } from './system.js'

const saved = process.env.NODE_PENDING_DEPRECATION
afterEach(() => {
  vi.useRealTimers()
  if (saved === undefined) delete process.env.NODE_PENDING_DEPRECATION
  else process.env.NODE_PENDING_DEPRECATION = saved
})

/** What fs.lstatSync says, in lstatInto's order; null when the path is gone; the error's code when it throws. */
function portable(file: string): number[] | null | string {
  try {
    const st = fs.lstatSync(file, { throwIfNoEntry: false })
    return st === undefined ? null : [st.mode, st.size, st.mtimeMs, st.ino, st.ctimeMs]
  } catch (e) {
    return (e as NodeJS.ErrnoException).code as string
  }
}

/** The same through `fast`. */
function through(fast: ((f: string, out: Float64Array) => boolean) | undefined, file: string) {
  const out = new Float64Array(5)
  try {
    return fast?.(file, out) ? [...out] : null
  } catch (e) {
    return (e as NodeJS.ErrnoException).code as string
  }
}

function entries(): string[] {
  const dir = tempDir()
  const file = path.join(dir, '001-a-task.md')
  fs.writeFileSync(file, 'x'.repeat(1234))
  fs.utimesSync(file, new Date('2026-01-02T03:04:05.678Z'), new Date('2025-06-07T08:09:10.111Z'))
  fs.mkdirSync(path.join(dir, '002-a-folder.md'))
  fs.symlinkSync(file, path.join(dir, '003-a-link.md'))
  const fifo = path.join(dir, '004-a-fifo.md')
  const made = spawnSync('mkfifo', [fifo]).status === 0
  return [
    file,
    path.join(dir, '002-a-folder.md'),
    path.join(dir, '003-a-link.md'),
    ...(made ? [fifo] : []),
    path.join(dir, 'gone.md'), // ENOENT
    path.join(file, 'under-a-file.md'), // ENOTDIR
  ]
}

test('lstatInto gives fs.lstatSync’s mode, size, times and inode for a file, a folder, a link and a FIFO; false when gone', () => {
  const fast = nodeSystem.lstatInto
  expect(fast).toBeTypeOf('function') // Node 20 has the call: the fast path is what the bin uses here
  const paths = entries()
  const got = paths.map((e) => through(fast, e))
  expect(got).toEqual(paths.map(portable))
  expect(got.at(-1)).toBe('ENOTDIR') // thrown, as fs.lstatSync throws it
  expect(got.at(-2)).toBeNull()
})

test('a failed check (its probe is gone) means no fast lstat: a listing then uses fs.lstatSync', () => {
  expect(fastLstat(path.join(tempDir(), 'no-probe-here'))).toBeUndefined()
  expect(fastLstat(path.join(tempDir()))).toBeTypeOf('function') // a folder is a fine probe
})

test('where Node would warn about the call (NODE_PENDING_DEPRECATION=1) there is no fast lstat at all', () => {
  process.env.NODE_PENDING_DEPRECATION = '1'
  expect(fastLstat()).toBeUndefined()
  delete process.env.NODE_PENDING_DEPRECATION
  expect(fastLstat()).toBeTypeOf('function')
})

test('a listing stamps every task file through lstatInto and still reports a folder or a link named like a task', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['One', 'Two', 'Three']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const open = path.join(ws.root, '.dacli', 'projects', 'p', 'tasks', 'open')
  const [first] = fs.readdirSync(open)
  fs.mkdirSync(path.join(open, '007-a-folder.md'))
  fs.symlinkSync(path.join(open, first as string), path.join(open, '008-a-link.md'))
  // Past the racy window, and listed once, so the index holds every file: a listing then stamps each one.
  const old = new Date(Date.now() - 3_600_000)
  for (const f of fs.readdirSync(open)) fs.utimesSync(path.join(open, f), old, old)
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] })
  ;(await ws.dacli('task', 'list', '--json')).expectExit(0)
  const dir = path.join(ws.root, '.dacli')
  const section = () => new CacheFile(cachePath(dir, 'index'), nodeSystem).section<unknown[]>('tasks/p', 'all')
  const seen: string[] = []
  const fast = nodeSystem.lstatInto
  const counted = (file: string, out: Float64Array) => {
    seen.push(path.basename(file))
    return fast?.(file, out) ?? false
  }
  const via = await listProject({ root: ws.root, dir, lstatInto: counted }, 'p', section)
  const plain = await listProject({ root: ws.root, dir }, 'p', section)
  expect(seen.sort()).toEqual(fs.readdirSync(open).sort())
  expect(via.tasks.map((t) => t.title)).toEqual(['One', 'Two', 'Three'])
  expect(via).toEqual(plain)
  expect(via.broken.map((b) => [path.basename(b.path), b.code])).toEqual([
    ['007-a-folder.md', 'unparseable-object'],
    ['008-a-link.md', 'symlink-in-workspace'],
  ])
})
