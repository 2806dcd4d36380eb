// cleanup never deletes a merged task branch that a worktree staying behind has checked out (a worktree kept for
// its changes, or the main work tree): that worktree's HEAD would name a branch that is gone.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { git, type Workspace, workspace } from '../../testkit/ws.js'

const BRANCH = 'dacli/ledger-001-shim'

/** A done task whose worktree's one commit is on main. */
async function finished(): Promise<{ ws: Workspace; wt: string }> {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Shim', '--project', 'ledger', '--accept', 'x')
  const wt = (await ws.ok('worktree', 'add', 'ledger/1', '--json')).json.path as string
  fs.writeFileSync(path.join(wt, 'a.txt'), 'work\n')
  git(wt, 'add', 'a.txt')
  git(wt, 'commit', '-q', '-m', 'a')
  git(ws.root, 'merge', '-q', '--ff-only', BRANCH)
  await ws.ok('task', 'check', 'ledger/1', '--all')
  await ws.ok('task', 'done', 'ledger/1')
  return { ws, wt }
}

const kinds = (plan: { candidates: { kind: string; subject: string }[] }) =>
  plan.candidates.map((c) => `${c.kind} ${c.subject}`)

test('a worktree kept for its changes keeps its branch: neither is a candidate and applying leaves both', async () => {
  const { ws, wt } = await finished()
  fs.writeFileSync(path.join(wt, 'notes.txt'), 'uncommitted\n')
  const plan = (await ws.ok('cleanup', '--json')).json
  expect(kinds(plan)).toEqual([])
  await ws.ok('cleanup', '--apply-safe', plan.plan_id, '--json')
  expect(git(ws.root, 'rev-parse', '--verify', '-q', `refs/heads/${BRANCH}`).trim()).toMatch(/^[0-9a-f]{40}$/)
  expect(git(wt, 'symbolic-ref', 'HEAD').trim()).toBe(`refs/heads/${BRANCH}`)
  expect(git(ws.root, 'worktree', 'list')).not.toContain('0000000')
})

test('a branch checked out in the main work tree is not deleted; a clean finished worktree and its branch are', async () => {
  const { ws, wt } = await finished()
  const clean = (await ws.ok('cleanup', '--json')).json
  expect(kinds(clean)).toEqual([
    `finished_worktree ${path.relative(ws.root, wt)}`,
    `merged_branch refs/heads/${BRANCH}`,
  ])
  git(ws.root, 'worktree', 'remove', wt)
  git(ws.root, 'checkout', '-q', BRANCH)
  const plan = (await ws.ok('cleanup', '--json')).json
  expect(kinds(plan)).toEqual([])
  await ws.ok('cleanup', '--apply-safe', plan.plan_id, '--json')
  expect(git(ws.root, 'symbolic-ref', 'HEAD').trim()).toBe(`refs/heads/${BRANCH}`)
  expect(git(ws.root, 'rev-parse', '--verify', '-q', 'HEAD').trim()).toMatch(/^[0-9a-f]{40}$/)
})
