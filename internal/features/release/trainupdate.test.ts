// release train --apply reusing the promotion pull request rewrites its body when the listing changed (a task landed
// on the source after it was opened): one PATCH of the pull request, action `updated`. The dry run still sends no
// write, and a body that already lists the train is left alone (action `reused`, no write).

import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { expectValid } from '../../testkit/schemas.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

const train = (...more: string[]) =>
  w.run('release', 'train', '--project', 'alpha', '--source', 'main', '--target', 'release', ...more, '--json')

test('a reused promotion pull request gets the listing of the tasks landed since it was opened', async () => {
  w = await deliveryWorkspace()
  git(w.ws.root, 'push', '-q', 'origin', 'main:refs/heads/release')
  await w.landed('Task six')
  const opened = (await train('--apply')).expectExit(0)
  expect(opened.json.promotion).toMatchObject({ action: 'opened', pr: { state: 'open' } })
  const number: number = opened.json.promotion.pr.number
  const first = w.gh.pull(REPO, number).body ?? ''
  expect(first).toContain('Task six')

  await w.landed('Task seven')
  w.gh.resetCalls()
  const dry = (await train('--dry-run')).expectExit(0)
  expect(dry.json.tasks.map((t: { title: string }) => t.title)).toEqual(['Task six', 'Task seven'])
  expect(dry.json.promotion).toMatchObject({ action: 'existing', pr: { number } })
  expect(w.gh.writes()).toEqual([])
  expect(w.gh.pull(REPO, number).body).toBe(first)

  const before = w.ws.snapshot()
  const updated = (await train('--apply')).expectExit(0)
  expectValid(updated.json)
  expect(updated.json.promotion).toMatchObject({ action: 'updated', pr: { number, state: 'open' } })
  expect(w.gh.writes().map((c) => `${c.method} ${c.path}`)).toEqual([`PATCH /repos/${REPO}/pulls/${number}`])
  const body = w.gh.pull(REPO, number).body ?? ''
  expect(body).toMatch(/^Promotes 2 task\(s\) of alpha from main to release:$/m)
  expect(body).toMatch(/^- Task six \(alpha\/1, [0-9a-f]{12}, #\d+\)$/m)
  expect(body).toMatch(/^- Task seven \(alpha\/2, [0-9a-f]{12}, #\d+\)$/m)
  expect(w.gh.repo(REPO).pr.pulls.filter((p) => p.base === 'release')).toHaveLength(1)
  // Nothing of the workspace changes: the pull request is GitHub's.
  expect(w.ws.snapshot()).toEqual(before)

  // Its body is the listing now: reused as it is, no write.
  w.gh.resetCalls()
  const again = (await train('--apply')).expectExit(0)
  expect(again.json.promotion).toMatchObject({ action: 'reused', pr: { number } })
  expect(w.gh.writes()).toEqual([])
  expect(w.gh.pull(REPO, number).body).toBe(body)
})
