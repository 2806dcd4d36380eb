// A task worktree whose work reached trunk in another form — a squash or rebase merge (what `pr land --method
// squash` does) — is finished: `task done` accepts that landing, and `worktree prune` and `worktree remove` judge
// it the same way, removing the worktree and deleting its branch instead of keeping them forever.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { alphaWorktree } from '../../testkit/coordination.js'
import { git, type Workspace } from '../../testkit/ws.js'

const NAME = 'alpha-001-first-thing'
const BRANCH = `dacli/${NAME}`

async function squashed(): Promise<{ ws: Workspace; dir: string; file: string }> {
  const { ws, dir } = await alphaWorktree()
  fs.writeFileSync(path.join(dir, 'feature.txt'), 'work\n')
  git(dir, 'add', 'feature.txt')
  git(dir, 'commit', '-q', '-m', 'add feature')
  // Trunk gets the same change as a new commit (a squash merge), never the branch's own commit.
  git(ws.root, 'merge', '-q', '--squash', BRANCH)
  git(ws.root, 'commit', '-q', '-m', 'First thing (#1)')
  const tip = git(ws.root, 'rev-parse', BRANCH).trim()
  expect(() => git(ws.root, 'merge-base', '--is-ancestor', tip, 'main')).toThrow()
  ;(await ws.dacli('task', 'check', 'alpha/1', '--all')).expectExit(0)
  const done = (await ws.dacli('task', 'done', 'alpha/1')).expectExit(0)
  // The close says where the worktree it leaves behind is, and what removes it.
  expect(done.stdout).toContain(
    `its worktree stays at .dacli/worktrees/${NAME}: dacli worktree remove alpha/001-first-thing`,
  )
  return { ws, dir, file: path.join(ws.root, '.dacli', 'projects', 'alpha', 'tasks', 'done', '001-first-thing.md') }
}

describe('worktrees of squash-landed tasks', () => {
  test('prune removes the worktree, deletes its branch and the task forgets it (the dry run says so first)', async () => {
    const { ws, dir, file } = await squashed()
    const dry = (await ws.dacli('worktree', 'prune', '--dry-run', '--json')).expectExit(0).json
    expect(dry.kept).toEqual([])
    expect(dry.removed).toEqual([
      expect.objectContaining({ task: 'alpha/001-first-thing', branch: BRANCH, branch_deleted: true }),
    ])
    expect(fs.existsSync(dir)).toBe(true)
    const r = (await ws.dacli('worktree', 'prune', '--json')).expectExit(0).json
    expect(r.removed).toEqual([expect.objectContaining({ task: 'alpha/001-first-thing', branch_deleted: true })])
    expect(fs.existsSync(dir)).toBe(false)
    expect(git(ws.root, 'branch', '--list', BRANCH).trim()).toBe('')
    // On disk: the done task no longer names the worktree.
    expect(fs.readFileSync(file, 'utf8')).not.toMatch(/^worktree:/m)
  })

  test('remove deletes the squash-landed branch too', async () => {
    const { ws, dir } = await squashed()
    const r = (await ws.dacli('worktree', 'remove', 'alpha/1', '--json')).expectExit(0).json
    expect(r.branch_deleted).toBe(true)
    expect(fs.existsSync(dir)).toBe(false)
    expect(git(ws.root, 'branch', '--list', BRANCH).trim()).toBe('')
  })
})
