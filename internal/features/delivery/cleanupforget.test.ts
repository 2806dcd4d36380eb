// cleanup --apply-safe removing a finished worktree makes its task forget it (as `worktree prune` does), so the task
// file never names a deleted folder; --restore puts the worktree back and the task names it again.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { finishedWorktree } from '../../testkit/deliveryws.js'
import { workspace } from '../../testkit/ws.js'

test('the task forgets the worktree cleanup removed, and names it again once restored', async () => {
  const ws = await workspace()
  const { dir, ...wt } = await finishedWorktree(ws, 'shim.txt', 'shim\n')
  const file = path.join(ws.root, '.dacli', 'projects', 'ledger', 'tasks', 'done', '001-shim.md')
  const rel = '.dacli/worktrees/ledger-001-shim'
  const line = `worktree: {path: ${rel}, branch: ${wt.branch}}`
  expect(fs.readFileSync(file, 'utf8')).toContain(line)

  const plan = (await ws.dacli('cleanup', '--json')).expectExit(0).json
  expect(plan.candidates.map((c: { kind: string }) => c.kind)).toContain('finished_worktree')
  const applied = (await ws.dacli('cleanup', '--apply-safe', plan.plan_id, '--json')).expectExit(0).json
  expect(fs.existsSync(dir)).toBe(false)
  // On disk: the task no longer names the deleted folder, and its log says it was removed.
  const after = fs.readFileSync(file, 'utf8')
  expect(after).not.toMatch(/^worktree:/m)
  expect(after).toMatch(/ worktree removed \.dacli\/worktrees\/ledger-001-shim$/m)
  expect((await ws.dacli('task', 'show', 'ledger/1', '--json')).expectExit(0).json.worktree).toBeNull()

  ;(await ws.dacli('cleanup', '--restore', path.basename(applied.artifact), '--json')).expectExit(0)
  expect(fs.existsSync(path.join(dir, 'shim.txt'))).toBe(true)
  expect(fs.readFileSync(file, 'utf8')).toContain(line)
  expect((await ws.dacli('task', 'show', 'ledger/1', '--json')).expectExit(0).json.worktree).toEqual({
    path: rel,
    branch: wt.branch,
  })
})
