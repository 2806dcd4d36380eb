// `worktree remove --force` never loses a commit: work committed on a detached HEAD in the worktree, which no
// branch holds, makes even a forced remove refuse (3), naming the commit, and change nothing.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { alphaWorktree } from '../../testkit/coordination.js'
import { git } from '../../testkit/ws.js'

const _NAME = 'alpha-001-first-thing'

describe('worktree remove --force and a detached HEAD', () => {
  test('commits no branch holds are refused (3), nothing changed; once on a branch, --force removes it', async () => {
    const { ws, dir } = await alphaWorktree()
    git(dir, 'checkout', '-q', '--detach')
    fs.writeFileSync(path.join(dir, 'w.txt'), 'w\n')
    git(dir, 'add', 'w.txt')
    git(dir, 'commit', '-q', '-m', 'precious work')
    const sha = git(dir, 'rev-parse', 'HEAD').trim()
    fs.writeFileSync(path.join(dir, 'scratch.txt'), 'uncommitted\n')
    const before = ws.snapshot()
    const refused = (await ws.dacli('worktree', 'remove', 'alpha/1', '--force', '--json')).expectExit(3)
    expect(refused.error.message).toContain('precious work')
    expect(refused.error.details).toMatchObject({ head: sha, commits: [expect.stringContaining('precious work')] })
    expect(ws.snapshot()).toEqual(before)
    expect(fs.existsSync(path.join(dir, 'w.txt'))).toBe(true)
    // Kept on a branch, the commit is safe: --force removes the worktree, and the commit stays reachable.
    git(dir, 'branch', 'keep-me')
    const forced = (await ws.dacli('worktree', 'remove', 'alpha/1', '--force', '--json')).expectExit(0).json
    expect(forced).toMatchObject({ action: 'remove', outcome: 'removed' })
    expect(fs.existsSync(dir)).toBe(false)
    expect(git(ws.root, 'log', '--all', '--format=%s')).toContain('precious work')
  })
})
