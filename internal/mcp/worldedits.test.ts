// The server's answer right after a change made outside it (by hand, a checkout, a restore), against a fresh CLI
// process's for the same files: what the world does to the task folders, not what dacli does.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { callerOf, servedOverStdio } from '../testkit/mcp.js'
import { type Workspace, workspace } from '../testkit/ws.js'

const rows = (doc: any) => doc.tasks.map((t: any) => `${t.path} ${t.id.slice(-4)} ${t.status} ${t.title}`)

/** The CLI's task list, in a fresh process. */
const cliList = (ws: Workspace, ...args: string[]) =>
  rows(ws.spawn(['task', 'list', '--json', ...args]).expectExit(0).json)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

test('a hand copy of a task under another name in the same status folder: the server lists the copy the CLI lists', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  const open = path.join(ws.root, '.dacli/projects/p/tasks/open')
  for (const t of ['Alpha', 'Bravo', 'Charlie']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const client = await servedOverStdio(ws.root, 'world-dup-same-folder')
  const call = callerOf(client)
  const list = async () => rows(await call('list_tasks', { project: 'p' }))
  try {
    await sleep(300)
    for (let i = 0; i < 2; i++) expect(await list()).toEqual(cliList(ws, '--project', 'p'))
    // A copy of Bravo (002) by hand under a name that sorts before the original's (a listing walks names in order).
    fs.copyFileSync(path.join(open, '002-bravo.md'), path.join(open, '001-bravo.md'))
    await sleep(100)
    const served = await list()
    const fresh = cliList(ws, '--project', 'p')
    expect(served).toEqual(fresh)
  } finally {
    await client.close()
  }
}, 30_000)

test('a status folder removed and made again by hand, then a task moved into it: the next call at once sees it', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['Alpha', 'Bravo']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const tasks = path.join(ws.root, '.dacli/projects/p/tasks')
  fs.mkdirSync(path.join(tasks, 'blocked'))
  const client = await servedOverStdio(ws.root, 'world-folder-again')
  const call = callerOf(client)
  const list = async () => rows(await call('list_tasks', { project: 'p' }))
  try {
    await sleep(300)
    for (let i = 0; i < 2; i++) expect(await list()).toEqual(cliList(ws, '--project', 'p'))
    // As a checkout may: the folder goes and comes back (another folder, under the same name).
    fs.rmdirSync(path.join(tasks, 'blocked'))
    fs.mkdirSync(path.join(tasks, 'blocked'))
    await list()
    // Then a task file moved into it by hand.
    fs.renameSync(path.join(tasks, 'open/002-bravo.md'), path.join(tasks, 'blocked/002-bravo.md'))
    const served = await list()
    // Before the watch's next look at the folders (40 ms after a folder-level change) on a machine of usual speed.
    expect(served).toEqual(cliList(ws, '--project', 'p'))
  } finally {
    await client.close()
  }
}, 30_000)

test('a project folder made by hand, its project file written a moment later: the next status lists it', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Alpha', '--project', 'p')).expectExit(0)
  const projects = path.join(ws.root, '.dacli/projects')
  const client = await servedOverStdio(ws.root, 'world-project-made')
  const call = callerOf(client)
  const slugs = async () => (await call('status', {})).projects.map((p: { slug: string }) => p.slug)
  const cli = () =>
    ws
      .spawn(['status', '--json'])
      .expectExit(0)
      .json.projects.map((p: { slug: string }) => p.slug)
  try {
    await sleep(300)
    for (let i = 0; i < 2; i++) expect(await slugs()).toEqual(cli())
    const text = fs.readFileSync(path.join(projects, 'p/project.md'), 'utf8')
    // As a checkout or an unpacked archive writes a folder: the folder first, its file next.
    fs.mkdirSync(path.join(projects, 'q'))
    await slugs()
    fs.writeFileSync(path.join(projects, 'q/project.md'), text.replace('id: p-p', 'id: p-q').replace('# P', '# Q'))
    const served = await slugs()
    expect(served).toEqual(cli())
  } finally {
    await client.close()
  }
}, 30_000)

test('a status folder removed and made again by hand (the same inode number): a task moved into it seconds later is seen', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['Alpha', 'Bravo']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const tasks = path.join(ws.root, '.dacli/projects/p/tasks')
  const blocked = path.join(tasks, 'blocked')
  fs.mkdirSync(blocked)
  const client = await servedOverStdio(ws.root, 'world-folder-same-inode')
  const call = callerOf(client)
  const list = async () => rows(await call('list_tasks', { project: 'p' }))
  try {
    await sleep(300)
    for (let i = 0; i < 2; i++) expect(await list()).toEqual(cliList(ws, '--project', 'p'))
    // The folder goes and comes back; the file system hands the new folder the old one's inode number (usual on ext4).
    let same = false
    for (let i = 0; i < 20 && !same; i++) {
      // Another inode number is watched anew by the next rescan (within 40 ms): wait for it, then try again.
      if (i > 0) await sleep(150)
      const ino = fs.statSync(blocked).ino
      fs.rmdirSync(blocked)
      fs.mkdirSync(blocked)
      same = fs.statSync(blocked).ino === ino
    }
    expect(same).toBe(true)
    // Long after: every rescan of the folders has run since.
    await sleep(2_500)
    expect(await list()).toEqual(cliList(ws, '--project', 'p'))
    fs.renameSync(path.join(tasks, 'open/002-bravo.md'), path.join(blocked, '002-bravo.md'))
    const served = [await list()]
    const fresh = cliList(ws, '--project', 'p')
    // And seconds later still (a rescan compares the folder's inode number only).
    await sleep(2_500)
    served.push(await list())
    expect(served).toEqual([fresh, fresh])
  } finally {
    await client.close()
  }
}, 30_000)

test('a sweep of hand changes: after each, list, next and status as a fresh CLI answers', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('project', 'add', 'Q', '--slug', 'q')).expectExit(0)
  const add = (p: string, t: string, ...more: string[]) => ws.dacli('task', 'add', t, '--project', p, ...more)
  ;(await add('q', 'Upstream', '--estimate', '1,1,1')).expectExit(0)
  ;(await add('p', 'Alpha', '--estimate', '1,2,3', '--priority', 'should')).expectExit(0)
  ;(await add('p', 'Bravo', '--estimate', '2,2,2', '--depends-on', 'p/1')).expectExit(0)
  ;(await add('p', 'Charlie', '--estimate', '1,1,1', '--priority', 'could')).expectExit(0)
  ;(await add('p', 'Delta', '--estimate', '3,3,3', '--depends-on', 'p/3')).expectExit(0)
  const client = await servedOverStdio(ws.root, 'world-sweep')
  const call = callerOf(client)
  const dir = path.join(ws.root, '.dacli/projects')
  const f = (rel: string) => path.join(dir, rel)
  const edit = (rel: string, fn: (s: string) => string) => fs.writeFileSync(f(rel), fn(fs.readFileSync(f(rel), 'utf8')))
  const nextOf = (d: any) => ({
    ready: d.ready.map((t: any) => `${t.ref} ${t.slack} ${t.critical}`),
    waiting: d.waiting.map((t: any) => t.ref),
  })
  const statusOf = (d: any) => ({
    projects: d.projects.map((p: any) => `${p.slug} ${JSON.stringify(p.counts)}`),
    skipped: d.skipped.map((b: any) => `${b.code} ${b.path}`).sort(),
  })
  const served = async () => ({
    list: rows(await call('list_tasks', {})),
    next: nextOf(await call('next_tasks', {})),
    nextP: nextOf(await call('next_tasks', { project: 'p' })),
    status: statusOf(await call('status', {})),
  })
  const fresh = () => ({
    list: cliList(ws),
    next: nextOf(ws.spawn(['next', '--json']).expectExit(0).json),
    nextP: nextOf(ws.spawn(['next', '--json', '--project', 'p']).expectExit(0).json),
    status: statusOf(ws.spawn(['status', '--json']).expectExit(0).json),
  })
  const steps: [string, () => void][] = [
    ['priority', () => edit('p/tasks/open/003-charlie.md', (s) => s.replace('priority: could', 'priority: must'))],
    [
      'estimate',
      () =>
        edit('p/tasks/open/001-alpha.md', (s) =>
          s.replace(/estimate: .*$/m, 'estimate: {optimistic: 9, probable: 9, pessimistic: 9}'),
        ),
    ],
    [
      'depends on another project',
      () => {
        const up = fs.readFileSync(f('q/tasks/open/001-upstream.md'), 'utf8').match(/^id: (.*)$/m)?.[1] as string
        edit('p/tasks/open/003-charlie.md', (s) =>
          s.replace(/^version: (\d+)$/m, `version: $1\ndepends_on:\n  - on: ${up}\n    type: FS`),
        )
      },
    ],
    [
      'dependency removed',
      () => edit('p/tasks/open/002-bravo.md', (s) => s.replace(/^depends_on:\n(?: {2}.*\n)+/m, '')),
    ],
    [
      'moved to done',
      () => {
        fs.mkdirSync(f('p/tasks/done'), { recursive: true })
        fs.renameSync(f('p/tasks/open/001-alpha.md'), f('p/tasks/done/001-alpha.md'))
      },
    ],
    [
      'copied into blocked',
      () => {
        fs.mkdirSync(f('p/tasks/blocked'), { recursive: true })
        fs.copyFileSync(f('p/tasks/open/002-bravo.md'), f('p/tasks/blocked/002-bravo.md'))
      },
    ],
    ['copy removed', () => fs.rmSync(f('p/tasks/blocked/002-bravo.md'))],
    ['id changed', () => edit('p/tasks/open/003-charlie.md', (s) => s.replace(/^id: (t-.*).$/m, 'id: $1Z'))],
    ['removed', () => fs.rmSync(f('p/tasks/open/004-delta.md'))],
    [
      'made by hand',
      () =>
        fs.writeFileSync(
          f('p/tasks/open/005-echo.md'),
          fs
            .readFileSync(f('p/tasks/open/002-bravo.md'), 'utf8')
            .replace(/^id: (t-.*).$/m, 'id: $1Y')
            .replace(/Bravo/g, 'Echo'),
        ),
    ],
  ]
  try {
    await sleep(300)
    for (let i = 0; i < 2; i++) expect(await served()).toEqual(fresh())
    for (const [name, step] of steps) {
      step()
      const s = await served()
      const want = { name, ...fresh() }
      expect({ name, ...s }).toEqual(want)
      expect({ name, ...(await served()) }).toEqual(want)
    }
  } finally {
    await client.close()
  }
}, 60_000)

test('projects/ moved aside and a copy put in its place by hand (a restore): the next call lists the copy', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['Alpha', 'Bravo']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const projects = path.join(ws.root, '.dacli/projects')
  const client = await servedOverStdio(ws.root, 'world-projects-replaced')
  const call = callerOf(client)
  const list = async () => rows(await call('list_tasks', { project: 'p' }))
  try {
    await sleep(300)
    for (let i = 0; i < 2; i++) expect(await list()).toEqual(cliList(ws, '--project', 'p'))
    const aside = path.join(ws.root, '.dacli/projects-old')
    fs.renameSync(projects, aside)
    fs.cpSync(aside, projects, { recursive: true })
    const bravo = path.join(projects, 'p/tasks/open/002-bravo.md')
    fs.writeFileSync(bravo, fs.readFileSync(bravo, 'utf8').replace(/Bravo/g, 'Restored'))
    const served = await list()
    expect(served).toEqual(cliList(ws, '--project', 'p'))
  } finally {
    await client.close()
  }
}, 30_000)

test('a task file made and removed by hand between two calls while another is edited in place: later calls still answer', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['Alpha', 'Bravo', 'Charlie']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const open = path.join(ws.root, '.dacli/projects/p/tasks/open')
  const client = await servedOverStdio(ws.root, 'world-made-and-gone')
  const call = callerOf(client)
  const list = async () => rows(await call('list_tasks', { project: 'p' }))
  try {
    await sleep(300)
    for (let i = 0; i < 2; i++) expect(await list()).toEqual(cliList(ws, '--project', 'p'))
    // Between two calls: a file made and removed again (a scratch copy), and Bravo edited in place.
    const scratch = path.join(open, '009-scratch.md')
    fs.copyFileSync(path.join(open, '001-alpha.md'), scratch)
    fs.rmSync(scratch)
    const bravo = path.join(open, '002-bravo.md')
    fs.writeFileSync(bravo, fs.readFileSync(bravo, 'utf8').replace(/Bravo/g, 'Bravo edited'))
    expect(await list()).toEqual(cliList(ws, '--project', 'p'))
    // Then Charlie removed by hand: the listing is made again from what the memory kept.
    fs.rmSync(path.join(open, '003-charlie.md'))
    const fresh = cliList(ws, '--project', 'p')
    const served = [await list().catch((e: Error) => e.message), await list().catch((e: Error) => e.message)]
    expect(served).toEqual([fresh, fresh])
  } finally {
    await client.close()
  }
}, 30_000)
