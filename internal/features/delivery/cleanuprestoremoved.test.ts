// cleanup --restore puts a worktree back only on its branch at the commit it had: a branch since moved to another
// commit (its restore refused, "left alone") leaves the worktree unrestored too, reported failed, exit 1.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { finishedWorktree } from '../../testkit/deliveryws.js'
import { git, workspace } from '../../testkit/ws.js'

test('a worktree whose branch was moved to another commit is not restored onto it', async () => {
  const ws = await workspace()
  const { dir, branch } = await finishedWorktree(ws, 'a.txt', 'work\n')
  const plan = (await ws.ok('cleanup', '--json')).json
  const applied = (await ws.ok('cleanup', '--apply-safe', plan.plan_id, '--json')).json
  expect(fs.existsSync(dir)).toBe(false)
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'unrelated later work')
  git(ws.root, 'branch', branch, 'HEAD') // the name reused at another commit
  const foreign = git(ws.root, 'rev-parse', branch).trim()

  const r = (await ws.dacli('cleanup', '--restore', path.basename(applied.artifact), '--json')).expectExit(1)
  const by = Object.fromEntries(r.json.outcomes.map((o: { kind: string }) => [o.kind, o]))
  expect(by.merged_branch.outcome).toBe('failed')
  expect(by.finished_worktree.outcome).toBe('failed')
  expect(by.finished_worktree.detail).toContain('another commit')
  expect(fs.existsSync(dir)).toBe(false)
  expect(git(ws.root, 'worktree', 'list', '--porcelain')).not.toContain(dir)
  expect(git(ws.root, 'rev-parse', branch).trim()).toBe(foreign)
})
