// A task whose worktree was removed keeps its unlanded branch in `branch:` (FORMAT.md), and a close is refused
// until it lands: task/v1 shows that branch, so an agent can see why (COMPATIBILITY.md).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { git, workspace } from '../../testkit/ws.js'

test('task show: a kept branch (branch:) is in task/v1 and in the human view; null without one', async () => {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  await ws.ok('project', 'add', 'a')
  const ref = (await ws.dacli('task', 'add', 'Fix', '--project', 'a', '--accept', 'works', '--json')).expectExit(0).json
    .ref
  const before = (await ws.dacli('task', 'show', ref, '--json')).expectExit(0).json
  expectValid(before)
  expect(before.branch).toBeNull()
  await ws.ok('task', 'claim', ref)
  const added = (await ws.dacli('worktree', 'add', ref, '--branch', 'dacli/kept-fix', '--json')).expectExit(0).json
  const dir = path.resolve(ws.root, added.path)
  fs.writeFileSync(path.join(dir, 'f.txt'), 'f\n')
  git(dir, 'add', 'f.txt')
  git(dir, 'commit', '-q', '-m', 'work on fix')
  await ws.ok('worktree', 'remove', ref, '--force')
  const d = (await ws.dacli('task', 'show', ref, '--json')).expectExit(0).json
  expectValid(d)
  expect(d.worktree).toBeNull()
  expect(d.branch).toBe('dacli/kept-fix')
  expect((await ws.ok('task', 'show', ref)).stdout).toMatch(/branch: +dacli\/kept-fix/)
})
