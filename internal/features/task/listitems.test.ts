// `task list --json` prints each task's item as kept in `cache/items` beside its file's stamp (store/taskindex.ts,
// listProjectItems). These tests hold it to the document computed from the summaries (what a filtered list, the
// MCP server and every other reader build), cold, warm and after the world changed the files behind it.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, test, vi } from 'vitest'
import { nodeSystem } from '../../../cmd/system.js'
import { Store } from '../../store/store.js'
import { baseEnv, workspace } from '../../testkit/ws.js'
import { listItem } from '../shared/taskdoc.js'

afterEach(() => {
  vi.useRealTimers()
})

/** Every task file's times put a minute back, and the clock a minute on: nothing is racily fresh. */
function settle(root: string) {
  const then = new Date(Date.now() - 60_000)
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const f = path.join(d, e.name)
      if (e.isDirectory()) walk(f)
      else if (f.endsWith('.md')) fs.utimesSync(f, then, then)
    }
  }
  walk(path.join(root, '.dacli', 'projects'))
  vi.useRealTimers()
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] })
}

/** The task list as the summaries give it (the path every filtered listing takes). */
async function fromSummaries(root: string) {
  const store = await Store.open(root, baseEnv(), () => new Date(), nodeSystem)
  const l = await store.listTasks()
  return l.tasks.map((t) => JSON.parse(JSON.stringify(listItem(t))))
}

test('the kept items give the document the summaries give: cold, warm, after hand edits, moves and copies', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('project', 'add', 'Audit', '--slug', 'audit')
  await ws.ok('task', 'add', 'Plain one', '--project', 'ledger')
  await ws.ok(
    'task',
    'add',
    'Every field "quoted" \\ and ünïcode',
    '--project',
    'ledger',
    '--priority',
    'must',
    '--estimate',
    '1,2,6',
    '--label',
    'backend',
    '--label',
    'urgent',
    '--milestone',
    'v2',
    '--accept',
    'first',
    '--accept',
    'second',
  )
  await ws.ok('task', 'add', 'Claimed', '--project', 'ledger')
  await ws.ok('task', 'claim', 'ledger/3')
  await ws.ok('task', 'add', 'Elsewhere', '--project', 'audit', '--depends-on', 'ledger/2')
  await ws.ok('task', 'add', 'Finished', '--project', 'audit')
  await ws.ok('task', 'done', 'audit/2', '--allow-unverified')
  const list = async () => JSON.parse((await ws.ok('task', 'list', '--json')).stdout)
  settle(ws.root)
  const items = path.join(ws.root, '.dacli', 'cache', 'items')
  const cold = await list()
  expect(fs.existsSync(items)).toBe(true) // every settled file's item kept
  expect(cold.tasks.length).toBe(5)
  expect(cold.tasks).toEqual(await fromSummaries(ws.root))
  const written = fs.statSync(items).mtimeMs
  const warm = await list()
  expect(warm).toEqual(cold)
  expect(fs.statSync(items).mtimeMs).toBe(written) // served from the kept items, nothing new to write

  // The world changes the files: a title edited in place by an editor, a file moved between status folders by
  // hand (as git would), a file removed, a new file copied in.
  const dir = path.join(ws.root, '.dacli', 'projects', 'ledger', 'tasks')
  const plain = path.join(dir, 'open', '001-plain-one.md')
  fs.writeFileSync(plain, fs.readFileSync(plain, 'utf8').replace('# Plain one', '# Plain one, edited by hand'))
  const second = fs.readdirSync(path.join(dir, 'open')).find((n) => n.startsWith('002-')) as string
  fs.mkdirSync(path.join(dir, 'blocked'), { recursive: true })
  fs.renameSync(path.join(dir, 'open', second), path.join(dir, 'blocked', second))
  fs.rmSync(path.join(ws.root, '.dacli', 'projects', 'audit', 'tasks', 'done', '002-finished.md'))
  const copied = fs
    .readFileSync(plain, 'utf8')
    .replace(/^id: .*$/m, 'id: t-01KZZZZZZZZZZZZZZZZZZZZZZZ')
    .replace('# Plain one, edited by hand', '# Copied in')
  fs.writeFileSync(path.join(dir, 'open', '009-copied-in.md'), copied)
  for (const when of ['racily fresh', 'settled']) {
    if (when === 'settled') settle(ws.root)
    const after = await list()
    expect(after.tasks, when).toEqual(await fromSummaries(ws.root))
    const titles = after.tasks.map(
      (t: { ref: string; title: string; status: string }) => `${t.ref} ${t.status} ${t.title}`,
    )
    expect(titles, when).toEqual([
      'audit/001-elsewhere open Elsewhere',
      'ledger/001-plain-one open Plain one, edited by hand',
      `ledger/${second.slice(0, -3)} blocked Every field "quoted" \\ and ünïcode`,
      'ledger/003-claimed active Claimed',
      'ledger/009-copied-in open Copied in',
    ])
  }
  // Deleting the caches changes nothing but speed.
  const before = await list()
  fs.rmSync(path.join(ws.root, '.dacli', 'cache'), { recursive: true, force: true })
  expect(await list()).toEqual(before)
})

test('two copies of one task: the kept items choose the copy the summaries choose, and say so', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'P', '--slug', 'p')
  await ws.ok('task', 'add', 'Moved', '--project', 'p')
  await ws.ok('task', 'edit', 'p/1', '--title', 'Moved, newer')
  // An interrupted move: the older copy (version 1) left in open/, the newer one in active/.
  const open = path.join(ws.root, '.dacli', 'projects', 'p', 'tasks', 'open', '001-moved.md')
  const text = fs.readFileSync(open, 'utf8')
  fs.mkdirSync(path.join(path.dirname(open), '..', 'active'), { recursive: true })
  fs.writeFileSync(path.join(path.dirname(open), '..', 'active', '001-moved.md'), text)
  fs.writeFileSync(open, text.replace(/^version: \d+$/m, 'version: 1').replace('# Moved, newer', '# Moved'))
  settle(ws.root)
  for (const pass of ['cold', 'warm']) {
    const r = await ws.ok('task', 'list', '--json')
    const doc = JSON.parse(r.stdout)
    expect(doc.tasks, pass).toEqual(await fromSummaries(ws.root))
    expect(doc.tasks.map((t: { status: string; title: string }) => `${t.status} ${t.title}`)).toEqual([
      'active Moved, newer',
    ])
    expect(doc.skipped.map((s: { code: string; path: string }) => `${s.code} ${s.path}`)).toEqual([
      'interrupted-move .dacli/projects/p/tasks/open/001-moved.md',
    ])
  }
})
