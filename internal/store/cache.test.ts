// The caches under .dacli/cache/ only ever cost or save time: edits behind
// their back are seen, and deleting them changes no answer.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { workspace } from '../testkit/ws.js'

/** Age a file so the cache is allowed to keep it (fresh files are never cached). */
const age = (file: string) => fs.utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000))

test('hand edits behind the caches are seen; deleting the caches changes no answer', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Original title', '--project', 'p', '--accept', 'one')).expectExit(0)
  ;(await ws.dacli('note', 'add', 'finding', 'Noted thing', '--project', 'p')).expectExit(0)
  const ro = await ws.agent('ro', 'reader')
  ;(await ws.dacli('task', 'claim', 'p/1', { as: ro.token })).expectExit(0)
  const dacliDir = path.join(ws.root, '.dacli')
  const walk = (d: string): string[] =>
    fs
      .readdirSync(d, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]))
  for (const f of walk(dacliDir)) if (f.endsWith('.md')) age(f)
  const answers = async () => ({
    list: (await ws.dacli('task', 'list', '--json')).json.tasks,
    show: (await ws.dacli('task', 'show', 'p/1', '--json')).json,
    notes: (await ws.dacli('note', 'list', '--json')).json.notes,
    events: (await ws.dacli('events', 'list', '--json')).json,
  })
  const warm = await answers()
  expect(fs.existsSync(path.join(dacliDir, 'cache', 'records', 'p.json'))).toBe(true)
  expect(await answers()).toEqual(warm)
  fs.rmSync(path.join(dacliDir, 'cache'), { recursive: true })
  expect(await answers()).toEqual(warm)

  // Edit the task and the note by hand (the editor keeps the inode), then a tampered event.
  const task = path.join(dacliDir, 'projects/p/tasks/open/001-original-title.md')
  fs.writeFileSync(task, fs.readFileSync(task, 'utf8').replace('# Original title', '# Edited title!'))
  const note = walk(path.join(dacliDir, 'projects/p/notes'))[0] as string
  fs.writeFileSync(note, fs.readFileSync(note, 'utf8').replace('# Noted thing', '# Renamed thing'))
  const event = walk(path.join(dacliDir, 'events')).find((f) => f.endsWith('-claim.md')) as string
  fs.writeFileSync(event, fs.readFileSync(event, 'utf8').replace('about:', 'about: t-X\nx:'))
  const after = await answers()
  expect(after.list[0].title).toBe('Edited title!')
  expect(after.show.title).toBe('Edited title!')
  expect(after.notes[0].title).toBe('Renamed thing')
  expect(after.events.events).toEqual([])
  expect(after.events.skipped[0].reason).toMatch(/checksum|YAML|map/)
})

test('an entry cached while its file was racily fresh is trusted only while the content is the same', async () => {
  const { FileCache } = await import('./filecache.js')
  const { tempDir } = await import('../testkit/ws.js')
  const file = path.join(tempDir(), 'c.json')
  const fresh = { key: '10:123:7', mtimeMs: Date.now() }
  const old = { key: '10:1:7', mtimeMs: Date.now() - 60_000 }
  const a = new FileCache<string>(file, 1)
  a.set('fresh', fresh, 'parsed A', 'content A')
  a.set('nodigest', fresh, 'parsed B')
  a.set('old', old, 'parsed C')
  a.save({ prune: true })
  const b = new FileCache<string>(file, 1)
  expect(b.get('fresh', fresh, () => 'content A')).toBe('parsed A')
  expect(b.get('fresh', fresh, () => 'content X')).toBeUndefined() // same stamp, other bytes: a miss
  expect(b.get('fresh', fresh)).toBeUndefined() // cannot verify without the content
  expect(b.get('nodigest', fresh)).toBeUndefined() // never kept
  expect(b.get('old', old)).toBe('parsed C')
  expect(b.get('old', { ...old, key: '11:1:7' })).toBeUndefined()
})

test('a digest entry whose file has stopped being fresh is kept on its stamp alone from then on', async () => {
  const { FileCache } = await import('./filecache.js')
  const { tempDir } = await import('../testkit/ws.js')
  const file = path.join(tempDir(), 'c.json')
  const cachedAt = { key: '10:5:7', mtimeMs: Date.now() }
  const a = new FileCache<string>(file, 1)
  a.set('t', cachedAt, 'parsed', 'content')
  a.save({ prune: true })
  // Later: the same stamp, but its modification time is now well in the past.
  const later = { key: '10:5:7', mtimeMs: Date.now() - 60_000 }
  const b = new FileCache<string>(file, 1)
  let reads = 0
  expect(
    b.get('t', later, () => {
      reads++
      return 'content'
    }),
  ).toBe('parsed')
  b.save({ prune: true })
  const c = new FileCache<string>(file, 1)
  expect(c.get('t', later)).toBe('parsed') // no content needed any more
  expect(reads).toBe(1)
  const stored = JSON.parse(fs.readFileSync(file, 'utf8'))
  expect(stored.entries.t).toHaveLength(2)
})
