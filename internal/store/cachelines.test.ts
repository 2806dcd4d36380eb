// A cache file is written line by line, its table of contents last into room set aside for it: every offset must
// still be the byte it names, whatever the text (several bytes per character, values longer than the write buffer),
// for fresh sections and for sections copied through from the file as it was.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, test, vi } from 'vitest'
import { nodeSystem } from '../../cmd/system.js'
import { testTrust } from '../testkit/cachetrust.js'
import { tempDir } from '../testkit/ws.js'
import { CacheFile, type Stamp } from './filecache.js'

/** A cache key of the tests' own (a Store reads or makes the clone's: cachekey.ts). */
const TEST_KEY = testTrust()

afterEach(() => {
  vi.useRealTimers()
})

// Settled an hour ago: an entry is kept only for a file that has been still for a while.
const settled = Date.now() - 3_600_000
const stamp = (n: number): Stamp => ({ size: n, mtimeMs: settled + n, ino: 1000 + n, ctimeMs: settled + n })

const values: Record<string, unknown> = {
  short: { title: 'plain' },
  accents: { title: 'écrit à la main, déjà revu' },
  astral: { title: '𝄞 clef, 😀 face, 中文 title' },
  // Longer than the joined short form.
  long: { body: 'é'.repeat(600) },
  astralLong: { body: '😀'.repeat(400) },
}

/**
 * The first section's own value: longer than the write buffer holds at three bytes a unit, and wide enough that the
 * whole body is under 100,000 UTF-16 units but over 100,000 bytes, so every later offset needs a digit more than a
 * count of units would give it (the table's room is set aside by a bound in bytes).
 */
const WIDE = { body: '中'.repeat(35_000) }
const WIDE_IN = 'a-wide'

function fill(file: string, sections: string[]): void {
  const cache = new CacheFile(file, nodeSystem, 'index', TEST_KEY)
  for (const s of sections) {
    const section = cache.section<unknown>(s, 'all')
    for (const [i, [name, v]] of Object.entries(values).entries()) section.set(`${s}-${name}.md`, stamp(i), v)
    if (s === WIDE_IN) section.set('wide.md', stamp(99), WIDE)
  }
  cache.save()
}

function readBack(file: string, sections: string[]): void {
  const cache = new CacheFile(file, nodeSystem, 'index', TEST_KEY)
  for (const s of sections) {
    const section = cache.section<unknown>(s, 'all')
    for (const [i, [name, v]] of Object.entries(values).entries())
      expect(section.get(`${s}-${name}.md`, stamp(i))).toEqual(v)
    if (s === WIDE_IN) expect(section.get('wide.md', stamp(99))).toEqual(WIDE)
  }
}

test('every offset of the table names its byte, for text of any width, fresh or copied through', () => {
  vi.useFakeTimers({ now: Date.now(), toFake: ['Date'] })
  const file = path.join(tempDir(), 'cache', 'index')
  const sections = [WIDE_IN, 'één', 'proj-b', 'proj-c', 'proj-d', 'proj-e']
  fill(file, sections)
  const bytes = fs.readFileSync(file)
  const lines = bytes.toString('utf8').split('\n')
  // The table fills the room set aside for it: JSON, then spaces.
  expect(lines[1]).toMatch(/^\[.*\] *$/)
  const toc = JSON.parse(lines[1] as string) as [string, number, number, number][]
  const base = Buffer.byteLength(`${lines[0]}\n${lines[1]}\n`)
  expect(toc.map((e) => e[0])).toEqual([...sections].sort())
  for (const [name, line, entries, end] of toc) {
    expect(bytes.subarray(base + line, base + entries).toString('utf8')).toBe(`${name}\t`)
    expect(bytes[base + end]).toBe(10) // the line's end
  }
  expect(base + (toc.at(-1) as [string, number, number, number])[3] + 1).toBe(bytes.length)
  readBack(file, sections)

  // One section set again: the others are copied through as their bytes, and still read back.
  const cache = new CacheFile(file, nodeSystem, 'index', TEST_KEY)
  cache.section<unknown>('proj-b', 'all').set('proj-b-short.md', stamp(0), { title: 'changed' })
  cache.section<unknown>('proj-b', 'all').set('proj-b-more.md', stamp(9), { title: 'ßeta' })
  cache.save()
  expect(fs.readFileSync(file)).not.toEqual(bytes)
  values.short = { title: 'changed' }
  try {
    readBack(file, ['proj-b'])
  } finally {
    values.short = { title: 'plain' }
  }
  readBack(file, [WIDE_IN, 'één', 'proj-c', 'proj-d', 'proj-e'])
  expect(
    new CacheFile(file, nodeSystem, 'index', TEST_KEY)
      .section<unknown>('proj-b', 'all')
      .get('proj-b-more.md', stamp(9)),
  ).toEqual({
    title: 'ßeta',
  })
})
