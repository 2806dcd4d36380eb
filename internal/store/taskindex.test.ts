// The workspace index is rewritten only when what it holds changes — a long-lived MCP server lists constantly while
// agents write. A file too fresh to trust its stamp (the racy window) is not cached: it is parsed on every listing
// until it settles, then cached on its stamp. Dead writers' temp files in the cache folder are still swept.

import { spawnSync } from 'node:child_process'
import fsDefault, * as fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import * as path from 'node:path'
import { afterEach, expect, test, vi } from 'vitest'
import { nodeSystem } from '../../cmd/system.js'
import { hostTag } from '../base/hosttag.js'
import { baseEnv, workspace } from '../testkit/ws.js'
import { cacheTrust } from './cachekey.js'
import { listCriteria } from './criteria.js'
import { CacheFile, cachePath, decodeSection } from './filecache.js'
import { type Kept, patched, patchOf } from './livekept.js'
import { useLstatNumbers } from './lstat.js'
import { joinListings, type Listing, listProject } from './taskindex.js'
import { listIds, listProjectItems } from './taskitems.js'

/** A cache file of the workspace at `p`, read and written as its commands do (with the clone's cache key). */
const cacheIn = (p: { root: string; dir: string }, name: string) =>
  new CacheFile(
    cachePath(p.dir, name),
    nodeSystem,
    name,
    cacheTrust({ git: { commonDir: path.join(p.root, '.git') }, config: { id: '' }, env: {} }, nodeSystem),
  )

afterEach(() => {
  vi.useRealTimers()
})

test('the cache is rewritten when its entries change, not on every listing of a fresh file', async () => {
  const entries = () => {
    if (!fs.existsSync(cache)) return {}
    const line = fs
      .readFileSync(cache, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('tasks/p\t'))
    return line === undefined ? {} : decodeSection(line.slice(line.indexOf('\t') + 1))
  }
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Fresh one', '--project', 'p')).expectExit(0)
  const cache = path.join(ws.root, '.dacli', 'cache', 'index')
  const stamp = () => {
    if (!fs.existsSync(cache)) return 'none'
    const st = fs.statSync(cache, { bigint: true })
    return `${st.ino}:${st.mtimeNs}`
  }
  const list = async () => (await ws.dacli('task', 'list', '--json')).expectExit(0).json
  expect((await list()).tasks[0].title).toBe('Fresh one')
  const first = stamp()
  expect(entries()['open/001-fresh-one.md']).toBeUndefined() // too fresh to trust its stamp: not kept
  // A dead writer's half-written cache is swept by the next listing even though nothing is rewritten.
  const dead = spawnSync('true').pid
  const tag = hostTag(nodeSystem)
  const temp = path.join(path.dirname(cache), `.index.dacli-tmp-${dead}-${tag}-0badf00d`)
  fs.mkdirSync(path.dirname(cache), { recursive: true })
  fs.writeFileSync(temp, '{"v":')
  expect((await list()).tasks[0].title).toBe('Fresh one')
  expect(stamp()).toBe(first)
  expect(fs.existsSync(temp)).toBe(false)

  // A minute on, the file has settled: it is cached (one rewrite), then served from the cache.
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] })
  expect((await list()).tasks[0].title).toBe('Fresh one')
  const second = stamp()
  expect(second).not.toBe(first)
  expect(Object.keys(entries())).toEqual(['open/001-fresh-one.md'])
  expect(entries()['open/001-fresh-one.md']?.length).toBe(2) // stamp, summary
  expect((await list()).tasks[0].title).toBe('Fresh one')
  expect(stamp()).toBe(second)
})

test('a process keeps no summaries between listings: each listing takes them from the index again', async () => {
  // Summaries kept for a long-running process (the MCP server) held ~10 MB alive at 10,000 tasks, which V8's old
  // generation multiplies before a full collection; every listing reads them from the index instead.
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['One', 'Two', 'Three']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  // Past the racy window, so nothing but this rule keeps a summary from being remembered.
  const old = new Date(Date.now() - 3_600_000)
  const open = path.join(ws.root, '.dacli', 'projects', 'p', 'tasks', 'open')
  for (const f of fs.readdirSync(open)) fs.utimesSync(path.join(open, f), old, old)
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] }) // settled: utimes moved the change times
  ;(await ws.dacli('task', 'list', '--json')).expectExit(0) // the index holds every file's stamp now
  const p = { root: ws.root, dir: path.join(ws.root, '.dacli') }
  let opened = 0
  const section = () => {
    opened++
    return cacheIn(p, 'index').section<unknown[]>('tasks/p', 'used')
  }
  const listings = []
  for (let i = 0; i < 3; i++) listings.push(await listProject(p, 'p', section))
  expect(opened).toBe(3)
  const [first, , third] = listings as [Listing, Listing, Listing]
  expect(third.tasks.map((t) => t.title)).toEqual(['One', 'Two', 'Three'])
  expect(third.tasks).toEqual(first.tasks)
  for (const [i, t] of third.tasks.entries()) {
    expect(t).not.toBe(first.tasks[i])
    expect(Object.isFrozen(t)).toBe(false)
  }
})

test('a task file moved while its folders are read (a claim: open → active) is found on the next pass, by every per-file reader', async () => {
  // The walk names open/002; before it is read, another process moves it to active/ (new copy first, old removed).
  // One pass misses it; the readers redo a pass that saw a file vanish (MOVE_PASSES), as a listing does.
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['One', 'Two', 'Three']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const p = { root: ws.root, dir: path.join(ws.root, '.dacli') }
  const tasks = path.join(p.dir, 'projects', 'p', 'tasks')
  const name = fs.readdirSync(path.join(tasks, 'open')).find((n) => n.startsWith('002-')) as string
  const cache = (n: string) => cacheIn(p, n)
  /** The summaries, fetched when the first file must be read: the moment the file moves. */
  const movingWhileRead = () => {
    let moved = false
    return () => {
      if (!moved) {
        moved = true
        const [from, to] = [path.join(tasks, 'open', name), path.join(tasks, 'active', name)]
        fs.mkdirSync(path.dirname(to), { recursive: true })
        fs.copyFileSync(from, to)
        fs.rmSync(from)
      }
      return cache('index').section<unknown[]>('tasks/p', 'used')
    }
  }
  const { ids } = await listIds(p, 'p', () => cache('index').section('ids/p', 'used'), movingWhileRead())
  expect(ids.map((e) => [e.seq, e.status])).toEqual([
    [1, 'open'],
    [2, 'active'],
    [3, 'open'],
  ])
  // Back, and again through the list items.
  fs.renameSync(path.join(tasks, 'active', name), path.join(tasks, 'open', name))
  const items = await listProjectItems(
    p,
    'p',
    () => cache('items').section('p', 'used'),
    movingWhileRead(),
    (t) => JSON.stringify(t.title),
  )
  expect(items.rows.map((r) => [r.seq, r.status, r.json])).toEqual([
    [1, 'open', '"One"'],
    [2, 'active', '"Two"'],
    [3, 'open', '"Three"'],
  ])
  expect(items.broken).toEqual([])
})

/**
 * A project `p` with two tasks, a store opened on it (one invocation), and `byHand()`, which writes a third task
 * file as another hand would (003-by-hand.md).
 */
async function twoTasks() {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['One', 'Two']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const { Store } = await import('./store.js')
  const store = await Store.open(ws.root, baseEnv(), () => new Date(), nodeSystem)
  const byHand = () =>
    ws.write(
      '.dacli/projects/p/tasks/open/003-by-hand.md',
      `---\nid: t-01J${'3'.padStart(23, '0')}\nkind: task\nversion: 1\n---\n\n# By hand\n`,
    )
  return { ws, store, byHand }
}

test('one invocation walks a project once to resolve a bare number: the files are those of the walk its ids came from', async () => {
  const { store, byHand } = await twoTasks()
  const names = async () => (await store.taskFiles('p')).map((f) => f.name).sort()
  expect((await store.resolve('p/2')).name).toBe('002-two.md')
  // A file written by hand after that walk is not in this invocation's files (nor in its ids): one snapshot.
  byHand()
  expect(await names()).toEqual(['001-one.md', '002-two.md'])
  expect((await store.idsIn('p')).map((e) => e.seq)).toEqual([1, 2])
  // Its listing checks the files of that walk against the index (as `context` lists the project of the task it
  // resolved): no second walk, so the same snapshot.
  expect((await store.projectListing('p')).tasks.map((t) => t.seq)).toEqual([1, 2])
  // Forgetting the project (as a write does) walks it again.
  store.forget('p')
  expect(await names()).toEqual(['001-one.md', '002-two.md', '003-by-hand.md'])
  expect((await store.projectListing('p')).tasks.map((t) => t.seq)).toEqual([1, 2, 3])
  expect((await store.resolve('p/3')).name).toBe('003-by-hand.md')
})

test('full records read after a listing of the same invocation come from its walk: one walk a project, one snapshot', async () => {
  const { store, byHand } = await twoTasks()
  expect((await store.projectListing('p')).tasks.map((t) => t.seq)).toEqual([1, 2])
  // overview lists every project, then reads every task in full (delivery progress): the files of the listing's
  // walk, so a file written by hand in between is in neither.
  byHand()
  expect((await store.listRecords('p')).records.map((r) => r.seq).sort()).toEqual([1, 2])
  expect((await store.listRecords()).records.map((r) => r.seq).sort()).toEqual([1, 2])
  // Forgetting the project (as a write does) walks it again.
  store.forget('p')
  expect((await store.listRecords('p')).records.map((r) => r.seq).sort()).toEqual([1, 2, 3])
})

test('after its own write an invocation keeps what it read of the project, that one file brought up to date', async () => {
  const { ws, store, byHand } = await twoTasks()
  const two = await store.resolve('p/2')
  const id = (await store.readTaskFile(two)).id
  // Another process's file, written after this invocation's walk: not seen by it, before or after its write.
  byHand()
  await store.editTask(two, 'a-test', (e) => {
    e.status = 'active'
    return true
  })
  const ids = await store.idsIn('p')
  expect(ids.map((e) => [e.seq, e.status, e.path, e.version])).toEqual([
    [1, 'open', '.dacli/projects/p/tasks/open/001-one.md', 1],
    [2, 'active', '.dacli/projects/p/tasks/active/002-two.md', 2],
  ])
  // The walk's file moved with it, with the new file's stamp: resolved and read where it is now.
  const again = await store.resolve(id)
  expect(again.path).toBe('.dacli/projects/p/tasks/active/002-two.md')
  expect((await store.summaryOf(again))?.status).toBe('active')
  // A listing of that walk reads the rewritten file by its new stamp: its new status and version, not the index's.
  expect((await store.projectListing('p')).tasks.map((t) => [t.seq, t.status, t.version])).toEqual([
    [1, 'open', 1],
    [2, 'active', 2],
  ])
  expect((await store.taskFiles('p')).map((f) => `${f.status}/${f.name}`).sort()).toEqual([
    'active/002-two.md',
    'open/001-one.md',
  ])
  // A copy left by an interrupted move, removed by the next write: the project is read again.
  fs.mkdirSync(path.join(ws.root, '.dacli/projects/p/tasks/blocked'), { recursive: true })
  fs.copyFileSync(
    path.join(ws.root, '.dacli/projects/p/tasks/active/002-two.md'),
    path.join(ws.root, '.dacli/projects/p/tasks/blocked/002-two.md'),
  )
  await store.editTask(again, 'a-test', (e) => {
    e.status = 'open'
    return true
  })
  expect((await store.idsIn('p')).map((e) => `${e.status}/${e.seq}`)).toEqual(['open/1', 'open/2', 'open/3'])
})

test("resolving after a few files changed reads those files, not the project's summaries; after many, the summaries", async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  const titles = Array.from({ length: 12 }, (_, i) => `Task ${i + 1}`)
  for (const t of titles) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const open = path.join(ws.root, '.dacli', 'projects', 'p', 'tasks', 'open')
  const names = fs.readdirSync(open).sort()
  const old = new Date(Date.now() - 3_600_000)
  for (const f of names) fs.utimesSync(path.join(open, f), old, old)
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] }) // settled: the index keeps every file
  ;(await ws.dacli('task', 'list', '--json')).expectExit(0)
  ;(await ws.dacli('task', 'show', 'p/1', '--json')).expectExit(0)
  const index = path.join(ws.root, '.dacli', 'cache', 'index')
  const entry = (section: string, name: string) => {
    const line = fs
      .readFileSync(index, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${section}\t`)) as string
    return decodeSection(line.slice(line.indexOf('\t') + 1))[`open/${name}`]?.[0]
  }
  const stampOf = (name: string) => {
    const st = fs.statSync(path.join(open, name))
    return [st.size, Math.trunc(st.mtimeMs), st.ino, Math.trunc(st.ctimeMs)]
  }
  const { Store } = await import('./store.js')
  const resolveAfterEditing = async (edited: string[]) => {
    for (const name of edited) {
      const file = path.join(open, name)
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^# .*$/m, '# Edited by hand'))
      fs.utimesSync(file, old, new Date(Date.now() - 30_000)) // settled, by the fake clock
    }
    const store = await Store.open(ws.root, baseEnv(), () => new Date(), nodeSystem)
    expect((await store.resolve('p/1')).name).toBe(names[0])
    store.flush()
  }
  // One file edited: its ids entry is made from the file; the summaries are not read, so theirs stays the old one.
  const before = entry('tasks/p', names[1] as string)
  await resolveAfterEditing([names[1] as string])
  expect(entry('ids/p', names[1] as string)).toEqual(stampOf(names[1] as string))
  expect(entry('tasks/p', names[1] as string)).toEqual(before)
  // Many edited: the summaries are read once for all of them, and keep the files' new summaries.
  const many = names.slice(2) as string[]
  await resolveAfterEditing(many)
  for (const name of many) {
    expect(entry('ids/p', name), name).toEqual(stampOf(name))
    expect(entry('tasks/p', name), name).toEqual(stampOf(name))
  }
  vi.useRealTimers()
})

test("a task listing served by its items, or missing a few files edited since, never reads the project's summaries; after many, once", async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  const titles = Array.from({ length: 12 }, (_, i) => `Task ${i + 1}`)
  for (const t of titles) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const p = { root: ws.root, dir: path.join(ws.root, '.dacli') }
  const open = path.join(p.dir, 'projects', 'p', 'tasks', 'open')
  const names = fs.readdirSync(open).sort()
  const old = new Date(Date.now() - 3_600_000)
  for (const f of names) fs.utimesSync(path.join(open, f), old, old)
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] }) // settled: the caches keep every file
  const list = async () => {
    const index = cacheIn(p, 'index')
    const items = cacheIn(p, 'items')
    let summariesRead = 0
    const l = await listProjectItems(
      p,
      'p',
      () => items.section('p', 'used'),
      () => {
        summariesRead++
        return index.section('tasks/p', 'all')
      },
      (t) => JSON.stringify(t.title),
    )
    index.save()
    items.save()
    return { titles: l.rows.map((r) => JSON.parse(r.json) as string), summariesRead }
  }
  const edit = (name: string) => {
    const file = path.join(open, name)
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^# .*$/m, '# Edited by hand'))
    fs.utimesSync(file, old, new Date(Date.now() - 30_000)) // settled, by the fake clock
  }
  expect((await list()).summariesRead).toBe(1) // nothing kept: the summaries are read (and filled)
  expect(await list()).toEqual({ titles, summariesRead: 0 })
  // One file edited by hand: its summary is as old as its item, so the file is read, not the summaries.
  edit(names[1] as string)
  expect(await list()).toEqual({ titles: titles.map((t, i) => (i === 1 ? 'Edited by hand' : t)), summariesRead: 0 })
  // Ten more: the summaries are read once for all of them.
  for (const name of names.slice(2)) edit(name)
  expect(await list()).toEqual({
    titles: titles.map((t, i) => (i === 0 ? t : 'Edited by hand')),
    summariesRead: 1,
  })
  vi.useRealTimers()
})

test('a listing after an in-place write of the same invocation reads the file by its new stamp, not the index', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['One', 'Two']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const open = path.join(ws.root, '.dacli', 'projects', 'p', 'tasks', 'open')
  const old = new Date(Date.now() - 3_600_000)
  for (const f of fs.readdirSync(open)) fs.utimesSync(path.join(open, f), old, old)
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] }) // settled: the index keeps both files
  ;(await ws.dacli('task', 'list', '--json')).expectExit(0)
  ;(await ws.dacli('task', 'show', 'p/1', '--json')).expectExit(0)
  const { Store } = await import('./store.js')
  const store = await Store.open(ws.root, baseEnv(), () => new Date(), nodeSystem)
  const two = await store.resolve('p/2') // the ids, and the walk they came from
  await store.editTask(two, 'a-test', (e) => {
    e.body = e.body.replace('# Two', '# Two again')
    return true
  })
  // Same folder, same name: only the walk's stamp for the file (taken after the write) tells the index's entry is old.
  expect((await store.projectListing('p')).tasks.map((t) => [t.title, t.version])).toEqual([
    ['One', 1],
    ['Two again', 2],
  ])
})

test('joining the very same listings again gives the very same listing, frozen; any other part gives a new one', () => {
  const listing = (...ids: string[]): Listing => ({
    tasks: ids.map((id) => ({ id }) as Listing['tasks'][number]),
    broken: [],
    duplicates: [],
  })
  const [p, q, q2] = [listing('a', 'b'), listing('c'), listing('c')]
  const one = joinListings([p, q])
  expect(one.tasks.map((t) => t.id)).toEqual(['a', 'b', 'c'])
  expect(joinListings([p, q])).toBe(one)
  // Equal but not the same part (a project listed again): joined afresh.
  const again = joinListings([p, q2])
  expect(again).not.toBe(one)
  expect(again.tasks.map((t) => t.id)).toEqual(['a', 'b', 'c'])
  // Another count of parts with the same first one is kept beside it, not in its place.
  const alone = joinListings([p])
  expect(joinListings([p])).toBe(alone)
  expect(joinListings([p, q2])).toBe(again)
  // Shared, so never changed: a caller that tries fails.
  expect(() => (one.tasks as unknown[]).push({ id: 'd' })).toThrow(TypeError)
  expect(Object.isFrozen(one.broken) && Object.isFrozen(one.duplicates)).toBe(true)
})

test('a join of listings patched from the last join’s parts is patched from that join; of any other, not', () => {
  const summary = (id: string, title: string) =>
    ({ id, seq: 1, path: `p/${id}.md`, status: 'open', title }) as Listing['tasks'][number]
  const [a, b, c] = [summary('a', 'A'), summary('b', 'B'), summary('c', 'C')]
  const p: Listing = { tasks: [a, b], broken: [], duplicates: [] }
  const q: Listing = { tasks: [c], broken: [], duplicates: [] }
  const kept = (l: Listing): Kept => ({
    listing: l,
    byKey: new Map(l.tasks.map((t) => [`open/${t.id}.md`, t])),
    dirty: new Set(),
    ids: new Set(),
    rescan: false,
    idKeys: null,
  })
  const one = joinListings([p, q])
  // b's file read again (a new title) in the first part, c's in the second.
  const b2 = summary('b', 'B again')
  const c2 = summary('c', 'C again')
  const p2 = patched(kept(p), new Map([['open/b.md', b2]]), false) as Listing
  const q2 = patched(kept(q), new Map([['open/c.md', c2]]), false) as Listing
  expect(p2.tasks).toEqual([a, b2])
  expect(patchOf(p2.tasks)).toEqual({ from: p.tasks, swaps: [[b, b2]] })
  const two = joinListings([p2, q2])
  expect(two.tasks).toEqual([a, b2, c2])
  expect(patchOf(two.tasks)?.from).toBe(one.tasks)
  expect(patchOf(two.tasks)?.swaps).toEqual([
    [b, b2],
    [c, c2],
  ])
  // One part patched, another listed afresh (not patched from the last join's): joined afresh, no patch.
  const p3 = patched(kept(p), new Map([['open/b.md', summary('b', 'B once more')]]), false) as Listing
  expect(patchOf(joinListings([p3, { tasks: [c2], broken: [], duplicates: [] }]).tasks)).toBeUndefined()
  // A file that holds another task now is no patch either.
  expect(patched(kept(p), new Map([['open/b.md', summary('x', 'X')]]), false)).toBeUndefined()
})

test('a listing with nothing kept takes no lstat per file: each stamp comes from the open file, and serves the next listing', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['One', 'Two', 'Three']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const p = { root: ws.root, dir: path.join(ws.root, '.dacli') }
  const open = path.join(p.dir, 'projects', 'p', 'tasks', 'open')
  const old = new Date(Date.now() - 3_600_000)
  for (const f of fs.readdirSync(open)) fs.utimesSync(path.join(open, f), old, old)
  // A link where a task file would be: the folder's listing tells it apart, as the lstat did.
  fs.symlinkSync(path.join(open, '001-one.md'), path.join(open, '004-link.md'))
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] }) // settled: utimes moved the change times
  // Every lstat and open of a task file, seen through node:fs as the store's modules import it (a walk's lstat
  // through the running Node's own, which a store opened in this process lends, is store/lstat.test.ts's).
  useLstatNumbers(null)
  const lstatOfTasks = vi.spyOn(fsDefault, 'lstatSync')
  const openOfTasks = vi.spyOn(fsDefault, 'openSync')
  syncBuiltinESMExports()
  const ofTasks = (calls: unknown[][]) => calls.filter(([f]) => String(f).endsWith('.md')).length
  const taskLstats = () => ofTasks(lstatOfTasks.mock.calls)
  const readCount = () => ofTasks(openOfTasks.mock.calls)
  const lstamp = (name: string) => {
    const st = fs.lstatSync(path.join(open, name))
    return [st.size, Math.trunc(st.mtimeMs), st.ino, Math.trunc(st.ctimeMs)]
  }
  const names = ['001-one.md', '002-two.md', '003-three.md']
  try {
    for (const kind of ['index', 'items', 'criteria'] as const) {
      fs.rmSync(path.join(p.dir, 'cache'), { recursive: true, force: true })
      lstatOfTasks.mockClear()
      const index = cacheIn(p, 'index')
      const summaries = () => index.section<unknown[]>('tasks/p', 'used')
      let broken: readonly { path: string; code?: string }[]
      let walk: { stamps: number[] } | null = null
      const items = cacheIn(p, 'items')
      if (kind === 'index') {
        const l = await listProject(p, 'p', summaries)
        expect(l.tasks.map((t) => t.title)).toEqual(['One', 'Two', 'Three'])
        broken = l.broken
      } else if (kind === 'criteria') {
        const l = await listCriteria(p, 'p', summaries(), index.section<string[]>('criteria/p', 'used'))
        expect(l.tasks.map((t) => t.title)).toEqual(['One', 'Two', 'Three'])
        broken = l.broken
      } else {
        const l = await listProjectItems(
          p,
          'p',
          () => items.section('p', 'used'),
          summaries,
          (t) => JSON.stringify(t.title),
        )
        expect(l.rows.map((r) => r.json)).toEqual(['"One"', '"Two"', '"Three"'])
        broken = l.broken
        expect(taskLstats()).toBe(0)
        const fresh = cacheIn(p, 'index')
        walk = (
          await listIds(
            p,
            'p',
            () => fresh.section('ids/p', 'used'),
            () => fresh.section('tasks/p', 'used'),
          )
        ).walk
      }
      expect(broken.map((b) => [b.path, b.code])).toEqual([
        ['.dacli/projects/p/tasks/open/004-link.md', 'symlink-in-workspace'],
      ])
      expect(taskLstats()).toBe(0)
      // The walk holds the stamps its reads took, for what the invocation does next.
      if (walk !== null)
        expect(walk.stamps).toEqual(
          names
            .flatMap((n) => fs.lstatSync(path.join(open, n)))
            .flatMap((st) => [st.size, st.mtimeMs, st.ino, st.ctimeMs]),
        )
      index.save()
      items.save()
      const kept = fs
        .readFileSync(cachePath(p.dir, 'index'), 'utf8')
        .split('\n')
        .find((l) => l.startsWith('tasks/p\t'))
      const entries = decodeSection((kept as string).slice('tasks/p\t'.length))
      for (const n of names) expect(entries[`open/${n}`]?.[0]).toEqual(lstamp(n))
      // The next listing checks each file's stamp against those entries and parses none.
      lstatOfTasks.mockClear()
      const again = cacheIn(p, 'index')
      const before = readCount()
      const l = await listProject(p, 'p', () => again.section<unknown[]>('tasks/p', 'used'))
      expect(l.tasks.map((t) => t.title)).toEqual(['One', 'Two', 'Three'])
      expect(taskLstats()).toBe(4)
      expect(readCount()).toBe(before)
    }
  } finally {
    lstatOfTasks.mockRestore()
    openOfTasks.mockRestore()
    syncBuiltinESMExports()
  }
})
