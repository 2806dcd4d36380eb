// cleanup --apply-safe removes a finished worktree, then makes its task forget it under the task's lock. When that
// lock cannot be had (another process holds it), the worktree is gone all the same: it is reported removed (with why
// the task still names it), and the merged branch is deleted as planned, not kept as if the worktree had stayed.

import * as fs from 'node:fs'
import * as os from 'node:os'
import { expect, test } from 'vitest'
import { finishedWorktree } from '../../testkit/deliveryws.js'
import { workspace } from '../../testkit/ws.js'

test('a task locked by another process while its worktree is removed: reported removed, its branch deleted', async () => {
  const ws = await workspace()
  const { dir, branch } = await finishedWorktree(ws, 'shim.txt', 'shim\n')
  const id = (await ws.ok('task', 'show', 'ledger/1', '--json')).json.id
  const plan = ws.spawn(['cleanup', '--json']).expectExit(0).json
  // A live holder (this test's own process) keeps the task's lock for the whole apply.
  ws.write(
    `.dacli/locks/task-${id}.lock`,
    `${JSON.stringify({ pid: process.pid, started: null, host: os.hostname(), token: 'x', time: new Date().toISOString(), scope: `task-${id}` })}\n`,
  )
  const applied = ws.spawn(['cleanup', '--apply-safe', plan.plan_id, '--json']).expectExit(0).json
  const byKind = Object.fromEntries(
    applied.outcomes.map((o: { kind: string; outcome: string; detail: string }) => [o.kind, o]),
  )
  expect(fs.existsSync(dir)).toBe(false)
  expect(byKind.finished_worktree).toMatchObject({ outcome: 'removed' })
  expect(byKind.finished_worktree.detail).toMatch(/^worktree removed; its task still names it \(/)
  expect(byKind.merged_branch).toMatchObject({ outcome: 'removed', detail: 'branch deleted' })
  expect(
    ws.spawn(['worktree', 'list', '--json']).json.worktrees.map((w: { branch: string }) => w.branch),
  ).not.toContain(branch)
}, 60_000)
