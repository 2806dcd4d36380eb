// release train --apply --merge while something blocks the promotion: the promotion pull request is opened (or
// reused) but not merged, and that is a refusal (exit 3, policy promotion_blocked) with the plan still printed —
// never an exit 0 a script would read as promoted. Once the blockers clear, the same command merges (0).

import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { expectValid } from '../../testkit/schemas.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

const train = (...more: string[]) =>
  w.run('release', 'train', '--project', 'alpha', '--source', 'main', '--target', 'release', ...more)

test('a blocked --merge is 3 with the plan on stdout and nothing merged; unblocked, it merges', async () => {
  w = await deliveryWorkspace()
  git(w.ws.root, 'push', '-q', 'origin', 'main:refs/heads/release')
  const ref = await w.task('Ship the shim')
  const { dir, branch } = await w.worktree(ref)
  w.commit(dir, 'shim.txt', 'shim\n', 'Ship the shim')
  ;(await w.run('pr', 'open', ref)).expectExit(0)
  ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
  ;(await w.run('pr', 'land', ref)).expectExit(0)
  expect(branch).toMatch(/^dacli\//)
  const release = git(w.origin, 'rev-parse', 'release').trim()

  const plan = (await train('--dry-run', '--required-reviews', '1', '--json')).expectExit(0)
  expect(plan.json.blockers).toEqual(['0 of 1 required approval(s) (no promotion pull request yet)'])
  const r = (await train('--apply', '--merge', '--required-reviews', '1', '--json')).expectExit(3)
  expectValid(r.json)
  expect(r.json.merged).toBeNull()
  // The pull request this run opened is named, not said to be missing.
  expect(r.json.blockers).toEqual([`0 of 1 required approval(s) on #${r.json.promotion.pr.number}`])
  expect(r.json.promotion).toMatchObject({ action: 'opened', pr: { state: 'open', merged: false } })
  expect(git(w.origin, 'rev-parse', 'release').trim()).toBe(release)

  const human = (await train('--apply', '--merge', '--required-reviews', '1')).expectExit(3)
  expect(human.stdout).toContain('blocked: 0 of 1 required approval(s)')
  expect(human.stdout).toContain(`not merged: #${r.json.promotion.pr.number} is blocked`)
  expect(human.stderr).toContain('--apply --merge --required-reviews 1')

  // Without --merge, opening (or reusing) the promotion is all that was asked: 0.
  expect((await train('--apply', '--required-reviews', '1', '--json')).expectExit(0).json.merged).toBeNull()

  const number = r.json.promotion.pr.number
  w.gh.review(REPO, number, 'carol', 'APPROVED')
  const merged = (await train('--apply', '--merge', '--required-reviews', '1', '--json')).expectExit(0)
  expect(merged.json.merged).toBe(git(w.origin, 'rev-parse', 'release').trim())
})
