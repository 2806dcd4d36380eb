// A command about one task reads that task's files, never a project's whole cache section for one entry: the record
// cache (`.dacli/cache/records/<project>`) serves listings of full records only (once `overview` listed them, it
// holds every record of the project), and a shown task's few dependencies are parsed from their files, not looked
// up in the project's summaries.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, test, vi } from 'vitest'
import { nodeSystem } from '../../cmd/system.js'
import { baseEnv, workspace } from '../testkit/ws.js'

afterEach(() => {
  vi.useRealTimers()
})

test("one task's commands read its file, never the project's record cache a listing of records filled", async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['Ledger import', 'Refund path', 'Batch close'])
    (await ws.dacli('task', 'add', t, '--project', 'p', '--accept', 'works')).expectExit(0)
  const open = path.join(ws.root, '.dacli', 'projects', 'p', 'tasks', 'open')
  const old = new Date(Date.now() - 3_600_000)
  for (const f of fs.readdirSync(open)) fs.utimesSync(path.join(open, f), old, old)
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] }) // settled: the caches keep every file
  ;(await ws.dacli('overview', '--json')).expectExit(0)
  const records = path.join(ws.root, '.dacli', 'cache', 'records', 'p')
  const filled = fs.readFileSync(records, 'utf8')
  expect(filled).toContain('"title":"Refund path"')
  // The kept record of p/2 says another title, of the same length (the file's table of contents still holds):
  // a read through the cache would print it.
  const planted = filled.replace('"title":"Refund path"', '"title":"Kept record"')
  fs.writeFileSync(records, planted)

  const show = await ws.dacli('task', 'show', 'p/2', '--json')
  show.expectExit(0)
  expect(show.json.title).toBe('Refund path')
  ;(await ws.dacli('task', 'claim', 'p/2')).expectExit(0)
  ;(await ws.dacli('task', 'check', 'p/2', '--all')).expectExit(0)
  ;(await ws.dacli('task', 'done', 'p/2')).expectExit(0)
  expect((await ws.dacli('task', 'show', 'p/2', '--json')).json).toMatchObject({
    title: 'Refund path',
    status: 'done',
  })
  // Neither read nor rewritten by any of them: the bytes on disk are the planted ones.
  expect(fs.readFileSync(records, 'utf8')).toBe(planted)

  // A listing of records reads it, and takes the done task's record from its changed file.
  const overview = await ws.dacli('overview', '--json')
  overview.expectExit(0)
  expect(fs.readFileSync(records, 'utf8')).not.toContain('"title":"Kept record"')
})

test("a shown task's dependencies are read from their files, not from the project's summaries in the index", async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['Ledger import', 'Refund path', 'Batch close'])
    (await ws.dacli('task', 'add', t, '--project', 'p', '--accept', 'works')).expectExit(0)
  ;(await ws.dacli('task', 'depend', 'p/3', '--add', 'p/1', '--add', 'p/2')).expectExit(0)
  const open = path.join(ws.root, '.dacli', 'projects', 'p', 'tasks', 'open')
  const old = new Date(Date.now() - 3_600_000)
  for (const f of fs.readdirSync(open)) fs.utimesSync(path.join(open, f), old, old)
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] }) // settled: the caches keep every file
  ;(await ws.dacli('next', '--json')).expectExit(0) // a listing: every summary kept in the index
  const index = path.join(ws.root, '.dacli', 'cache', 'index')
  const filled = fs.readFileSync(index, 'utf8')
  expect(filled).toContain('","Refund path",')
  // The kept summary of p/2 says another title, of the same length: a lookup in the index would print it.
  fs.writeFileSync(index, filled.replace('","Refund path",', '","Kept record",'))
  const show = await ws.dacli('task', 'show', 'p/3', '--json')
  show.expectExit(0)
  expect(show.json.depends_on.map((d: { title: string }) => d.title)).toEqual(['Ledger import', 'Refund path'])
  // Nine: more than a few (FEW_MISSES) are looked up in the index, with the same answer.
  const more = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot', 'Golf', 'Hotel']
  for (const t of more) (await ws.dacli('task', 'add', t, '--project', 'p', '--accept', 'works')).expectExit(0)
  const refs = ['p/1', ...more.map((_, i) => `p/${i + 4}`)]
  ;(await ws.dacli('task', 'add', 'Wide', '--project', 'p', '--accept', 'works')).expectExit(0)
  ;(await ws.dacli('task', 'depend', 'p/12', ...refs.flatMap((r) => ['--add', r]))).expectExit(0)
  const wide = await ws.dacli('task', 'show', 'p/12', '--json')
  wide.expectExit(0)
  expect(wide.json.depends_on.map((d: { title: string }) => d.title)).toEqual(['Ledger import', ...more])
})

test('a number or an id is resolved from the entries that can match it: the tasks keeping old numbers, that id', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['First', 'Second', 'Third']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const open = path.join(ws.root, '.dacli', 'projects', 'p', 'tasks', 'open')
  const third = path.join(open, fs.readdirSync(open).find((n) => n.startsWith('003-')) as string)
  fs.writeFileSync(third, fs.readFileSync(third, 'utf8').replace(/^version: /m, 'aliases: [7]\nversion: '))
  const old = new Date(Date.now() - 3_600_000)
  for (const f of fs.readdirSync(open)) fs.utimesSync(path.join(open, f), old, old)
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] }) // settled: the caches keep every file
  const { Store } = await import('./store.js')
  const { HOLDS_ALIASES, idIs } = await import('./taskitems.js')
  const open1 = async () => Store.open(ws.root, baseEnv(), () => new Date(), nodeSystem)
  const warm = await open1()
  const all = await warm.idsIn('p')
  warm.flush() // every file's ids kept in the index
  const second = all.find((e) => e.seq === 2)
  expect(second).toBeDefined()
  for (const store of [await open1(), await open1()]) {
    // Only the entries that can match are made; the walk they came from names every file.
    expect((await store.idsWhere('p', HOLDS_ALIASES)).map((e) => [e.seq, e.aliases])).toEqual([[3, [7]]])
    expect((await store.idsWhere('p', idIs(second?.id as string))).map((e) => e.path)).toEqual([second?.path])
    expect((await store.taskFiles('p')).map((f) => f.seq)).toEqual([1, 2, 3])
    expect((await store.resolve('p/7')).path).toBe(all.find((e) => e.seq === 3)?.path)
    expect((await store.resolve(second?.id as string)).path).toBe(second?.path)
  }
  // A file edited since is read again: the alias it gained is seen at once.
  const first = path.join(open, fs.readdirSync(open).find((n) => n.startsWith('001-')) as string)
  fs.writeFileSync(first, fs.readFileSync(first, 'utf8').replace(/^version: /m, 'aliases: [9]\nversion: '))
  fs.utimesSync(first, old, new Date(Date.now() - 30_000))
  const after = await open1()
  expect((await after.idsWhere('p', HOLDS_ALIASES)).map((e) => [e.seq, e.aliases])).toEqual([
    [1, [9]],
    [3, [7]],
  ])
})
