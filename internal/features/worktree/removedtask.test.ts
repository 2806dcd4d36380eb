// A removed task's worktree: `task rm` and `project rm` leave it (and say so), and its tombstone, which still
// names it, lets `worktree remove` and `worktree prune` remove it later — prune judging it as a done task's.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { commitStore } from '../../testkit/coordination.js'
import { git, type Workspace, workspace } from '../../testkit/ws.js'

const wtDir = (ws: Workspace, name: string) => path.join(ws.root, '.dacli', 'worktrees', name)

async function twoTasks(): Promise<Workspace> {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'First thing', '--project', 'alpha', '--accept', 'it works')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Second thing', '--project', 'alpha', '--accept', 'also')).expectExit(0)
  commitStore(ws)
  ;(await ws.dacli('worktree', 'add', 'alpha/1')).expectExit(0)
  ;(await ws.dacli('worktree', 'add', 'alpha/2')).expectExit(0)
  return ws
}

/** A commit in the worktree `dir` that no other branch holds. */
function unlandedCommit(dir: string): void {
  fs.writeFileSync(path.join(dir, 'f.txt'), 'x\n')
  git(dir, 'add', 'f.txt')
  git(dir, 'commit', '-q', '-m', 'unlanded work')
}

describe('the worktree of a removed task', () => {
  test('task rm says it stays; worktree remove still removes it, and again is unchanged', async () => {
    const ws = await twoTasks()
    const dir = wtDir(ws, 'alpha-001-first-thing')
    const rm = (await ws.dacli('task', 'rm', 'alpha/1')).expectExit(0)
    expect(rm.stderr).toContain('its worktree stays at .dacli/worktrees/alpha-001-first-thing')
    expect(rm.stderr).toContain('dacli worktree remove alpha/001-first-thing')
    const tomb = '.dacli/projects/alpha/tasks/removed/001-first-thing.md'
    const before = ws.file(tomb)
    const doc = (await ws.dacli('worktree', 'remove', 'alpha/1', '--json')).expectExit(0).json
    expect(doc).toMatchObject({ outcome: 'removed', branch: 'dacli/alpha-001-first-thing', branch_deleted: true })
    expect(fs.existsSync(dir)).toBe(false)
    expect(git(ws.root, 'branch', '--list', 'dacli/alpha-001-first-thing')).toBe('')
    expect(ws.file(tomb)).toBe(before)
    const snap = ws.snapshot()
    expect((await ws.dacli('worktree', 'remove', 'alpha/1', '--json')).expectExit(0).json).toMatchObject({
      outcome: 'unchanged',
      branch: '',
    })
    expect((await ws.dacli('worktree', 'remove', 'alpha/1')).expectExit(0).stdout).not.toContain('is kept')
    expect(ws.snapshot()).toEqual(snap)
  })

  test('worktree remove keeps its safety checks: unlanded commits are refused (3)', async () => {
    const ws = await twoTasks()
    const dir = wtDir(ws, 'alpha-001-first-thing')
    unlandedCommit(dir)
    ;(await ws.dacli('task', 'rm', 'alpha/1')).expectExit(0)
    const before = ws.snapshot()
    expect((await ws.dacli('worktree', 'remove', 'alpha/1', '--json')).expectExit(3).error.message).toContain(
      'unlanded work',
    )
    expect(ws.snapshot()).toEqual(before)
  })

  test('prune removes a removed task’s clean, landed worktree and keeps one with unlanded commits', async () => {
    const ws = await twoTasks()
    const two = wtDir(ws, 'alpha-002-second-thing')
    unlandedCommit(two)
    ;(await ws.dacli('task', 'rm', 'alpha/1')).expectExit(0)
    ;(await ws.dacli('task', 'rm', 'alpha/2')).expectExit(0)
    const doc = (await ws.dacli('worktree', 'prune', '--json')).expectExit(0).json
    expect(doc.removed).toEqual([expect.objectContaining({ task: 'alpha/001-first-thing', branch_deleted: true })])
    expect(doc.kept).toEqual([
      expect.objectContaining({ task: 'alpha/002-second-thing', reason: '1 commit not on main' }),
    ])
    expect(fs.existsSync(wtDir(ws, 'alpha-001-first-thing'))).toBe(false)
    expect(fs.existsSync(two)).toBe(true)
  })

  test('cleanup plans and removes a removed task’s clean, landed worktree; one with unlanded commits stays', async () => {
    const ws = await twoTasks()
    const two = wtDir(ws, 'alpha-002-second-thing')
    unlandedCommit(two)
    ;(await ws.dacli('task', 'rm', 'alpha/1')).expectExit(0)
    ;(await ws.dacli('task', 'rm', 'alpha/2')).expectExit(0)
    const plan = (await ws.dacli('cleanup', '--json')).expectExit(0).json
    const wts = plan.candidates.filter((c: { kind: string }) => c.kind === 'finished_worktree')
    expect(wts).toEqual([
      expect.objectContaining({
        subject: '.dacli/worktrees/alpha-001-first-thing',
        reason: expect.stringContaining('alpha/001-first-thing was removed'),
      }),
    ])
    ;(await ws.dacli('cleanup', '--apply-safe', plan.plan_id, '--json')).expectExit(0)
    expect(fs.existsSync(wtDir(ws, 'alpha-001-first-thing'))).toBe(false)
    expect(git(ws.root, 'branch', '--list', 'dacli/alpha-001-first-thing')).toBe('')
    expect(fs.existsSync(two)).toBe(true)
  })

  test('project rm says which worktrees stay', async () => {
    const ws = await twoTasks()
    ;(await ws.dacli('task', 'rm', 'alpha/2')).expectExit(0)
    const rm = (await ws.dacli('project', 'rm', 'alpha', '--force')).expectExit(0)
    expect(rm.stderr).toContain('the worktree of alpha/001-first-thing stays at .dacli/worktrees/alpha-001-first-thing')
    expect(rm.stderr).toContain(
      'the worktree of alpha/002-second-thing stays at .dacli/worktrees/alpha-002-second-thing',
    )
  })

  test('project rm names no worktree already removed (its tombstone still says worktree:)', async () => {
    const ws = await twoTasks()
    ;(await ws.dacli('task', 'rm', 'alpha/2')).expectExit(0)
    ;(await ws.dacli('worktree', 'remove', 'alpha/2')).expectExit(0)
    const rm = (await ws.dacli('project', 'rm', 'alpha', '--force')).expectExit(0)
    expect(rm.stderr).toContain('the worktree of alpha/001-first-thing stays at')
    expect(rm.stderr).not.toContain('alpha-002-second-thing')
  })
})
