// The answer memo (answers.ts): a read-only --json document is served again only while every task file it was
// computed from is as it was, with the notes it came with; anything else computes it afresh. Deleting it changes
// nothing but speed.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { services } from '../../cmd/services.js'
import { nodeSystem } from '../../cmd/system.js'
import { main } from '../cli/main.js'
import { bufferIO } from '../clikit/io.js'
import { updateClaimCache } from '../domain/claims/arbiter.js'
import { baseEnv, table, type Workspace, workspace } from '../testkit/ws.js'
import { answerFile, MAX_ANSWERS } from './answers.js'
import { Store } from './store.js'

/** Move every task file's modification time a minute back (racily fresh files are never sealed). */
function age(ws: Workspace, minutes = 1): void {
  const when = new Date(Date.now() - minutes * 60_000)
  const walk = (d: string): string[] =>
    fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(d, e.name)
      return e.isDirectory() ? walk(p) : e.isFile() && p.endsWith('.md') ? [p] : []
    })
  for (const f of walk(path.join(ws.root, '.dacli', 'projects'))) fs.utimesSync(f, when, when)
}

const answersDir = (ws: Workspace) => path.join(ws.root, '.dacli', 'cache', 'answers')
const kept = (ws: Workspace) => (fs.existsSync(answersDir(ws)) ? fs.readdirSync(answersDir(ws)).sort() : [])

/** A workspace of two projects with a cross-project dependency, estimates and criteria, every file aged. */
async function planned(): Promise<Workspace> {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('project', 'add', 'Shim', '--slug', 'shim')
  await ws.ok('task', 'add', 'Schema', '--project', 'ledger', '--estimate', '1,2,3', '--accept', 'one')
  await ws.ok('task', 'add', 'Import', '--project', 'ledger', '--estimate', '2,3,4', '--depends-on', 'ledger/1')
  await ws.ok('task', 'add', 'Adapter', '--project', 'shim', '--estimate', '1,1,2', '--depends-on', 'ledger/2')
  age(ws)
  return ws
}

/** Overwrite a kept answer's document (header, notes and key untouched): what is served next shows whether it came from the memo. */
function plant(ws: Workspace, name: string, doc: string): void {
  const file = answerFile(path.join(ws.root, '.dacli'), name) as string
  const buf = fs.readFileSync(file)
  const json = buf.lastIndexOf('{"schema":')
  fs.writeFileSync(file, Buffer.concat([buf.subarray(0, json), Buffer.from(doc)]))
}

const QUERIES = [
  ['task-list project=', ['task', 'list', '--json']],
  ['task-list project=ledger', ['task', 'list', '--project', 'ledger', '--json']],
  ['next project= parallel=3', ['next', '--json']],
  ['critical-path project= format=text', ['critical-path', '--json']],
] as const

test('an answer is kept once the index served every file, then served while every task file is unchanged', async () => {
  const ws = await planned()
  for (const [i, [, argv]] of QUERIES.entries()) {
    const first = await ws.ok(...argv)
    // The first listing reads the aged files again (their stamps moved): it keeps no answer; later ones find
    // every file in the index.
    if (i === 0) expect(kept(ws)).toEqual([])
    const second = await ws.ok(...argv) // every file served by the index: the answer is kept
    const third = await ws.ok(...argv) // served from the memo
    expect(second.stdout).toBe(first.stdout)
    expect(third.stdout).toBe(first.stdout)
    expect(third.stderr).toBe(first.stderr)
  }
  expect(kept(ws)).toEqual(QUERIES.map(([name]) => path.basename(answerFile('', name) as string)).sort())

  // Served from the memo: a planted document comes back, byte for byte, from the CLI in process and from the bin.
  for (const [name] of QUERIES) plant(ws, name, `{"schema":"planted","q":${JSON.stringify(name)}}`)
  for (const [name, argv] of QUERIES) {
    expect((await ws.ok(...argv)).stdout).toBe(`{"schema":"planted","q":${JSON.stringify(name)}}\n`)
    expect(ws.spawn(argv).stdout).toBe(`{"schema":"planted","q":${JSON.stringify(name)}}\n`)
  }

  // A hand edit behind its back (same size, the editor keeps the inode, the time set a minute back again) is seen.
  const file = path.join(ws.root, '.dacli/projects/ledger/tasks/open/001-schema.md')
  const before = fs.statSync(file)
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('# Schema', '# Schemo'))
  fs.utimesSync(file, new Date(before.mtimeMs - 10_000), new Date(before.mtimeMs - 10_000))
  expect(fs.statSync(file).size).toBe(before.size)
  const list = (await ws.ok('task', 'list', '--json')).json
  expect(list.tasks.map((t: { title: string }) => t.title)).toEqual(['Schemo', 'Import', 'Adapter'])
  expect((await ws.ok('task', 'list', '--project', 'ledger', '--json')).json.schema).toBe('task-list/v1')
  expect((await ws.ok('next', '--json')).json.ready[0].title).toBe('Schemo')
  expect((await ws.ok('critical-path', '--json')).json.schema).toBe('critical-path/v1')
  // A project the answer does not read leaves it standing: the shim listing changed nothing of ledger's.
  plant(ws, 'task-list project=ledger', '{"schema":"planted"}')
  fs.utimesSync(
    path.join(ws.root, '.dacli/projects/shim/tasks/open/001-adapter.md'),
    new Date(before.mtimeMs - 20_000),
    new Date(before.mtimeMs - 20_000),
  )
  expect((await ws.ok('task', 'list', '--project', 'ledger', '--json')).stdout).toBe('{"schema":"planted"}\n')
  expect((await ws.ok('task', 'list', '--json')).json.tasks).toHaveLength(3)
})

test('deleting the memo changes no answer; a mutation is never answered from it', async () => {
  const ws = await planned()
  const answers = async () => Promise.all(QUERIES.map(async ([, argv]) => (await ws.ok(...argv)).stdout))
  const computed = await answers()
  await answers()
  expect(await answers()).toEqual(computed)
  fs.rmSync(answersDir(ws), { recursive: true })
  expect(await answers()).toEqual(computed)
  fs.rmSync(path.join(ws.root, '.dacli', 'cache'), { recursive: true })
  expect(await answers()).toEqual(computed)

  await ws.ok('task', 'claim', 'ledger/1')
  const after = (await ws.ok('task', 'list', '--json')).json
  expect(after.tasks[0].status).toBe('active')
  expect((await ws.ok('next', '--json')).json.ready.map((r: { ref: string }) => r.ref)).not.toContain(
    after.tasks[0].ref,
  )
})

test('racily fresh files seal nothing: no answer is kept until every file is older than the racy window', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'P', '--slug', 'p')
  await ws.ok('task', 'add', 'Fresh', '--project', 'p')
  for (let i = 0; i < 3; i++) await ws.ok('task', 'list', '--json')
  expect(kept(ws)).toEqual([])
  age(ws)
  for (let i = 0; i < 2; i++) await ws.ok('task', 'list', '--json')
  expect(kept(ws)).toHaveLength(1)
})

test('a filtered or paged listing, next --fetch and human output are never kept', async () => {
  const ws = await planned()
  for (let i = 0; i < 3; i++) {
    await ws.ok('task', 'list', '--status', 'open', '--json')
    await ws.ok('task', 'list', '--limit', '1', '--json')
    await ws.ok('task', 'list', '--owner', 'none', '--json')
    await ws.ok('task', 'list')
    await ws.ok('next')
    await ws.ok('critical-path')
  }
  expect(kept(ws)).toEqual([])
})

test('what a walk sees beyond the task files (a junk name, a link) is part of the key; the notes are replayed', async () => {
  const ws = await planned()
  for (let i = 0; i < 3; i++) await ws.ok('task', 'list', '--json')
  const junk = path.join(ws.root, '.dacli/projects/ledger/tasks/open/not-a-task.md')
  fs.writeFileSync(junk, '# junk\n')
  fs.utimesSync(junk, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000))
  const runs = [await ws.ok('task', 'list', '--json'), await ws.ok('task', 'list', '--json')]
  runs.push(await ws.ok('task', 'list', '--json')) // served from the memo, with its warning
  for (const r of runs) {
    expect(r.json.skipped).toEqual([
      expect.objectContaining({ path: '.dacli/projects/ledger/tasks/open/not-a-task.md' }),
    ])
    expect(r.stderr).toContain('skipped .dacli/projects/ledger/tasks/open/not-a-task.md')
  }
  expect(kept(ws)).toHaveLength(1)
  expect((await ws.ok('task', 'list', '--json', '--quiet')).stderr).toBe('')
  fs.symlinkSync('/etc/passwd', path.join(ws.root, '.dacli/projects/ledger/tasks/open/005-link.md'))
  const linked = (await ws.ok('task', 'list', '--json')).json
  expect(linked.skipped.map((s: { code: string }) => s.code).sort()).toEqual([
    'symlink-in-workspace',
    'unparseable-object',
  ])
})

test('the claims other clones hold are part of next’s key', async () => {
  const ws = await planned()
  for (let i = 0; i < 3; i++) await ws.ok('next', '--json')
  expect((await ws.ok('next', '--json')).json.ready.map((r: { ref: string }) => r.ref)).toEqual(['ledger/001-schema'])
  // The remote's claims as last fetched: another clone holds ledger/1.
  const id = (await ws.ok('task', 'show', 'ledger/1', '--json')).json.id
  const store = await Store.open(ws.root, baseEnv(), () => new Date(), nodeSystem)
  const at = new Date().toISOString()
  const claim = {
    task: id,
    by: 'a-elsewhere',
    at,
    expires: new Date(Date.now() + 3_600_000).toISOString(),
    workspace: '/elsewhere/.dacli',
    host: 'elsewhere',
    commit: '0'.repeat(40),
  }
  await updateClaimCache(store, 'origin', { all: [claim], at })
  const next = await ws.ok('next', '--json')
  expect(next.json.ready).toEqual([])
  expect(next.stderr).toContain('claimed in another clone')
})

test('the memo keeps at most MAX_ANSWERS answers, dropping the least recently written', async () => {
  const ws = await planned()
  for (let n = 1; n <= MAX_ANSWERS + 3; n++) {
    await ws.ok('next', '--parallel', String(n), '--json')
    await ws.ok('next', '--parallel', String(n), '--json')
  }
  const names = kept(ws)
  expect(names).toHaveLength(MAX_ANSWERS)
  expect(names).not.toContain(path.basename(answerFile('', 'next project= parallel=1') as string))
  expect(names).toContain(path.basename(answerFile('', `next project= parallel=${MAX_ANSWERS + 3}`) as string))
})

test('a hit hands MCP and other in-process callers the document itself', async () => {
  const ws = await planned()
  const run = async () => {
    const io = bufferIO({ tty: false })
    const out = await main(['task', 'list', '--json'], {
      io,
      env: baseEnv(),
      cwd: ws.root,
      now: () => new Date(),
      services,
      table,
    })
    return { out, text: io.out() }
  }
  const first = await run()
  await run()
  expect(kept(ws)).toHaveLength(1)
  const hit = await run()
  expect(hit.text).toBe(first.text)
  expect(hit.out.data).toEqual(first.out.data)
})

test('answer files are named inside their folder whatever the name, and a file not exactly as written is a miss', async () => {
  for (const name of ['../x', 'a/b', '.hidden', '..', 'x\u0000y', 'ü', 'next project= parallel=3']) {
    const file = answerFile('/w/.dacli', name) as string
    expect(path.dirname(file)).toBe('/w/.dacli/cache/answers')
    expect(path.basename(file)).toMatch(/^[A-Za-z0-9=_-]+$/)
  }
  expect(answerFile('/w/.dacli', 'a b')).not.toBe(answerFile('/w/.dacli', 'a_b'))
  expect(answerFile('/w/.dacli', 'x'.repeat(300))).toBeNull()

  const ws = await planned()
  for (let i = 0; i < 3; i++) await ws.ok('task', 'list', '--json')
  const file = answerFile(path.join(ws.root, '.dacli'), 'task-list project=') as string
  const good = fs.readFileSync(file)
  const computed = (await ws.ok('task', 'list', '--json')).stdout
  // A torn file, a flipped stamp byte, another release's header, a link: each is a miss, answered afresh.
  const lines = good.indexOf(10, good.indexOf(10, good.indexOf(10) + 1) + 1)
  const flipped = Buffer.from(good)
  flipped[lines + 3] = (flipped[lines + 3] as number) ^ 1
  for (const bad of [
    good.subarray(0, lines),
    flipped,
    Buffer.concat([Buffer.from('dacli-answer 0 x'), good.subarray(good.indexOf(10))]),
    // The key matches, but the document is no document as writeJSON writes one: an escape sequence for a
    // terminal, bytes that are not UTF-8, a second line, something that is not a document.
    Buffer.concat([
      good.subarray(0, good.lastIndexOf('{"schema":')),
      Buffer.from('{"schema":"x\u001b]0;pwned\u0007"}'),
    ]),
    Buffer.concat([
      good.subarray(0, good.lastIndexOf('{"schema":')),
      Buffer.from('{"schema":"x'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]),
    Buffer.concat([good.subarray(0, good.lastIndexOf('{"schema":')), Buffer.from('{"schema":"x"}\n{"schema":"y"}')]),
    Buffer.concat([good.subarray(0, good.lastIndexOf('{"schema":')), Buffer.from('["schema"]')]),
  ]) {
    fs.writeFileSync(file, bad)
    expect((await ws.ok('task', 'list', '--json')).stdout).toBe(computed)
  }
  fs.rmSync(file)
  const elsewhere = path.join(ws.root, 'planted-answer')
  fs.writeFileSync(elsewhere, good)
  fs.symlinkSync(elsewhere, file)
  plant(ws, 'task-list project=', '{"schema":"planted"}')
  expect((await ws.ok('task', 'list', '--json')).stdout).toBe(computed)
})

test('a kept answer is never served past the identity check: a retired identity is refused, as without the memo', async () => {
  const ws = await planned()
  const a = await ws.agent('ro', 'reader')
  for (let i = 0; i < 3; i++) await ws.ok('task', 'list', '--json', { as: a.token })
  expect(kept(ws)).toHaveLength(1)
  plant(ws, 'task-list project=', '{"schema":"planted"}')
  expect((await ws.ok('task', 'list', '--json', { as: a.token })).stdout).toBe('{"schema":"planted"}\n')
  await ws.ok('agent', 'retire', a.id)
  const refused = await ws.dacli('task', 'list', '--json', { as: a.token })
  expect(refused.code).toBe(3)
  expect(refused.stdout).toBe('')
  expect(refused.error.schema).toBe('error/v1')
})
