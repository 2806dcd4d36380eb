// A reused pull request and the task's branch here: commits made since it was opened are pushed when it is opened
// again, and a pull request whose head lacks some is never landed (the task would close without them).

import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { expectValid } from '../../testkit/schemas.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

async function opened(title: string) {
  const ref = await w.task(title)
  const { dir, branch } = await w.worktree(ref)
  w.commit(dir, 'first.txt', 'first\n', 'first half')
  const pr = (await w.run('pr', 'open', ref, '--json')).expectExit(0).json.pr.number as number
  return { ref, dir, branch, pr }
}

test('pr open again pushes what the branch gained since; pr land refuses a head without it, then lands it', async () => {
  w = await deliveryWorkspace()
  const { ref, dir, branch, pr } = await opened('Two halves')
  const second = w.commit(dir, 'second.txt', 'second\n', 'second half')
  ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
  // Not pushed yet: landing now would close the task with the second half on no trunk.
  const before = w.ws.snapshot()
  w.gh.resetCalls()
  const refused = (await w.run('pr', 'land', ref, '--json')).expectExit(3)
  expect(refused.error.details).toMatchObject({ policy: 'unlanded', pr, branch })
  expect(refused.error.details.missing.map((c: { sha: string }) => c.sha)).toEqual([second])
  expect(refused.error.message).toContain('nothing was merged')
  expect(w.gh.writes()).toEqual([])
  expect(w.ws.snapshot()).toEqual(before)
  expect(w.gh.pull(REPO, pr).merged).toBe(false)
  // Opened again: the same pull request, the branch pushed to it.
  const again = (await w.run('pr', 'open', ref, '--json')).expectExit(0)
  expectValid(again.json)
  expect(again.json).toMatchObject({ action: 'reused', pushed: 'pushed', pr: { number: pr, head_sha: second } })
  expect(git(w.origin, 'rev-parse', branch).trim()).toBe(second)
  expect(w.gh.repo(REPO).pr.pulls).toHaveLength(1)
  const landed = (await w.run('pr', 'land', ref, '--json')).expectExit(0)
  expect(landed.json).toMatchObject({ action: 'merged', task_status: 'done' })
})

test('pr open --base other than the open pull request’s is 5, nothing written; a branch that is not here is 4', async () => {
  w = await deliveryWorkspace()
  const { ref } = await opened('Against main')
  w.gh.resetCalls()
  const before = w.ws.snapshot()
  const r = (await w.run('pr', 'open', ref, '--base', 'release', '--json')).expectExit(5)
  expect(r.error.details).toMatchObject({ base: 'main', asked: 'release' })
  expect(w.gh.writes()).toEqual([])
  expect(w.ws.snapshot()).toEqual(before)
  const other = await w.task('No such branch')
  const missing = (await w.run('pr', 'open', other, '--branch', 'does-not-exist', '--json')).expectExit(4)
  expect(missing.error.message).toContain('no branch does-not-exist')
  expect(w.gh.writes()).toEqual([])
})

test('pr open --branch with an open pull request: a branch that is not here is 4, another branch 5, nothing written', async () => {
  w = await deliveryWorkspace()
  const { ref, branch, pr } = await opened('Already open')
  git(w.ws.root, 'branch', 'other-work', 'main')
  const before = w.ws.snapshot()
  const origin = git(w.origin, 'for-each-ref').trim()
  w.gh.resetCalls()
  for (const dry of [[], ['--dry-run']]) {
    const missing = (await w.run('pr', 'open', ref, '--branch', 'does-not-exist', ...dry, '--json')).expectExit(4)
    expect(missing.error.message).toContain('no branch does-not-exist')
    const other = (await w.run('pr', 'open', ref, '--branch', 'other-work', ...dry, '--json')).expectExit(5)
    expect(other.error.details).toMatchObject({ pr, head: branch, asked: 'other-work' })
  }
  expect(w.gh.writes()).toEqual([])
  expect(w.ws.snapshot()).toEqual(before)
  expect(git(w.origin, 'for-each-ref').trim()).toBe(origin)
  // Its own branch named is the same as none.
  const same = (await w.run('pr', 'open', ref, '--branch', branch, '--json')).expectExit(0)
  expect(same.json).toMatchObject({ action: 'reused', pr: { number: pr } })
})
