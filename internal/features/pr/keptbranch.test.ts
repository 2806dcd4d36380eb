// A task whose worktree was removed keeps its unlanded branch in `branch:` (FORMAT.md): `pr open` opens the pull
// request from that branch, as it would from the worktree's, instead of saying the task has no branch.

import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

test('pr open after worktree remove: the kept branch (branch:) is the head', async () => {
  w = await deliveryWorkspace()
  const ref = await w.task('Keep my branch')
  const { dir, branch } = await w.worktree(ref)
  const sha = w.commit(dir, 'kept.txt', 'kept\n', 'kept work')
  w.push(dir, branch)
  ;(await w.ws.dacli('worktree', 'remove', ref)).expectExit(0)
  const t = (await w.ws.dacli('task', 'show', ref, '--json')).expectExit(0).json
  expect(t.worktree).toBeNull()
  expect(t.branch).toBe(branch)
  const r = (await w.run('pr', 'open', ref, '--json')).expectExit(0)
  expect(r.json).toMatchObject({ action: 'opened', pr: { head: branch, base: 'main', head_sha: sha } })
  expect(r.json.task.branch).toBe(branch) // the document names the branch the pull request came from
})

test('reconcile knows a merged pull request from a kept branch (branch:) as its task’s, with no marker to go by', async () => {
  w = await deliveryWorkspace()
  const ref = await w.task('Merged elsewhere')
  const { dir, branch } = await w.worktree(ref)
  const sha = w.commit(dir, 'kept.txt', 'kept\n', 'kept work')
  w.push(dir, branch)
  ;(await w.ws.dacli('worktree', 'remove', ref)).expectExit(0)
  expect((await w.ws.dacli('task', 'show', ref, '--json')).json.branch).toBe(branch)
  const pull = w.gh.addPull(REPO, { title: 'Merged elsewhere', head: branch })
  Object.assign(pull, { state: 'closed', merged: true, merged_at: new Date().toISOString(), merge_commit_sha: sha })
  const r = (await w.run('reconcile', '--json')).expectExit(0).json
  expect(r.findings.filter((f: { class: string }) => f.class === 'pr_merged_task_open')).toMatchObject([
    { subject: ref },
  ])
})
