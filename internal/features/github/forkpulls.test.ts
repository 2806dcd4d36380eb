// A fork's pull request from a branch named like a task's branch is not the task's: `github projection` and
// `release train` find a task's pull request by branch only when its head is in the repository itself.

import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

test("github projection does not show a fork's same-named pull request as the task's", async () => {
  w = await deliveryWorkspace()
  const ref = await w.task('Ours')
  const { branch } = await w.worktree(ref)
  Object.assign(w.gh.addPull(REPO, { title: 'Theirs', head: branch }), { headRepo: 'mallory/widgets' })
  const doc = (await w.run('github', 'projection', 'alpha', '--json')).expectExit(0).json
  expect(doc.items.find((i: { ref: string }) => i.ref === ref)?.pr).toBeNull()
})

test("release train lists a task with its own pull request, not a fork's same-named one", async () => {
  w = await deliveryWorkspace()
  git(w.ws.root, 'push', '-q', 'origin', 'main:refs/heads/release')
  const ref = await w.task('Ship it')
  const { dir, branch } = await w.worktree(ref)
  w.commit(dir, 'ship.txt', 'ship\n', 'Ship it')
  const own = (await w.run('pr', 'open', ref, '--json')).expectExit(0).json.pr.number as number
  ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
  ;(await w.run('pr', 'land', ref)).expectExit(0)
  Object.assign(w.gh.addPull(REPO, { title: 'Theirs', head: branch }), { headRepo: 'mallory/widgets' })
  const args = ['--project', 'alpha', '--source', 'main', '--target', 'release', '--dry-run', '--json']
  const plan = (await w.run('release', 'train', ...args)).expectExit(0).json
  expect(plan.tasks).toMatchObject([{ ref, pr: { number: own } }])
})
