// A command about one task reads that task's files, never a project's whole cache section for one entry: the record
// cache (`.dacli/cache/records/<project>`) serves listings of full records only (once `overview` listed them, it
// holds every record of the project), and a shown task's few dependencies are parsed from their files, not looked
// up in the project's summaries.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, test, vi } from 'vitest'
import { workspace } from '../testkit/ws.js'

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
