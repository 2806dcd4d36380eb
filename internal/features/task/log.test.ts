import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { dacliIn, git, setAutorecord, tempDir, type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
const OPEN = '.dacli/projects/ledger/tasks/open'

/** Move a task file by hand (what a claim or a renumbering does), adding a log line. */
function moveTask(w: Workspace, from: string, to: string, line: string) {
  const text = fs.readFileSync(path.join(w.root, from), 'utf8')
  fs.mkdirSync(path.dirname(path.join(w.root, to)), { recursive: true })
  fs.writeFileSync(path.join(w.root, to), `${text.trimEnd()}\n${line}\n`)
  fs.rmSync(path.join(w.root, from))
}

beforeEach(async () => {
  ws = await workspace()
  setAutorecord(ws)
  ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Audit writes', '--project', 'ledger', '--accept', 'listed')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Other work', '--project', 'ledger', '--accept', 'x')).expectExit(0)
})

describe('task log', () => {
  test('merges ## Log with the record commits that changed the task, following it by id', async () => {
    moveTask(
      ws,
      `${OPEN}/001-audit-writes.md`,
      '.dacli/projects/ledger/tasks/active/001-audit-writes.md',
      `- ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} a-root claimed`,
    )
    ;(await ws.dacli('record', '--message', 'claim by hand')).expectExit(0)
    fs.appendFileSync(path.join(ws.root, `${OPEN}/002-other-work.md`), '\nunrelated\n')
    ;(await ws.dacli('record', '--message', 'unrelated')).expectExit(0)
    const active = '.dacli/projects/ledger/tasks/active'
    const text = ws.file(`${active}/001-audit-writes.md`).replace(/^version: 1$/m, 'version: 2\naliases: [1]')
    fs.rmSync(path.join(ws.root, `${active}/001-audit-writes.md`))
    ws.write(`${active}/009-audit-writes.md`, text)
    ;(await ws.dacli('record', '--message', 'renumber by hand')).expectExit(0)

    const doc = (await ws.dacli('task', 'log', 'ledger/9', '--json')).expectExit(0).json
    expectValid(doc)
    expect(doc.task).toMatchObject({ ref: 'ledger/009-audit-writes', status: 'active', title: 'Audit writes' })
    expect(doc.git).toBe(true)
    const commits = doc.entries.filter((e: { source: string }) => e.source === 'record')
    expect(
      commits.map((e: { message: string; change: string; path: string }) => [e.message, e.change, e.path]),
    ).toEqual([
      ['dacli: task add ledger/001-audit-writes', 'added', `${OPEN}/001-audit-writes.md`],
      ['claim by hand', 'moved', `${active}/001-audit-writes.md`],
      ['renumber by hand', 'moved', `${active}/009-audit-writes.md`],
    ])
    expect(commits[0]).toMatchObject({ actor: 'a-root', command: 'task add ledger/001-audit-writes', verb: null })
    expect(commits[0].author).toBe('Test Person <test@example.invalid>')
    const logs = doc.entries.filter((e: { source: string }) => e.source === 'log')
    expect(logs.map((e: { verb: string }) => e.verb)).toEqual(['created', 'claimed'])
    // Oldest first.
    const times = doc.entries.map((e: { at: string }) => e.at)
    expect([...times].sort()).toEqual(times)
    expect(doc.commits_scanned.record).toBe(Number(git(ws.root, 'rev-list', '--count', 'dacli/record')))
    expect(doc.commits_scanned.head).toBeNull()

    // The per-commit facts are cached; with or without the cache the answer is the same.
    const again = (await ws.dacli('task', 'log', 'ledger/9', '--json')).expectExit(0).json
    expect(again).toEqual(doc)
    expect(fs.existsSync(path.join(ws.root, '.dacli/cache/history.json'))).toBe(true)
    fs.rmSync(path.join(ws.root, '.dacli/cache'), { recursive: true })
    expect((await ws.dacli('task', 'log', 'ledger/9', '--json')).expectExit(0).json).toEqual(doc)
  })

  test('HEAD commits appear when the workspace is committed with the code', async () => {
    for (let i = 0; i < 3; i++) {
      ws.write('src.txt', `code ${i}\n`)
      git(ws.root, 'add', 'src.txt')
      git(ws.root, 'commit', '-q', '-m', `code ${i}`)
    }
    git(ws.root, 'add', '.dacli')
    git(ws.root, 'commit', '-q', '-m', 'track the plan')
    const tracked = git(ws.root, 'rev-parse', 'HEAD').trim()
    ws.write('src.txt', 'more code\n')
    git(ws.root, 'commit', '-q', '-am', 'more code')
    const doc = (await ws.dacli('task', 'log', 'ledger/1', '--json')).expectExit(0).json
    const head = doc.entries.filter((e: { source: string }) => e.source === 'head')
    expect(head).toHaveLength(1)
    expect(head[0]).toMatchObject({ message: 'track the plan', change: 'added', actor: null, command: null })
    expect(head[0].commit).toBe(tracked)
    // The walk stops at the commit that brought the workspace in: the code's older history is not read.
    expect(doc.commits_scanned.head).toBe(2)
    expect(doc.truncated).toBe(false)
  })

  test('outside git: the ## Log lines only', async () => {
    const plain = await workspace({ git: false })
    ;(await plain.dacli('project', 'add', 'Solo', '--slug', 'solo')).expectExit(0)
    ;(await plain.dacli('task', 'add', 'Alone', '--project', 'solo', '--accept', 'x')).expectExit(0)
    const doc = (await plain.dacli('task', 'log', 'solo/1', '--json')).expectExit(0).json
    expectValid(doc)
    expect(doc).toMatchObject({ git: false, commits_scanned: { record: null, head: null }, truncated: false })
    expect(doc.entries).toHaveLength(1)
    expect(doc.entries[0]).toMatchObject({ source: 'log', verb: 'created', commit: null })
    expect((await plain.dacli('task', 'log', 'solo/2', '--json')).expectExit(4).error.kind).toBe('not_found')
  })
})

describe('linked worktrees', () => {
  test('records made in a linked worktree land in the common git directory', async () => {
    ws.write('src.txt', 'code\n')
    git(ws.root, 'add', 'src.txt')
    git(ws.root, 'commit', '-q', '-m', 'code')
    const wt = path.join(tempDir(), 'feature')
    git(ws.root, 'worktree', 'add', '-q', '-b', 'feature', wt)
    const inWt = (...argv: string[]) => dacliIn(wt, argv)
    // Discovery finds the main worktree's workspace.
    ;(await inWt('task', 'add', 'From the worktree', '--project', 'ledger', '--accept', 'y')).expectExit(0)
    expect(fs.existsSync(path.join(ws.root, '.dacli/projects/ledger/tasks/open/003-from-the-worktree.md'))).toBe(true)
    expect(git(ws.root, 'log', '-1', '--format=%s', 'dacli/record').trim()).toBe(
      'dacli: task add ledger/003-from-the-worktree',
    )
    ws.write('.dacli/projects/ledger/notes.txt', 'more\n')
    const r = (await inWt('record', '--message', 'from the worktree', '--json')).expectExit(0).json
    const tip = git(ws.root, 'rev-parse', 'refs/heads/dacli/record').trim()
    expect(r.commit).toBe(tip)
    expect(git(wt, 'log', '-1', '--format=%H %s', 'dacli/record').trim()).toBe(`${tip} from the worktree`)
    const wtGitDir = path.join(ws.root, '.git', 'worktrees', 'feature')
    expect(fs.existsSync(path.join(wtGitDir, 'refs', 'heads', 'dacli'))).toBe(false)
    expect(fs.existsSync(path.join(wtGitDir, 'objects'))).toBe(false)
    expect(git(wt, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('feature')
    expect(git(wt, 'status', '--porcelain').trim()).toBe('')
    const log = (await inWt('task', 'log', 'ledger/3', '--json')).expectExit(0).json
    expect(log.entries.filter((e: { source: string }) => e.source === 'record').length).toBeGreaterThan(0)
    git(ws.root, 'fsck', '--strict', '--no-progress')
  })
})
