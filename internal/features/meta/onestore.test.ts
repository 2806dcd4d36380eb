// One store per clone: linked worktrees use the main worktree's
// `.dacli/`, even with a checked-out copy of their own; and a fresh clone is told
// to pull the remote's workspace rather than start another.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { checkoutAt, commitStore, linkedWorktree, worktreeClaimRace } from '../../testkit/coordination.js'
import { expectValid } from '../../testkit/schemas.js'
import { git, snapshotOf, tempDir, workspace } from '../../testkit/ws.js'

const TASK1 = '.dacli/projects/alpha/tasks/open/001-first-thing.md'

async function committedWorkspace() {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'First thing', '--project', 'alpha', '--accept', 'it works')).expectExit(0)
  commitStore(ws)
  return ws
}

describe('linked worktrees share the main worktree’s store', () => {
  test('a claim from a linked worktree lands in the main store; its own copy is ignored and reported', async () => {
    const ws = await committedWorkspace()
    const wt = linkedWorktree(ws, 'feature')
    const copy = path.join(wt.root, '.dacli')
    expect(fs.existsSync(path.join(wt.root, TASK1))).toBe(true)
    const copyBefore = snapshotOf(wt.root)
    const claimed = (await wt.dacli('task', 'claim', 'alpha/1', '--json')).expectExit(0).json
    expect(claimed.task.path).toBe('.dacli/projects/alpha/tasks/active/001-first-thing.md')
    expect(fs.existsSync(path.join(ws.root, claimed.task.path))).toBe(true)
    expect(snapshotOf(wt.root)).toEqual(copyBefore)
    // A subfolder of the linked worktree finds the same store.
    fs.mkdirSync(path.join(wt.root, 'src', 'deep'), { recursive: true })
    const deep = checkoutAt(path.join(wt.root, 'src', 'deep'))
    expect((await deep.dacli('task', 'show', 'alpha/1', '--json')).expectExit(0).json.owner).toBe('a-root')

    const who = (await wt.dacli('whoami', '--json')).expectExit(0).json
    expectValid(who)
    expect(who.workspace).toEqual({
      root: ws.root,
      dir: path.join(ws.root, '.dacli'),
      worktree: wt.root,
      linked: true,
    })
    expect((await wt.dacli('whoami')).expectExit(0).stdout).toContain('shared with the main worktree')
    const mainWho = (await ws.dacli('whoami', '--json')).expectExit(0).json
    expect(mainWho.workspace).toMatchObject({ root: ws.root, worktree: ws.root, linked: false })
    const status = (await wt.dacli('status', '--json')).expectExit(0).json
    expectValid(status)
    expect(status.workspace).toMatchObject({ root: ws.root, dir: path.join(ws.root, '.dacli'), linked: true })
    expect(status.workspace.worktree).toBe(wt.root)

    for (const where of [ws, wt]) {
      const doctor = (await where.dacli('doctor', '--json')).expectExit(0).json
      const found = doctor.findings.filter((f: { code: string }) => f.code === 'shadowed-worktree-copy')
      expect(found).toEqual([expect.objectContaining({ severity: 'info', subject: copy })])
      expect(found[0].message).toContain(path.join(ws.root, '.dacli'))
    }
  })

  test('--verify runs in the caller’s worktree and records its branch and commit in the shared task', async () => {
    const ws = await committedWorkspace()
    const wt = linkedWorktree(ws, 'feature')
    fs.writeFileSync(path.join(wt.root, 'built.txt'), 'only here\n')
    git(wt.root, 'add', 'built.txt')
    git(wt.root, 'commit', '-q', '-m', 'the work')
    const head = git(wt.root, 'rev-parse', 'HEAD').trim()
    const check = ['task', 'check', 'alpha/1', '--n', '1', '--verify', 'test -f built.txt', '--json']
    ;(await ws.dacli(...check)).expectExit(1)
    const done = (await wt.dacli(...check)).expectExit(0).json
    expect(done.task.verifications).toEqual([expect.objectContaining({ branch: 'feature', commit: head })])
    expect(ws.file(TASK1)).toContain(`"branch":"feature","commit":"${head}"`)
  })

  test('no store in the main worktree: exit 4 naming the ignored copy; init --here is refused; init goes to main', async () => {
    const ws = await committedWorkspace()
    const wt = linkedWorktree(ws, 'feature')
    fs.rmSync(path.join(ws.root, '.dacli'), { recursive: true })
    const r = (await wt.dacli('task', 'list', '--json')).expectExit(4)
    expect(r.error.details.shadowed).toBe(path.join(wt.root, '.dacli'))
    expect(r.error.message).toContain('not used')
    const before = snapshotOf(wt.root)
    expect((await wt.dacli('init', '--here', '--json')).expectExit(2).error.message).toContain('linked worktree')
    expect(snapshotOf(wt.root)).toEqual(before)
    const init = (await wt.dacli('init', '--json')).expectExit(0).json
    expect(init.path).toBe(path.join(ws.root, '.dacli'))
  })

  test('two linked worktrees claiming one task at once: exactly one winner, both see the same owner', async () => {
    const f = await worktreeClaimRace(await workspace(), 6)
    expect(f.rounds_with_other_than_one_winner).toBe(0)
    expect(f.rounds_where_worktrees_disagree).toBe(0)
  })
})

describe('a fresh clone of a repository whose remote has the record branch', () => {
  async function published(remoteName = 'origin') {
    const remote = tempDir('dacli-remote-')
    git(remote, 'init', '-q', '--bare', '-b', 'main')
    const a = await committedWorkspace()
    git(a.root, 'remote', 'add', remoteName, remote)
    ;(await a.dacli('record', 'push', remoteName)).expectExit(0)
    git(a.root, 'push', '-q', remoteName, 'main')
    // The clone carries the code but not .dacli/ (committed on main here, so remove it from the clone).
    const clone = tempDir('dacli-clone-')
    git(clone, 'clone', '-q', '-o', remoteName, remote, '.')
    git(clone, 'rm', '-r', '-q', '.dacli')
    git(clone, 'commit', '-q', '-m', 'no workspace in the code')
    return { a, remote, clone: checkoutAt(clone) }
  }

  test('workspace commands say to run `dacli record pull` (exit 4); init refuses (5) unless --force', async () => {
    const { clone } = await published()
    for (const argv of [['task', 'list'], ['status'], ['whoami']]) {
      const r = (await clone.dacli(...argv, '--json')).expectExit(4)
      expect(r.error.message).toContain('the remote `origin` has a dacli record branch: run `dacli record pull`')
      expect(r.error.next_actions).toEqual(['dacli record pull'])
      expect(r.error.details).toEqual({ remote: 'origin', record_branch: 'dacli/record' })
    }
    // Packed remote refs are seen too.
    git(clone.root, 'pack-refs', '--all')
    expect((await clone.dacli('next', '--json')).expectExit(4).error.next_actions).toEqual(['dacli record pull'])
    const refused = (await clone.dacli('init', '--json')).expectExit(5)
    expect(refused.error.next_actions[0]).toBe('dacli record pull')
    expect(fs.existsSync(path.join(clone.root, '.dacli'))).toBe(false)
    const forced = (await clone.dacli('init', '--force', '--json')).expectExit(0).json
    expect(forced.path).toBe(path.join(clone.root, '.dacli'))
  })

  test('record pull brings the remote workspace with its id and name, and no conflict copies', async () => {
    const { a, clone } = await published()
    const pulled = (await clone.dacli('record', 'pull', '--json')).expectExit(0).json
    expect(pulled.outcome).toBe('materialized')
    const ours = (await clone.dacli('status', '--json')).expectExit(0).json.workspace
    const theirs = (await a.dacli('status', '--json')).expectExit(0).json.workspace
    expect({ id: ours.id, name: ours.name }).toEqual({ id: theirs.id, name: theirs.name })
    const files = [...snapshotOf(clone.root).keys()]
    expect(files.filter((f) => f.includes('.conflict-'))).toEqual([])
    expect(clone.file(TASK1)).toBe(a.file(TASK1))
    expect((await clone.dacli('doctor', '--json')).expectExit(0).json.ok).toBe(true)
  })

  test('the old advice — init, then record pull — replaces the empty workspace instead of merging it', async () => {
    const { a, clone } = await published()
    ;(await clone.dacli('init', '--force')).expectExit(0)
    const pulled = (await clone.dacli('record', 'pull', '--json')).expectExit(0).json
    expect(pulled.outcome).toBe('materialized')
    expect([...snapshotOf(clone.root).keys()].filter((f) => f.includes('.conflict-'))).toEqual([])
    const theirs = (await a.dacli('status', '--json')).json.workspace.id
    expect((await clone.dacli('status', '--json')).expectExit(0).json.workspace.id).toBe(theirs)
    expect(fs.readdirSync(clone.root).filter((n) => n.startsWith('.dacli.'))).toEqual([])
    // A workspace with work of its own is merged as before, never replaced.
    const other = await published()
    ;(await other.clone.dacli('init', '--force')).expectExit(0)
    ;(await other.clone.dacli('project', 'add', 'Mine', '--slug', 'mine')).expectExit(0)
    const merged = (await other.clone.dacli('record', 'pull', '--json')).expectExit(5)
    expect(merged.error.details.conflicts.map((c: { path: string }) => c.path)).toContain('.dacli/config.yml')
    expect(fs.existsSync(path.join(other.clone.root, '.dacli/projects/mine/project.md'))).toBe(true)
  })

  test('another remote name and a linked worktree of the clone get the same advice', async () => {
    const { clone } = await published('upstream')
    const r = (await clone.dacli('task', 'list', '--json')).expectExit(4)
    expect(r.error.next_actions).toEqual(['dacli record pull upstream'])
    const wt = path.join(tempDir('dacli-wt-'), 'side')
    git(clone.root, 'worktree', 'add', '-q', wt, '-b', 'side')
    const fromWt = (await checkoutAt(wt).dacli('overview', '--json')).expectExit(4)
    expect(fromWt.error.next_actions).toEqual(['dacli record pull upstream'])
  })
})
