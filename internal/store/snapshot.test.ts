// The record's stat cache (`cache/record-stat.json`) is sealed under the clone's cache key: an entry planted in the
// work tree never has a file recorded as another blob.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import type { LocalDir } from '../adapters/git/objects.js'
import { tempDir } from '../testkit/ws.js'
import { seal } from './cachekey.js'
import { snapshotDir } from './snapshot.js'

const KEY = Buffer.alloc(32, 7)

/** The oid a snapshot gives `.dacli/<rel>`. */
const oidOf = (dir: string, rel: string, key: Buffer | null): string | undefined => {
  let node = snapshotDir(dir, key) as LocalDir | undefined
  const parts = rel.split('/')
  for (const p of parts.slice(0, -1)) node = node?.dirs.get(p)
  return node?.files.get(parts[parts.length - 1] as string)?.oid
}

test('a stat cache entry this clone did not seal is never used: the file is hashed from its bytes', () => {
  const dir = path.join(tempDir(), '.dacli')
  const file = path.join(dir, 'projects', 'p', 'tasks', 'open', '001-a.md')
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, 'honest\n')
  const old = new Date(Date.now() - 60_000)
  fs.utimesSync(file, old, old)
  // The change time moved just now: let the file settle past the cache's racy window before it is kept.
  const settle = Date.now() + 3_200
  while (Date.now() < settle) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100)
  const rel = 'projects/p/tasks/open/001-a.md'
  const honest = oidOf(dir, rel, KEY)
  const cacheFile = path.join(dir, 'cache', 'record-stat.json')
  const text = fs.readFileSync(cacheFile, 'utf8')
  expect(text).toContain(honest)
  // The same entry pointing at another blob: under the seal it came with, and sealed under another key.
  const other = 'e'.repeat(40)
  const body = text.slice(text.indexOf('\n') + 1).replace(honest as string, other)
  for (const planted of [
    `${text.slice(0, text.indexOf('\n') + 1)}${body}`,
    seal(Buffer.alloc(32, 9), 'record-stat.json', body),
  ]) {
    fs.writeFileSync(cacheFile, planted)
    expect(oidOf(dir, rel, KEY)).toBe(honest)
  }
  // Sealed under this clone's key, the cache is used as it says (the file's stamp is unchanged).
  fs.writeFileSync(cacheFile, seal(KEY, 'record-stat.json', body))
  expect(oidOf(dir, rel, KEY)).toBe(other)
  // Without a key, no cache is read or written.
  fs.rmSync(cacheFile)
  expect(oidOf(dir, rel, null)).toBe(honest)
  expect(fs.existsSync(cacheFile)).toBe(false)
})
