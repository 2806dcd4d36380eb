// A walk's stamps through the running Node's own lstat (store/lstat.ts): the same four numbers fs.lstatSync gives,
// the same kinds; a lent lstat that gives anything else on its first look, or fails, is never asked again. And the
// built bin does take it: a listing makes no fs.lstatSync call per task file (and makes them all where asking for
// Node's own would print a deprecation warning).

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { nodeSystem } from '../../cmd/system.js'
import { BIN, baseEnv, tempDir, workspace } from '../testkit/ws.js'
import { lstatStamp, useLstatNumbers } from './lstat.js'

afterEach(() => useLstatNumbers(null))

/** A folder with a file, a link to it and a subfolder. */
function sample() {
  const dir = tempDir()
  const file = path.join(dir, '001-a.md')
  fs.writeFileSync(file, 'x'.repeat(37))
  fs.symlinkSync(file, path.join(dir, 'link.md'))
  fs.mkdirSync(path.join(dir, 'sub'))
  return { dir, file }
}

const stampOf = (file: string) => {
  const st = fs.lstatSync(file)
  return [st.size, st.mtimeMs, st.ino, st.ctimeMs]
}

test('through fs.lstatSync or through Node’s own lstat, a walk takes the same stamp and the same kind', () => {
  const { dir, file } = sample()
  // Node 20-24 lend one (cmd/system.ts); a later Node is tested through fs.lstatSync alone.
  const lends = Number(process.versions.node.split('.')[0]) <= 24
  expect(typeof nodeSystem.lstatNumbers).toBe(lends ? 'function' : 'undefined')
  for (const lent of [null, nodeSystem.lstatNumbers ?? null]) {
    useLstatNumbers(lent)
    for (let look = 0; look < 2; look++) {
      const out: number[] = []
      expect(lstatStamp(file, out)).toBe('file')
      expect(out).toEqual(stampOf(file))
      expect((lstatStamp(path.join(dir, 'link.md'), out) as fs.Stats).isSymbolicLink()).toBe(true)
      expect((lstatStamp(path.join(dir, 'sub'), out) as fs.Stats).isDirectory()).toBe(true)
      expect(lstatStamp(path.join(dir, 'gone.md'), out)).toBe('missing')
      expect(out).toHaveLength(4)
    }
  }
})

test('a lent lstat whose first answer differs from fs.lstatSync, or fails, is never asked again', () => {
  const { dir, file } = sample()
  // Node's own where it lends one; else the same numbers, in its order, made from a BigInt lstat.
  const real =
    nodeSystem.lstatNumbers ??
    ((f: string) => {
      const st = fs.lstatSync(f, { bigint: true, throwIfNoEntry: false })
      if (st === undefined) return undefined
      const ts = (ns: bigint) => [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)]
      const head = [st.dev, st.mode, st.nlink, st.uid, st.gid, st.rdev, st.blksize, st.ino, st.size, st.blocks]
      return [...head.map(Number), ...ts(st.atimeNs), ...ts(st.mtimeNs), ...ts(st.ctimeNs), ...ts(st.birthtimeNs)]
    })
  const liars: [string, (f: string) => ArrayLike<number> | undefined][] = [
    ['size one off', (f) => real(f) && Array.from(real(f) as ArrayLike<number>, (n, i) => (i === 8 ? n + 1 : n))],
    ['nanoseconds dropped', (f) => real(f) && Array.from(real(f) as ArrayLike<number>, (n, i) => (i === 13 ? 0 : n))],
    ['too short', (f) => real(f) && Array.from(real(f) as ArrayLike<number>).slice(0, 12)],
    [
      'throws',
      () => {
        throw new Error('no such binding')
      },
    ],
  ]
  for (const [why, liar] of liars) {
    let asked = 0
    useLstatNumbers((f) => {
      asked++
      return liar(f)
    })
    const out: number[] = []
    expect(lstatStamp(file, out), why).toBe('file')
    expect(lstatStamp(file, out), why).toBe('file')
    expect((lstatStamp(path.join(dir, 'link.md'), out) as fs.Stats).isSymbolicLink(), why).toBe(true)
    expect(out, why).toEqual([...stampOf(file), ...stampOf(file)])
    expect(asked, why).toBe(1)
  }
  // A first look at a file that is not there decides nothing: the next file's look does.
  let asked = 0
  useLstatNumbers((f) => {
    asked++
    return real(f)
  })
  const out: number[] = []
  expect(lstatStamp(path.join(dir, 'gone.md'), out)).toBe('missing')
  expect(lstatStamp(file, out)).toBe('file')
  expect(lstatStamp(file, out)).toBe('file')
  expect(out).toEqual([...stampOf(file), ...stampOf(file)])
  expect(asked).toBe(3)
})

test('the built bin lists through Node’s own lstat; with --pending-deprecation or on a later Node, through fs.lstatSync and no warning', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['One', 'Two', 'Three', 'Four']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const log = path.join(tempDir(), 'lstats.txt')
  const preload = path.join(tempDir(), 'count-lstat.cjs')
  fs.writeFileSync(
    preload,
    [
      "const fs = require('node:fs')",
      'const lstatSync = fs.lstatSync',
      'fs.lstatSync = function (p, ...rest) {',
      `  if (String(p).endsWith('.md') && String(p).includes('tasks')) fs.appendFileSync(${JSON.stringify(log)}, String(p) + '\\n')`,
      '  return lstatSync.call(this, p, ...rest)',
      '}',
      '',
    ].join('\n'),
  )
  // A later Node, on which asking for its own lstat may print a warning: fs.lstatSync.
  const later = path.join(tempDir(), 'node-26.cjs')
  fs.writeFileSync(
    later,
    "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '26.0.0' } })\n",
  )
  const list = (env: Record<string, string>, more: string[] = []) => {
    fs.rmSync(log, { force: true })
    const r = spawnSync(process.execPath, ['-r', preload, ...more, BIN, 'task', 'list', '--json'], {
      cwd: ws.root,
      env: { ...(baseEnv() as Record<string, string>), ...env },
      encoding: 'utf8',
    })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout).tasks.map((t: { title: string }) => t.title)).toEqual(['One', 'Two', 'Three', 'Four'])
    return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').length : 0
  }
  await new Promise((r) => setTimeout(r, 3_100)) // the files settled: the caches keep them, so a listing checks stamps
  list({}) // the caches filled
  expect(list({ NODE_OPTIONS: '--pending-deprecation' })).toBeGreaterThanOrEqual(4) // one per file, as any walk
  expect(list({}, ['-r', later])).toBeGreaterThanOrEqual(4)
  expect(list({})).toBeLessThanOrEqual(1) // the first look only
})

test("a cache's stamp of a file (stampOf) never follows a link at its end, whichever lstat is asked", async () => {
  const { dir, file } = sample()
  const { stampOf: cacheStamp } = await import('./filecache.js')
  const link = path.join(dir, 'link.md')
  for (const lent of [null, nodeSystem.lstatNumbers ?? null]) {
    useLstatNumbers(lent)
    const own = fs.lstatSync(link)
    // The link as itself: no value kept for the file it points to (or replaced) is served through it.
    expect(cacheStamp(link)).toEqual({ size: own.size, mtimeMs: own.mtimeMs, ino: own.ino, ctimeMs: own.ctimeMs })
    expect(cacheStamp(link)?.ino).not.toBe(fs.statSync(link).ino)
    const [size, mtimeMs, ino, ctimeMs] = stampOf(file) as [number, number, number, number]
    expect(cacheStamp(file)).toEqual({ size, mtimeMs, ino, ctimeMs })
    expect(cacheStamp(path.join(dir, 'gone.md'))).toBeNull()
  }
})
