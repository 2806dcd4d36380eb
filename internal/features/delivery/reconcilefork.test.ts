// reconcile finds a task's pull request by branch name only when the head branch is in the repository itself: a
// fork's merged pull request from a branch of the same name is not the task's, so it is no pr_merged_task_open
// finding and --apply-safe never closes the task over it.

import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

test("a fork's merged pull request from a same-named branch does not mark the task", async () => {
  w = await deliveryWorkspace()
  const root = w.ws.root
  const ref = await w.task('Ours, not yet done')
  const { branch } = await w.worktree(ref)
  ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
  // The fork's work, merged on trunk as its pull request's merge commit.
  const merged = w.commit(root, 'fork.txt', 'fork\n', "Mallory's change")
  git(root, 'push', '-q', 'origin', 'main')
  const fork = w.gh.addPull(REPO, { title: "Mallory's change", head: branch })
  Object.assign(fork, {
    headRepo: 'mallory/widgets',
    state: 'closed',
    merged: true,
    merged_at: new Date().toISOString(),
    merge_commit_sha: merged,
  })
  const r = (await w.run('reconcile', '--json')).expectExit(0).json
  expect(r.findings.filter((f: { class: string }) => f.class === 'pr_merged_task_open')).toEqual([])

  // The same pull request from the repository's own branch is the task's.
  delete fork.headRepo
  const own = (await w.run('reconcile', '--json')).expectExit(0).json
  expect(own.findings.filter((f: { class: string }) => f.class === 'pr_merged_task_open')).toMatchObject([
    { subject: ref, safe: true },
  ])
})
