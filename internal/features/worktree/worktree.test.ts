// Task worktrees: add, list, remove, prune and `task claim --worktree`,
// against real git repositories.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { checkoutAt, commitStore } from '../../testkit/coordination.js'
import { expectValid } from '../../testkit/schemas.js'
import { git, snapshotOf, tempDir, type Workspace, workspace } from '../../testkit/ws.js'

const NAME = 'alpha-001-first-thing'
const BRANCH = `dacli/${NAME}`

async function repoWorkspace(): Promise<Workspace> {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'First thing', '--project', 'alpha', '--accept', 'it works')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Second thing', '--project', 'alpha', '--accept', 'also')).expectExit(0)
  commitStore(ws)
  return ws
}

function commitIn(dir: string, file: string, text = 'work\n'): string {
  fs.writeFileSync(path.join(dir, file), text)
  git(dir, 'add', file)
  git(dir, 'commit', '-q', '-m', `add ${file}`)
  return git(dir, 'rev-parse', '--short', 'HEAD').trim()
}

describe('worktree add and task claim --worktree', () => {
  test('creates the task’s worktree on its branch from trunk, prints the path, records it; again is reused', async () => {
    const ws = await repoWorkspace()
    const main = git(ws.root, 'rev-parse', 'HEAD').trim()
    const human = (await ws.dacli('worktree', 'add', 'alpha/1')).expectExit(0)
    const dir = path.join(ws.root, '.dacli', 'worktrees', NAME)
    expect(human.stdout).toBe(`${dir}\n`)
    expect(human.stderr).toContain(`on branch ${BRANCH} from main`)
    expect(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(BRANCH)
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(main)
    const file = ws.file('.dacli/projects/alpha/tasks/open/001-first-thing.md')
    expect(file).toContain(`\nworktree: {path: .dacli/worktrees/${NAME}, branch: ${BRANCH}}\n`)
    expect(file).not.toMatch(/flow:/)
    expect(file).toMatch(/a-root worktree \.dacli\/worktrees\/alpha-001-first-thing on branch dacli\//)
    const shown = (await ws.dacli('task', 'show', 'alpha/1', '--json')).expectExit(0).json
    expect(shown.worktree).toEqual({ path: `.dacli/worktrees/${NAME}`, branch: BRANCH })
    expect(ws.file('.dacli/.gitignore')).toMatch(/^worktrees\/$/m)
    // The main worktree does not see it as untracked; the record never holds it.
    expect(git(ws.root, 'status', '--porcelain')).not.toContain('worktrees')
    ;(await ws.dacli('record')).expectExit(0)
    expect(git(ws.root, 'ls-tree', '-r', '--name-only', 'dacli/record')).not.toContain('worktrees/')
    // dacli inside the task worktree talks to the main store.
    const inside = checkoutAt(dir)
    expect((await inside.dacli('whoami', '--json')).expectExit(0).json.workspace).toMatchObject({
      dir: path.join(ws.root, '.dacli'),
      linked: true,
    })
    const again = (await ws.dacli('worktree', 'add', 'alpha/1', '--json')).expectExit(0).json
    expectValid(again)
    expect(again).toMatchObject({ action: 'add', outcome: 'reused', path: dir, branch: BRANCH, head: main })
    expect((await ws.dacli('task', 'show', 'alpha/1', '--json')).json.version).toBe(shown.version)
  })

  test('--branch and --base; bad input is refused and leaves nothing behind', async () => {
    const ws = await repoWorkspace()
    const first = git(ws.root, 'rev-parse', 'HEAD').trim()
    commitIn(ws.root, 'later.txt')
    const doc = (
      await ws.dacli('worktree', 'add', 'alpha/2', '--branch', 'feat/two', '--base', first, '--json')
    ).expectExit(0).json
    expect(doc).toMatchObject({ outcome: 'created', branch: 'feat/two', base: first, head: first })
    const before = snapshotOf(ws.root)
    const branches = git(ws.root, 'branch', '--list')
    expect(
      (await ws.dacli('worktree', 'add', 'alpha/1', '--branch', 'bad..name', '--json')).expectExit(2).error.kind,
    ).toBe('usage')
    expect(
      (await ws.dacli('worktree', 'add', 'alpha/1', '--base', 'no-such-rev', '--json')).expectExit(4).error.details,
    ).toEqual({ base: 'no-such-rev' })
    expect(
      (await ws.dacli('worktree', 'add', 'alpha/1', '--branch', 'feat/two', '--json')).expectExit(5).error.details.path,
    ).toBe(doc.path)
    expect(snapshotOf(ws.root)).toEqual(before)
    const other = await ws.agent('rw', 'other')
    ;(await ws.dacli('task', 'claim', 'alpha/1', { as: other.token })).expectExit(0)
    const afterClaim = snapshotOf(ws.root)
    expect((await ws.dacli('worktree', 'add', 'alpha/1', '--json')).expectExit(3).error.details.owner).toBe(other.id)
    expect(snapshotOf(ws.root)).toEqual(afterClaim)
    expect(git(ws.root, 'branch', '--list')).toBe(branches)
    const plain = await workspace({ git: false })
    ;(await plain.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    ;(await plain.dacli('task', 'add', 'T', '--project', 'p', '--accept', 'x')).expectExit(0)
    expect((await plain.dacli('worktree', 'add', 'p/1', '--json')).expectExit(1).error.message).toContain(
      'not inside a git repository',
    )
  })

  test('task claim --worktree claims, then adds the worktree; the document gains worktree', async () => {
    const ws = await repoWorkspace()
    const r = (await ws.dacli('task', 'claim', 'alpha/1', '--worktree', '--json')).expectExit(0).json
    expectValid(r)
    const dir = path.join(ws.root, '.dacli', 'worktrees', NAME)
    expect(r.worktree).toEqual({ path: dir, branch: BRANCH, outcome: 'created' })
    expect(r.task).toMatchObject({ status: 'active', owner: 'a-root' })
    expect(r.task.worktree).toEqual({ path: `.dacli/worktrees/${NAME}`, branch: BRANCH })
    expect(fs.existsSync(path.join(dir, '.git'))).toBe(true)
    const again = (await ws.dacli('task', 'claim', 'alpha/1', '--worktree', '--json')).expectExit(0).json
    expect(again).toMatchObject({ outcome: 'unchanged', worktree: { outcome: 'reused' } })
  })
})

describe('worktree list, remove and prune', () => {
  test('list: every worktree with its task, state against trunk, and foreign ones with task null', async () => {
    const ws = await repoWorkspace()
    ;(await ws.dacli('task', 'claim', 'alpha/1', '--worktree')).expectExit(0)
    const dir = path.join(ws.root, '.dacli', 'worktrees', NAME)
    commitIn(dir, 'one.txt')
    commitIn(dir, 'two.txt')
    fs.writeFileSync(path.join(dir, 'scratch.txt'), 'untracked\n')
    const foreign = path.join(tempDir('dacli-wt-'), 'mine')
    git(ws.root, 'worktree', 'add', '-q', foreign, '-b', 'mine')
    // Made by hand outside .dacli/worktrees/ on the branch dacli would give alpha/2: not dacli's, so task null.
    const lookalike = path.join(tempDir('dacli-wt-'), 'lookalike')
    git(ws.root, 'worktree', 'add', '-q', lookalike, '-b', 'dacli/alpha-002-second-thing')
    const doc = (await ws.dacli('worktree', 'list', '--json')).expectExit(0).json
    expectValid(doc)
    expect(doc.trunk.name).toBe('main')
    const byPath = new Map(doc.worktrees.map((w: { path: string }) => [w.path, w]))
    expect(byPath.get(ws.root)).toMatchObject({ main: true, branch: 'main', task: null })
    expect(byPath.get(dir)).toMatchObject({
      main: false,
      branch: BRANCH,
      dirty: true,
      changes: 1,
      ahead: 2,
      behind: 0,
      task: { ref: 'alpha/001-first-thing', status: 'active', owner: 'a-root' },
    })
    expect(byPath.get(foreign)).toMatchObject({ branch: 'mine', task: null, ahead: 0 })
    expect(byPath.get(lookalike)).toMatchObject({ branch: 'dacli/alpha-002-second-thing', task: null })
    const only = (await ws.dacli('worktree', 'list', '--project', 'alpha', '--json')).expectExit(0).json
    expect(only.worktrees.map((w: { path: string }) => w.path)).toEqual([dir])
    expect((await ws.dacli('worktree', 'list', '--project', 'nope', '--json')).expectExit(4).error.kind).toBe(
      'not_found',
    )
    const human = (await ws.dacli('worktree', 'list')).expectExit(0).stdout
    expect(human).toContain('alpha/001-first-thing')
    expect(human).toContain('+2/-0')
  })

  test('remove refuses dirty trees and unpushed, unmerged commits (3, naming them); --force keeps the branch', async () => {
    const ws = await repoWorkspace()
    ;(await ws.dacli('worktree', 'add', 'alpha/1')).expectExit(0)
    const dir = path.join(ws.root, '.dacli', 'worktrees', NAME)
    fs.writeFileSync(path.join(dir, 'draft.txt'), 'not yet\n')
    const dirty = (await ws.dacli('worktree', 'remove', 'alpha/1', '--json')).expectExit(3).error
    expect(dirty.details).toMatchObject({ policy: 'dirty-worktree', changes: ['?? draft.txt'] })
    git(dir, 'add', 'draft.txt')
    git(dir, 'commit', '-q', '-m', 'the draft')
    const sha = git(dir, 'rev-parse', '--short', 'HEAD').trim()
    const unmerged = (await ws.dacli('worktree', 'remove', 'alpha/1', '--json')).expectExit(3).error
    expect(unmerged.details).toMatchObject({ policy: 'unmerged-commits', commits: [`${sha} the draft`] })
    expect(unmerged.message).toContain(sha)
    expect(fs.existsSync(dir)).toBe(true)
    const forced = (await ws.dacli('worktree', 'remove', 'alpha/1', '--force', '--json')).expectExit(0).json
    expectValid(forced)
    expect(forced).toMatchObject({ action: 'remove', outcome: 'removed', branch: BRANCH, branch_deleted: false })
    expect(fs.existsSync(dir)).toBe(false)
    expect(git(ws.root, 'rev-parse', '--short', BRANCH).trim()).toBe(sha)
    const t = (await ws.dacli('task', 'show', 'alpha/1', '--json')).json
    expect(t.worktree).toBeNull()
    expect(ws.file('.dacli/projects/alpha/tasks/open/001-first-thing.md')).not.toMatch(/^worktree:/m)
    // Repeated: nothing to do, exit 0, unchanged, and not a byte written (contract §1).
    const before = snapshotOf(ws.root)
    const again = (await ws.dacli('worktree', 'remove', 'alpha/1', '--json')).expectExit(0).json
    expectValid(again)
    expect(again).toMatchObject({ outcome: 'unchanged', branch: BRANCH, head: null, branch_deleted: null })
    expect((await ws.dacli('worktree', 'remove', 'alpha/1')).expectExit(0).stdout).toContain('removed already')
    expect(snapshotOf(ws.root)).toEqual(before)
    // A task that never had a worktree has none to remove: 4.
    expect((await ws.dacli('worktree', 'remove', 'alpha/2', '--json')).expectExit(4).error.kind).toBe('not_found')
  })

  test('remove after the work is merged deletes the merged branch', async () => {
    const ws = await repoWorkspace()
    ;(await ws.dacli('worktree', 'add', 'alpha/1')).expectExit(0)
    const dir = path.join(ws.root, '.dacli', 'worktrees', NAME)
    commitIn(dir, 'feature.txt')
    git(ws.root, 'merge', '-q', '--ff-only', BRANCH)
    const r = (await ws.dacli('worktree', 'remove', 'alpha/1', '--json')).expectExit(0).json
    expect(r.branch_deleted).toBe(true)
    expect(git(ws.root, 'branch', '--list', BRANCH).trim()).toBe('')
  })

  test('remove and prune delete only the task’s own branch, never trunk checked out in its worktree by git', async () => {
    const ws = await repoWorkspace()
    for (const ref of ['alpha/1', 'alpha/2']) (await ws.dacli('worktree', 'add', ref)).expectExit(0)
    const main = git(ws.root, 'rev-parse', 'main').trim()
    git(ws.root, 'checkout', '-q', '-b', 'other')
    git(path.join(ws.root, '.dacli', 'worktrees', NAME), 'checkout', '-q', 'main')
    const r = (await ws.dacli('worktree', 'remove', 'alpha/1', '--json')).expectExit(0).json
    expect(r).toMatchObject({ branch: 'main', branch_deleted: false })
    expect(git(ws.root, 'rev-parse', 'refs/heads/main').trim()).toBe(main)
    git(path.join(ws.root, '.dacli', 'worktrees', 'alpha-002-second-thing'), 'checkout', '-q', 'main')
    ;(await ws.dacli('task', 'check', 'alpha/2', '--all')).expectExit(0)
    ;(await ws.dacli('task', 'done', 'alpha/2', '--branch', 'main')).expectExit(0)
    const dry = (await ws.dacli('worktree', 'prune', '--dry-run', '--json')).expectExit(0).json
    expect(dry.removed).toEqual([expect.objectContaining({ branch: 'main', branch_deleted: false })])
    const p = (await ws.dacli('worktree', 'prune', '--json')).expectExit(0).json
    expect(p.removed).toEqual([expect.objectContaining({ branch: 'main', branch_deleted: false })])
    expect(git(ws.root, 'rev-parse', 'refs/heads/main').trim()).toBe(main)
  })

  test('a task worktree made on trunk itself (--branch main) is removed without deleting main', async () => {
    const ws = await repoWorkspace()
    const main = git(ws.root, 'rev-parse', 'main').trim()
    git(ws.root, 'checkout', '-q', '-b', 'other')
    ;(await ws.dacli('worktree', 'add', 'alpha/1', '--branch', 'main')).expectExit(0)
    const r = (await ws.dacli('worktree', 'remove', 'alpha/1', '--json')).expectExit(0).json
    expect(r).toMatchObject({ branch: 'main', branch_deleted: false })
    expect(git(ws.root, 'rev-parse', 'refs/heads/main').trim()).toBe(main)
  })

  test('prune removes only provably finished task worktrees and says why it kept each other one', async () => {
    const ws = await repoWorkspace()
    for (const n of ['1', '2']) (await ws.dacli('worktree', 'add', `alpha/${n}`)).expectExit(0)
    ;(await ws.dacli('task', 'add', 'Third thing', '--project', 'alpha', '--accept', 'c')).expectExit(0)
    ;(await ws.dacli('task', 'add', 'Fourth thing', '--project', 'alpha', '--accept', 'd')).expectExit(0)
    ;(await ws.dacli('worktree', 'add', 'alpha/3')).expectExit(0)
    ;(await ws.dacli('worktree', 'add', 'alpha/4')).expectExit(0)
    const wtDir = (n: string) => path.join(ws.root, '.dacli', 'worktrees', n)
    // 1: done, merged and clean → removed. 2: a commit not on main → kept. 3: dirty → kept. 4: folder deleted →
    // forgotten. 5: clean, nothing of its own yet, its task still open → kept (not finished: not started).
    commitIn(wtDir(NAME), 'done.txt')
    git(ws.root, 'merge', '-q', '--ff-only', BRANCH)
    ;(await ws.dacli('task', 'check', 'alpha/1', '--all')).expectExit(0)
    ;(await ws.dacli('task', 'done', 'alpha/1')).expectExit(0)
    ;(await ws.dacli('task', 'add', 'Fifth thing', '--project', 'alpha', '--accept', 'e')).expectExit(0)
    ;(await ws.dacli('worktree', 'add', 'alpha/5')).expectExit(0)
    commitIn(wtDir('alpha-002-second-thing'), 'wip.txt')
    fs.writeFileSync(path.join(wtDir('alpha-003-third-thing'), 'scratch'), 'x\n')
    fs.rmSync(wtDir('alpha-004-fourth-thing'), { recursive: true, force: true })
    const foreign = path.join(tempDir('dacli-wt-'), 'mine')
    git(ws.root, 'worktree', 'add', '-q', foreign, '-b', 'mine')

    const before = snapshotOf(ws.root)
    const dry = (await ws.dacli('worktree', 'prune', '--dry-run', '--json')).expectExit(0).json
    expectValid(dry)
    expect(dry.dry_run).toBe(true)
    expect(snapshotOf(ws.root)).toEqual(before)
    expect(fs.existsSync(wtDir(NAME))).toBe(true)

    const r = (await ws.dacli('worktree', 'prune', '--json')).expectExit(0).json
    expect(r.trunk.name).toBe('main')
    expect(r.removed.map((x: { task: string }) => x.task).sort()).toEqual([
      'alpha/001-first-thing',
      'alpha/004-fourth-thing',
    ])
    expect(dry.removed.map((x: { task: string }) => x.task).sort()).toEqual(
      r.removed.map((x: { task: string }) => x.task).sort(),
    )
    // The dry run reports what the run did, the branches it deletes included.
    const gone = (d: { removed: { task: string; branch_deleted: boolean }[] }) =>
      Object.fromEntries(d.removed.map((x) => [x.task, x.branch_deleted]))
    expect(gone(dry)).toEqual(gone(r))
    expect(Object.values(gone(r))).toContain(true)
    const reasons = Object.fromEntries(
      r.kept.map((k: { task: string | null; path: string; reason: string }) => [k.task ?? k.path, k.reason]),
    )
    expect(reasons).toEqual({
      'alpha/002-second-thing': '1 commit not on main',
      'alpha/003-third-thing': '1 uncommitted change',
      'alpha/005-fifth-thing':
        'alpha/005-fifth-thing is open, not done (dacli worktree remove alpha/005-fifth-thing removes it anyway)',
      [foreign]: 'not a task worktree made by dacli',
    })
    expect(fs.existsSync(wtDir('alpha-005-fifth-thing'))).toBe(true)
    expect(fs.existsSync(wtDir(NAME))).toBe(false)
    expect(git(ws.root, 'branch', '--list', BRANCH).trim()).toBe('')
    expect(git(ws.root, 'worktree', 'list')).not.toContain('alpha-004')
    expect((await ws.dacli('task', 'show', 'alpha/1', '--json')).json.worktree).toBeNull()
    expect((await ws.dacli('task', 'show', 'alpha/2', '--json')).json.worktree).not.toBeNull()
    // A trunk that does not exist is not found (4), as `worktree add --base` naming no revision is.
    const noTrunk = (await ws.dacli('worktree', 'prune', '--into', 'nope', '--json')).expectExit(4).error
    expect(noTrunk).toMatchObject({ kind: 'not_found', details: { into: 'nope' } })
  })

  test('a workspace made before task worktrees gets worktrees/ in its .gitignore on the first add', async () => {
    const ws = await repoWorkspace()
    ws.write('.dacli/.gitignore', 'locks/\ncache/\n')
    ;(await ws.dacli('worktree', 'add', 'alpha/1')).expectExit(0)
    expect(ws.file('.dacli/.gitignore')).toBe('locks/\ncache/\nworktrees/\n')
  })
})
