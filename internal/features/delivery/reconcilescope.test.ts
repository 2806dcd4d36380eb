// reconcile --project P takes the branches and worktrees without a task that name exactly P: project `a` never
// takes `a-b`'s `dacli/a-b-001-…` branch or `.dacli/worktrees/a-b-001-…` worktree, whatever the folder's path.

import * as path from 'node:path'
import { expect, test } from 'vitest'
import { git, workspace } from '../../testkit/ws.js'

test('--project a lists no leftover of project a-b; --project a-b does', async () => {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  await ws.ok('project', 'add', 'a')
  await ws.ok('project', 'add', 'a-b')
  git(ws.root, 'branch', 'dacli/a-b-007-gone')
  git(ws.root, 'worktree', 'add', '-q', '-b', 'other/gone', path.join(ws.root, '.dacli', 'worktrees', 'a-b-008-gone'))
  const leftovers = (j: { findings: { class: string; subject: string }[] }) =>
    j.findings.filter((f) => f.class === 'branch_without_task' || f.class === 'worktree_without_task')
  const a = (await ws.dacli('reconcile', '--project', 'a', '--json')).expectExit(0).json
  expect(leftovers(a)).toEqual([])
  const ab = (await ws.dacli('reconcile', '--project', 'a-b', '--json')).expectExit(0).json
  expect(leftovers(ab).map((f) => f.subject)).toEqual(['dacli/a-b-007-gone', '.dacli/worktrees/a-b-008-gone'])
})

test('the record branch is the workspace’s journal, never a branch without a task', async () => {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  await ws.ok('project', 'add', 'a')
  await ws.ok('record')
  git(ws.root, 'branch', 'dacli/a-009-gone')
  const j = (await ws.dacli('reconcile', '--json')).expectExit(0).json
  const subjects = j.findings
    .filter((f: { class: string }) => f.class === 'branch_without_task')
    .map((f: { subject: string }) => f.subject)
  expect(subjects).toEqual(['dacli/a-009-gone'])
})

test('a plan applied with other flags than its preview is 5 saying so, its next action the preview as now given', async () => {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  await ws.ok('project', 'add', 'a')
  await ws.ok('project', 'add', 'b')
  git(ws.root, 'branch', 'dacli/b-009-gone')
  const plan = (await ws.dacli('reconcile', '--project', 'a', '--json')).expectExit(0).json.plan_id
  const before = ws.snapshot()
  const r = (await ws.dacli('reconcile', '--apply-safe', plan, '--project', 'b', '--json')).expectExit(5)
  expect(r.error.message).toContain('or it was printed with other flags than these')
  expect(r.error.next_actions).toEqual(['dacli reconcile --project b'])
  expect(ws.snapshot()).toEqual(before)
  ;(await ws.dacli('reconcile', '--apply-safe', plan, '--project', 'a', '--json')).expectExit(0)
})
