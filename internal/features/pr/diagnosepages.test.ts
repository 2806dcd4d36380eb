// pr diagnose reads every page of a pull request's reviews, check runs and commit statuses (the fake serves
// GitHub's pages with a `Link` header): a long-lived pull request is judged on its latest review and its last check,
// not its first page.

import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { expectValid } from '../../testkit/schemas.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

test('a failing check run and a change request past the first hundred are seen', async () => {
  w = await deliveryWorkspace()
  const ref = await w.task('Long lived')
  const { dir, branch } = await w.worktree(ref)
  w.commit(dir, 'long.txt', 'long\n')
  w.push(dir, branch)
  const p = w.gh.addPull(REPO, { title: 'Long lived', head: branch })
  const diag = async () => {
    const r = (await w.run('pr', 'diagnose', ref, '--json')).expectExit(0)
    expectValid(r.json)
    return r.json
  }
  const passing = Array.from({ length: 120 }, (_, i) => ({
    name: `lint-${i}`,
    status: 'completed' as const,
    conclusion: 'success' as const,
  }))
  w.gh.setChecks(REPO, branch, [...passing, { name: 'e2e', status: 'completed', conclusion: 'failure' }])
  const failed = await diag()
  expect(failed.code).toBe('checks_failed')
  expect(failed.evidence).toContainEqual(expect.objectContaining({ name: 'e2e' }))

  w.gh.setChecks(REPO, branch, passing)
  for (let i = 0; i < 110; i++) w.gh.review(REPO, p.number, 'alice', 'COMMENTED')
  w.gh.review(REPO, p.number, 'bob', 'CHANGES_REQUESTED')
  const changes = await diag()
  expect(changes.code).toBe('changes_requested')
  expect(changes.reviews.changes_requested).toEqual(['bob'])
  expect(w.gh.writes()).toEqual([])
})

test('a failing commit status past the first page is seen', async () => {
  w = await deliveryWorkspace()
  const ref = await w.task('Many statuses')
  const { dir, branch } = await w.worktree(ref)
  w.commit(dir, 'many.txt', 'many\n')
  w.push(dir, branch)
  w.gh.addPull(REPO, { title: 'Many statuses', head: branch })
  const ok = Array.from({ length: 130 }, (_, i) => ({ context: `ci/${i}`, state: 'success' as const }))
  w.gh.setStatuses(REPO, branch, [...ok, { context: 'deploy/preview', state: 'failure' }])
  const r = (await w.run('pr', 'diagnose', ref, '--json')).expectExit(0)
  expectValid(r.json)
  expect(r.json.code).toBe('checks_failed')
  expect(r.json.evidence).toContainEqual(expect.objectContaining({ name: 'deploy/preview' }))
})
