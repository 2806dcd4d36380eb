// One long-lived store per workspace (live.ts): the calls of a server share its memory of the task listings, and
// every change is seen — another process's through the change journal at the very next call, a hand edit through
// the watch of the task folders.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { services } from '../../cmd/services.js'
import { stamp, type TaskSummary } from '../format/model.js'
import { baseEnv, workspace } from '../testkit/ws.js'
import { appendChange, type ChangeEntry } from './journal.js'
import { type ChangeSource, LiveWorkspace } from './live.js'

const now = () => new Date()

/** Wait until `f()` holds (the watch delivers within milliseconds; a busy machine gets a few seconds). */
async function eventually(f: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await f())) {
    if (Date.now() > end) throw new Error('not seen in time')
    await new Promise((r) => setTimeout(r, 20))
  }
}

test('the calls of a server share one listing; another process’s edit is seen at the next call, a hand edit soon after', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('project', 'add', 'Q', '--slug', 'q')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Alpha', '--project', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Beta', '--project', 'q')).expectExit(0)
  const shared = services.sharedStore?.()
  if (shared === undefined) throw new Error('services.sharedStore is wired in the cli layer')
  try {
    const titles = async (project: string) =>
      (await (await shared.open(ws.root, baseEnv(), now)).listTasks(project)).tasks.map((t) => t.title)
    const first = await (await shared.open(ws.root, baseEnv(), now)).listTasks('p')
    // The next call's store serves the same listing (the very same summaries), listing nothing again.
    const second = await (await shared.open(ws.root, baseEnv(), now)).listTasks('p')
    expect(second.tasks[0]).toBe(first.tasks[0])

    // Another process edits: the journal names the project, so the very next call lists it again.
    ws.spawn(['task', 'edit', 'p/1', '--title', 'Alpha edited']).expectExit(0)
    expect(await titles('p')).toEqual(['Alpha edited'])
    // The other project's listing was not touched by it.
    const q1 = await (await shared.open(ws.root, baseEnv(), now)).listTasks('q')
    ws.spawn(['task', 'edit', 'p/1', '--title', 'Alpha again']).expectExit(0)
    expect((await (await shared.open(ws.root, baseEnv(), now)).listTasks('q')).tasks[0]).toBe(q1.tasks[0])

    // A hand edit in place (no journal line) is seen through the watch.
    const file = path.join(ws.root, '.dacli/projects/q/tasks/open/001-beta.md')
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('# Beta', '# Gamma'))
    await eventually(async () => (await titles('q'))[0] === 'Gamma')
    // A task file made by hand in a new status folder: the folder is watched from the next scan on, and until then
    // nothing of that project is kept.
    const blocked = path.join(ws.root, '.dacli/projects/q/tasks/blocked')
    fs.mkdirSync(blocked)
    fs.renameSync(file, path.join(blocked, '001-beta.md'))
    await eventually(async () => {
      const s = await shared.open(ws.root, baseEnv(), now)
      return (await s.listTasks('q')).tasks[0]?.status === 'blocked'
    })
  } finally {
    shared.release()
  }
})

test('a journal made or sealed since the last call is read on: only the project a line names is listed again', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('project', 'add', 'Q', '--slug', 'q')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Alpha', '--project', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Beta', '--project', 'q')).expectExit(0)
  // The journal is local state, never committed: a clone starts without one.
  const journal = path.join(ws.root, '.dacli', 'journal')
  fs.rmSync(journal, { recursive: true })
  const shared = services.sharedStore?.()
  if (shared === undefined) throw new Error('services.sharedStore is wired in the cli layer')
  try {
    const list = async (project: string) =>
      (await (await shared.open(ws.root, baseEnv(), now)).listTasks(project)).tasks
    const first = await list('p')
    const q = (await list('q'))[0]
    expect((await list('p'))[0]).toBe(first[0])
    // Another process's edit makes the journal: the very next call sees the change, and keeps the other project.
    ws.spawn(['task', 'edit', 'p/1', '--title', 'Alpha edited']).expectExit(0)
    expect(fs.existsSync(journal)).toBe(true)
    expect((await list('p')).map((t) => t.title)).toEqual(['Alpha edited'])
    expect((await list('q'))[0]).toBe(q)
    // An edit whose line seals the segment (a new current file): read on from the sealed one, the same way.
    ws.spawn(['task', 'edit', 'p/1', '--title', 'Alpha sealed'], {
      env: { DACLI_JOURNAL_SEGMENT_BYTES: '100' },
    }).expectExit(0)
    expect(fs.existsSync(path.join(journal, 'changes-0.jsonl'))).toBe(true)
    expect((await list('p')).map((t) => t.title)).toEqual(['Alpha sealed'])
    expect((await list('q'))[0]).toBe(q)
    // A journal deleted since: anything may have changed, so nothing kept is served.
    fs.rmSync(journal, { recursive: true })
    expect((await list('q'))[0]).not.toBe(q)
  } finally {
    shared.release()
  }
})

test('without a watch that vouches for every folder, nothing is kept across calls', () => {
  const dir = '/nonexistent/.dacli'
  const listing = { tasks: [], broken: [], duplicates: [] }
  const source = (healthy: boolean, covers: boolean): ChangeSource => ({
    healthy,
    covers: () => covers,
    subscribe: () => () => {},
  })
  for (const [healthy, covers, kept] of [
    [false, true, false],
    [true, false, false],
    [true, true, true],
  ] as const) {
    const live = new LiveWorkspace(dir, source(healthy, covers))
    live.keep('p', listing, live.mark('p'))
    expect(live.listing('p') !== undefined).toBe(kept)
  }
  // A change that reached the project while it was being listed: the listing made before it is not kept.
  const live = new LiveWorkspace(dir, source(true, true))
  const mark = live.mark('p')
  live.forget('p')
  live.keep('p', listing, mark)
  expect(live.listing('p')).toBeUndefined()
  // No source at all (a plain command): nothing kept.
  const none = new LiveWorkspace(dir, null)
  none.keep('p', listing, none.mark('p'))
  expect(none.listing('p')).toBeUndefined()
})

test('events served from the memory of parsed events are deduplicated by id like a fresh listing', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Alpha', '--project', 'p')).expectExit(0)
  ;(await ws.dacli('ask', 'Which ledger?', '--about', 'p/1')).expectExit(0)
  const events = path.join(ws.root, '.dacli', 'events')
  const files: string[] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }))
      e.isDirectory() ? walk(path.join(d, e.name)) : files.push(path.join(d, e.name))
  }
  walk(events)
  expect(files).toHaveLength(1)
  const copy = path.join(events, '2020', '01', '01', path.basename(files[0] as string))
  fs.mkdirSync(path.dirname(copy), { recursive: true })
  fs.copyFileSync(files[0] as string, copy)
  // Settled past the racy window, so the first listing keeps what it parsed and the second is served from memory.
  await new Promise((r) => setTimeout(r, 3_100))
  const { listEvents } = await import('./events.js')
  for (let i = 0; i < 2; i++) {
    const store = await services.store(ws.root, baseEnv(), now)
    const l = await listEvents(store)
    expect(l.events).toHaveLength(1)
    expect(l.broken.map((b) => b.code)).toEqual(['duplicate-event'])
  }
})

test('a journal line says a task changed in its file: only that file is read again, unless it is gone or holds another task now', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['Alpha', 'Bravo', 'Charlie']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const dir = path.join(ws.root, '.dacli')
  // A watch that vouches for every folder but has not delivered anything yet (its events still in flight): only the
  // journal tells what changed.
  const deaf: ChangeSource = { healthy: true, covers: () => true, subscribe: () => () => {} }
  const live = new LiveWorkspace(dir, deaf)
  const { nodeSystem } = await import('../../cmd/system.js')
  const { Store } = await import('./store.js')
  const open = () => Store.open(ws.root, baseEnv(), now, nodeSystem, () => live)
  const listed = async () => (await (await open()).listTasks('p')).tasks
  const first = await listed()
  expect(first.map((t) => t.title)).toEqual(['Alpha', 'Bravo', 'Charlie'])
  const [alpha, bravo, charlie] = first as [TaskSummary, TaskSummary, TaskSummary]
  const line = (id: string, kind: ChangeEntry['kind'] = 'task.changed') =>
    appendChange(dir, { at: stamp(new Date()), kind, ref: null, id, project: 'p', actor: null, summary: 'x' })

  // Another process's edit (its line names the task, no move): the new title, the other summaries the same objects.
  ws.spawn(['task', 'edit', 'p/2', '--title', 'Bravo edited']).expectExit(0)
  const second = await listed()
  expect(second.map((t) => t.title)).toEqual(['Alpha', 'Bravo edited', 'Charlie'])
  expect(second[0]).toBe(alpha)
  expect(second[2]).toBe(charlie)
  expect(second[1]).not.toBe(bravo)

  // Renamed by hand (a git checkout does as much) and a line saying it changed in place: its file is gone, so the
  // folders are listed again and the task is found under its new name, by the listing and by a reference.
  const open1 = path.join(dir, 'projects/p/tasks/open')
  const alphaText = fs.readFileSync(path.join(open1, '001-alpha.md'), 'utf8')
  fs.writeFileSync(path.join(open1, '001-first.md'), alphaText.replace(/Alpha/g, 'First'))
  fs.rmSync(path.join(open1, '001-alpha.md'))
  line(alpha.id)
  const third = await listed()
  expect(third.map((t) => `${t.title} ${path.basename(t.path)}`)).toEqual([
    'First 001-first.md',
    'Bravo edited 002-bravo.md',
    'Charlie 003-charlie.md',
  ])
  expect((await (await open()).resolve('p/1')).name).toBe('001-first.md')
  expect((await (await open()).readTask('p/first')).title).toBe('First')

  // A line about a task the kept listing does not hold (made by hand since): found by listing the folders.
  const made = alphaText.replace(alpha.id, 't-01KDW0000000000000000000ZZ').replace(/Alpha/g, 'Delta')
  fs.writeFileSync(path.join(open1, '004-delta.md'), made)
  line('t-01KDW0000000000000000000ZZ')
  expect((await listed()).map((t) => t.title)).toEqual(['First', 'Bravo edited', 'Charlie', 'Delta'])
  expect((await (await open()).readTask('p/4')).title).toBe('Delta')

  // One file now holding another task under the same name (swapped by hand), a line naming the task that left it.
  const charlieFile = path.join(open1, '003-charlie.md')
  const charlieText = fs.readFileSync(charlieFile, 'utf8')
  fs.writeFileSync(path.join(open1, '005-charlie.md'), charlieText.replace(/^seq: 3$/m, 'seq: 5'))
  fs.writeFileSync(
    charlieFile,
    made.replace('t-01KDW0000000000000000000ZZ', 't-01KDW0000000000000000000YY').replace(/Delta/g, 'Echo'),
  )
  line(charlie.id)
  const fifth = await listed()
  expect(fifth.map((t) => `${t.title} ${path.basename(t.path)}`)).toEqual([
    'First 001-first.md',
    'Bravo edited 002-bravo.md',
    'Echo 003-charlie.md',
    'Delta 004-delta.md',
    'Charlie 005-charlie.md',
  ])
})

test('a write a server’s call makes is seen by the rest of that call: the projects’ listing kept before it is dropped', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Alpha', '--project', 'p')).expectExit(0)
  const dir = path.join(ws.root, '.dacli')
  // A watch that vouches for every folder and never delivers: only the journal tells what changed.
  const deaf: ChangeSource = { healthy: true, covers: () => true, watches: () => true, subscribe: () => () => {} }
  const live = new LiveWorkspace(dir, deaf)
  const { nodeSystem } = await import('../../cmd/system.js')
  const { Store } = await import('./store.js')
  const { editProject } = await import('../domain/project/edit.js')
  const store = await Store.open(ws.root, baseEnv(), now, nodeSystem, () => live)
  const first = (await store.listProjects()).projects
  expect(first.map((p) => p.title)).toEqual(['P'])
  // Kept: the very same record again, for the listing and for one project.
  expect((await store.listProjects()).projects[0]).toBe(first[0])
  expect(await store.readProject('p')).toBe(first[0])
  // The call edits the project (journalled): what it reads next is the file's.
  const r = await editProject(store, 'p', null, (e) => {
    e.body = e.body.replace(/^# P$/m, '# Payments')
    return true
  })
  expect(r.changed).toBe(true)
  expect((await store.listProjects()).projects.map((p) => p.title)).toEqual(['Payments'])
  expect((await store.readProject('p')).title).toBe('Payments')
})
