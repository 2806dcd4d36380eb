// The search index only ever saves time: a search by another process, right after a file changed behind the
// index's back (edited in place by hand, by another process, deleted, added by a copy), or after the index was
// damaged or deleted, answers exactly what the cacheless search (every object listed and ranked from its text)
// answers. The index is primed by an in-process search on a clock a minute on (a file changed within the last
// seconds is never indexed); each search checked is the built bin, run as its own process.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest'
import { nodeSystem } from '../../../cmd/system.js'
import { cacheKey } from '../../store/cachekey.js'
import { testTrust } from '../../testkit/cachetrust.js'
import { baseEnv, type Workspace, workspace } from '../../testkit/ws.js'
import { searchCacheless } from './cacheless.js'
import type { SearchRequest } from './entries.js'
import { CorruptIndex, IndexReader, keyedCode } from './indexfile.js'
import { NOTE_FOLDERS } from './searchindex.js'

let ws: Workspace
const indexFile = () => path.join(ws.root, '.dacli', 'cache', 'search')
/** The codes the workspace's commands write and check its index with (under the clone's cache key). */
const codeOf = () =>
  keyedCode(cacheKey({ git: { commonDir: path.join(ws.root, '.git') }, config: { id: '' }, env: {} }) as Buffer)

afterEach(() => {
  vi.useRealTimers()
})

beforeAll(async () => {
  ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('project', 'add', 'Web', '--slug', 'web')
  await ws.ok('task', 'add', 'Rounding of refunds', '--project', 'ledger', '--accept', 'refunds round half even')
  await ws.ok('task', 'add', 'Refunds', '--project', 'ledger', '--accept', 'listed', '--force')
  await ws.ok('task', 'add', 'Export report', '--project', 'ledger', '--context', 'Refunds per month.', '--accept', 'x')
  await ws.ok('task', 'add', 'Login page', '--project', 'web', '--accept', 'works', '--label', 'security')
  await ws.ok(
    'note',
    'add',
    'decision',
    'Refunds as negative entries',
    '--project',
    'ledger',
    '--chose',
    'negative',
    '--rejected',
    'a table',
    '--because',
    'one sum',
  )
  await ws.ok('note', 'add', 'finding', 'Login is slow', '--project', 'web')
  await ws.ok('risk', 'add', 'Refunds drift', '--project', 'ledger', '--impact', 'high', '--likelihood', 'medium')
  await ws.ok('ask', 'Should partial refunds keep the tax rate?', '--about', 'ledger/1')
})

/** Search in-process on a clock a minute on, so that every file has settled and the index keeps them all. */
async function prime(): Promise<void> {
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] })
  await ws.ok('search', 'prime')
  vi.useRealTimers()
  expect(fs.existsSync(indexFile())).toBe(true)
}

/** The built bin's search, as its own process (the JSON, the warnings). */
function searched(...args: string[]): { doc: Record<string, unknown>; stderr: string } {
  const run = ws.spawn(['search', ...args, '--json'])
  run.expectExit(0)
  return { doc: run.json, stderr: run.stderr }
}

/** What the search without any index answers, as the document's results, total and skips. */
async function cacheless(query: string, over: Partial<SearchRequest> = {}) {
  const { Store } = await import('../../store/store.js')
  const store = await Store.open(ws.root, baseEnv(), () => new Date(), nodeSystem)
  const a = await searchCacheless(store, { query, kind: null, statuses: [], labels: [], limit: 20, ...over })
  return {
    total: a.total,
    results: a.hits.map((h) => ({ ...h.item, score: h.score, field: h.field, snippet: h.snippet })),
    skipped: a.skipped,
  }
}

/** The spawned search's answer in the same terms. */
function answer(doc: Record<string, unknown>) {
  const results = (doc.results as Record<string, unknown>[]).map(({ command: _, ...r }) => r)
  return { total: doc.total, results, skipped: doc.skipped }
}

async function expectHonest(query: string, flags: string[] = [], over: Partial<SearchRequest> = {}) {
  const got = answer(searched(query, ...flags).doc)
  expect(got).toEqual(await cacheless(query, over))
  return got
}

const taskFile = (project: string, seq: string) => {
  const tasks = path.join(ws.root, '.dacli', 'projects', project, 'tasks')
  for (const status of fs.readdirSync(tasks)) {
    const name = fs.readdirSync(path.join(tasks, status)).find((n) => n.startsWith(`${seq}-`))
    if (name !== undefined) return path.join(tasks, status, name)
  }
  throw new Error(`no task ${project}/${seq}`)
}

describe('search through its index', () => {
  test('a task body edited in place by hand (same size, same modification time) shows at the next search', async () => {
    await prime()
    const file = taskFile('web', '001')
    const before = fs.statSync(file)
    // The index was written with the file as it was: it holds "works", not "zebra".
    expect(fs.readFileSync(indexFile()).includes('zebra')).toBe(false)
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('works')
    const fd = fs.openSync(file, 'r+') // in place: same inode, same size, then the old modification time back
    fs.writeSync(fd, text.replace('works', 'zebra'), 0)
    fs.closeSync(fd)
    fs.utimesSync(file, before.atime, before.mtime)
    expect(fs.statSync(file).size).toBe(before.size)
    const got = await expectHonest('zebra')
    expect(got.results).toMatchObject([{ ref: 'web/001-login-page', field: 'acceptance' }])
    expect(answer(searched('works').doc).total).toBe(0)
  })

  test('a note rewritten by another process shows at the next search, its old words gone', async () => {
    await prime()
    const dir = path.join(ws.root, '.dacli', 'projects', 'web', 'notes', 'findings')
    const file = path.join(dir, fs.readdirSync(dir)[0] as string)
    const script = `const fs=require('fs');const f=${JSON.stringify(file)};fs.writeFileSync(f,fs.readFileSync(f,'utf8').replace('Login is slow','Login is sluggish'))`
    expect(spawnSync(process.execPath, ['-e', script]).status).toBe(0)
    const got = await expectHonest('sluggish')
    expect(got.results).toMatchObject([{ kind: 'note', title: 'Login is sluggish' }])
    await expectHonest('slow')
    await expectHonest('login')
  })

  test('a deleted task vanishes; a task copied in appears, and a copy of a task id is listed once', async () => {
    await prime()
    const gone = taskFile('ledger', '003')
    fs.rmSync(gone)
    const got = await expectHonest('refunds')
    expect(got.results.map((r) => r.title)).not.toContain('Export report')
    // A new task by a file copy (a fresh id and title), and a second copy of an existing id (a bad merge).
    const source = taskFile('ledger', '001')
    const text = fs.readFileSync(source, 'utf8')
    const id = /^id: (t-\w+)$/m.exec(text)?.[1] as string
    const fresh = text.replace(id, 't-01JZZZZZZZZZZZZZZZZZZZZZZZ').replace('# Rounding of refunds', '# Copied refunds')
    fs.writeFileSync(path.join(path.dirname(source), '009-copied-refunds.md'), fresh)
    const done = path.join(ws.root, '.dacli', 'projects', 'ledger', 'tasks', 'done')
    fs.mkdirSync(done, { recursive: true })
    expect(path.dirname(source)).not.toBe(done)
    fs.copyFileSync(source, path.join(done, path.basename(source)))
    const after = await expectHonest('refunds')
    expect(after.results.map((r) => r.title)).toContain('Copied refunds')
    expect(after.results.filter((r) => r.id === id)).toHaveLength(1)
    await expectHonest('refunds', ['--status', 'done'], { kind: 'task', statuses: ['done'] })
  })

  test('a damaged index is ignored and rebuilt: truncated, garbage, a foreign header, offsets out of range', async () => {
    await prime()
    const good = fs.readFileSync(indexFile())
    const nl = good.indexOf(10)
    const toc = good.indexOf(10, nl + 1)
    const damages: [string, Buffer][] = [
      ['truncated', good.subarray(0, Math.floor(good.length / 2))],
      ['garbage', Buffer.alloc(good.length, 0x5a)],
      ['a foreign header', Buffer.concat([Buffer.from('dacli-search 0 le 0.0.0'), good.subarray(nl)])],
      [
        'offsets out of range',
        Buffer.concat([
          good.subarray(0, nl + 1),
          Buffer.from(
            good
              .subarray(nl + 1, toc)
              .toString()
              .replace(/\[(\d+),(\d+)\]/, '[$1,99999999]'),
          ),
          good.subarray(toc),
        ]),
      ],
      ['empty', Buffer.alloc(0)],
    ]
    // A posting naming an entry past the last: the term table of a valid file, its postings overwritten.
    const bad = Buffer.from(good)
    const postings = bad.lastIndexOf(Buffer.from('refunds'))
    expect(postings).toBeGreaterThan(0)
    damages.push(['postings overwritten', Buffer.concat([bad.subarray(0, bad.length - 64), Buffer.alloc(64, 0xff)])])
    for (const [what, bytes] of damages) {
      fs.writeFileSync(indexFile(), bytes)
      const got = answer(searched('refunds').doc)
      expect(got, what).toEqual(await cacheless('refunds'))
      // Rewritten whole at the end of that search: an index that checks out.
      expect(() => IndexReader.open(indexFile(), codeOf(), testTrust())?.close(), what).not.toThrow()
    }
    // An index this clone did not write (its codes made under another key: planted, or copied from another clone)
    // is no index: never read, rebuilt at the end of the search.
    expect(() => IndexReader.open(indexFile(), keyedCode(Buffer.alloc(32, 9)), testTrust())).toThrow(CorruptIndex)
    fs.writeFileSync(path.join(ws.root, '.git', 'dacli', 'cache-key'), `${Buffer.alloc(32, 9).toString('base64url')}\n`)
    expect(answer(searched('refunds').doc)).toEqual(await cacheless('refunds'))
    expect(() => IndexReader.open(indexFile(), codeOf(), testTrust())?.close()).not.toThrow()
    await expectHonest('refunds', ['--kind', 'question'], { kind: 'question' })
  })

  test('the index walks the notes folders the notes listing reads', async () => {
    const { NOTE_KINDS } = await import('../notes/notes.js')
    expect([...NOTE_FOLDERS]).toEqual([...NOTE_KINDS])
  })

  test('a settled index is checked whole once and recorded by its stamp; one changed in place is never recorded', async () => {
    await prime()
    vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] })
    const st = fs.statSync(indexFile())
    const stamp = `${st.size}:${st.mtimeMs}:${st.ino}:${st.ctimeMs}`
    const trust = testTrust()
    IndexReader.open(indexFile(), codeOf(), trust)?.close()
    expect(trust.marked.get('search')).toBe(stamp)
    // One byte of its last section (the documents' text) changed, the length kept: the whole check fails, nothing is
    // recorded, and the search answers from the files as it did.
    const good = fs.readFileSync(indexFile())
    const bad = Buffer.from(good)
    const at = bad.lastIndexOf(Buffer.from('refunds'))
    bad[at] = 'R'.charCodeAt(0)
    fs.writeFileSync(indexFile(), bad)
    const fresh = testTrust()
    expect(() => IndexReader.open(indexFile(), codeOf(), fresh)).toThrow(CorruptIndex)
    expect(fresh.marked.size).toBe(0)
    vi.useRealTimers()
    expect(answer(searched('refunds').doc)).toEqual(await cacheless('refunds'))
  })

  test('deleting .dacli/cache changes nothing but speed', async () => {
    await prime()
    const before = answer(searched('refunds').doc)
    fs.rmSync(path.join(ws.root, '.dacli', 'cache'), { recursive: true, force: true })
    expect(answer(searched('refunds').doc)).toEqual(before)
    expect(before).toEqual(await cacheless('refunds'))
    await expectHonest('login', ['--project', 'web'], { project: 'web' })
  })
})
