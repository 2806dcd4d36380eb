// The released delivery state: a release train's apply records each task whose landed work is on the target
// (`promoted <target> <commit>` in its log, once), and metrics/overview count it released, with the landed → released
// stage timed. Until a train recorded one, released is null, never 0.

import * as path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { expectValid } from '../../testkit/schemas.js'
import { git, type RunOpts } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

/** alpha's release train main → `target`, as typed (no --json unless given). */
const trainTo = (target: string, ...more: (string | RunOpts)[]) =>
  w.run('release', 'train', '--project', 'alpha', '--source', 'main', '--target', target, ...more)
const train = (...more: string[]) => trainTo('release', ...more, '--json')

/** alpha's delivery progress, as metrics and overview both give it (checked equal). */
async function progress() {
  const [m, o] = [
    (await w.ws.dacli('metrics', '--json')).expectExit(0).json,
    (await w.ws.dacli('overview', '--json')).expectExit(0).json,
  ]
  expectValid(m)
  const alpha = m.delivery.find((p: { project: string }) => p.project === 'alpha')
  expect(o.delivery.find((p: { project: string }) => p.project === 'alpha')).toEqual(alpha)
  return alpha
}

const fileOf = async (ref: string) => w.ws.file((await w.ws.dacli('task', 'show', ref, '--json')).json.path as string)
const promotedLines = (text: string) => text.split('\n').filter((l) => / promoted release /.test(l))

test('a merged promotion records its tasks released, once; metrics and overview count them, with the stage timed', async () => {
  w = await deliveryWorkspace()
  git(w.ws.root, 'push', '-q', 'origin', 'main:refs/heads/release')
  const a = await w.landed('Ship the shim')
  await w.task('Not landed yet')
  expect((await progress()).states).toEqual({ open: 1, claimed: 0, pr_open: 0, ready: null, landed: 1, released: null })

  const before = w.ws.snapshot()
  const dry = (await train('--dry-run')).expectExit(0)
  expect(dry.json.released).toEqual([])
  expect(w.ws.snapshot()).toEqual(before)
  const opened = (await train('--apply')).expectExit(0)
  expect(opened.json.released).toEqual([])
  expect(promotedLines(await fileOf(a))).toEqual([])

  const merged = (await train('--apply', '--merge')).expectExit(0)
  expectValid(merged.json)
  const sha = git(w.origin, 'rev-parse', 'release').trim()
  const number = merged.json.promotion.pr.number
  const id = (await w.ws.dacli('task', 'show', a, '--json')).json.id
  expect(merged.json).toMatchObject({ merged: sha, released: [{ id, ref: a, commit: sha }] })
  // The bytes on disk: one log line, the verb, the target, the commit and the pull request.
  const lines = promotedLines(await fileOf(a))
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(new RegExp(` promoted release ${sha} #${number}$`))
  const p = await progress()
  expect(p.states).toEqual({ open: 1, claimed: 0, pr_open: 0, ready: null, landed: 0, released: 1 })
  expect(p.lead_time.landed_to_released.samples).toBe(1)
  expect(p.lead_time.landed_to_released.median_seconds).toBeGreaterThanOrEqual(0)

  // Again: nothing to promote, nothing recorded twice.
  const again = (await train('--apply', '--merge')).expectExit(0)
  expect(again.json.released).toEqual([])
  expect(promotedLines(await fileOf(a))).toHaveLength(1)
  expect(w.gh.repo(REPO).pr.pulls.filter((x) => x.base === 'release')).toHaveLength(1)
})

test('work that reached the target outside dacli (a promotion merged on GitHub) is recorded by the next apply', async () => {
  w = await deliveryWorkspace()
  git(w.ws.root, 'push', '-q', 'origin', 'main:refs/heads/release')
  const a = await w.landed('Promoted by hand')
  // The promotion, merged elsewhere: origin's release branch now holds main.
  const main = git(w.origin, 'rev-parse', 'main').trim()
  git(w.origin, 'update-ref', 'refs/heads/release', main)
  const dry = (await train('--dry-run')).expectExit(0)
  expect(dry.json).toMatchObject({ tasks: [], released: [] })
  expect(promotedLines(await fileOf(a))).toEqual([])
  w.gh.resetCalls()
  const human = (await trainTo('release', '--apply')).expectExit(0)
  expect(human.stdout).toContain(`released: ${a} (on release at ${main.slice(0, 12)})`)
  expect(w.gh.writes()).toEqual([])
  expect(promotedLines(await fileOf(a))[0]).toMatch(new RegExp(` promoted release ${main}$`))
  expect((await progress()).states).toMatchObject({ landed: 0, released: 1 })
  const r = (await train('--apply')).expectExit(0)
  expect(r.json).toMatchObject({ released: [], promotion: { action: 'planned', pr: null } })
  expect(promotedLines(await fileOf(a))).toHaveLength(1)
})

test('reopened and landed again after a promotion: landed (not released) until the next train records the new work', async () => {
  w = await deliveryWorkspace()
  git(w.ws.root, 'push', '-q', 'origin', 'main:refs/heads/release')
  const a = await w.landed('Ship one')
  ;(await train('--apply', '--merge')).expectExit(0)
  expect((await progress()).states).toMatchObject({ landed: 0, released: 1 })
  ;(await w.ws.dacli('task', 'reopen', a, '--reason', 'a regression')).expectExit(0)
  // Reopened: nothing of alpha is released now, but a train did record a promotion here: 0, not null.
  expect((await progress()).states).toMatchObject({ pr_open: 1, landed: 0, released: 0 })
  const t = (await w.ws.dacli('task', 'show', a, '--json')).json
  const dir = path.resolve(w.ws.root, t.worktree.path)
  git(dir, 'fetch', '-q', 'origin')
  git(dir, 'merge', '-q', 'origin/main')
  w.commit(dir, 'fix.txt', 'fix\n', 'Fix the regression')
  ;(await w.run('pr', 'open', a)).expectExit(0)
  ;(await w.ws.dacli('task', 'check', a, '--all')).expectExit(0)
  ;(await w.run('pr', 'land', a)).expectExit(0)
  // Its new landing is not on release: landed, and the train lists it again.
  expect((await progress()).states).toMatchObject({ landed: 1, released: 0 })
  const again = (await train('--apply', '--merge')).expectExit(0)
  const sha = git(w.origin, 'rev-parse', 'release').trim()
  expect(again.json.released).toMatchObject([{ ref: a, commit: sha }])
  expect(promotedLines(await fileOf(a))).toHaveLength(2)
  const p = await progress()
  expect(p.states).toMatchObject({ landed: 0, released: 1 })
  expect(p.lead_time.landed_to_released.samples).toBe(1)
})

test('one target however it is spelled: origin/release after release records nothing twice', async () => {
  w = await deliveryWorkspace()
  git(w.ws.root, 'push', '-q', 'origin', 'main:refs/heads/release')
  const a = await w.landed('Once')
  ;(await train('--apply', '--merge')).expectExit(0)
  const r = (await trainTo('origin/release', '--apply', '--json')).expectExit(0)
  expect(r.json.released).toEqual([])
  expect(promotedLines(await fileOf(a))).toHaveLength(1)
})

test('another identity’s task on the target is not recorded by this caller, and the human answer says so', async () => {
  w = await deliveryWorkspace()
  git(w.ws.root, 'push', '-q', 'origin', 'main:refs/heads/release')
  const a = await w.landed('Rooted')
  const file = (await w.ws.dacli('task', 'show', a, '--json')).json.path as string
  const text = w.ws.file(file)
  w.ws.write(
    file,
    /^owner:/m.test(text)
      ? text.replace(/^owner:.*$/m, 'owner: a-root')
      : text.replace(/^---\n/, '---\nowner: a-root\n'),
  )
  const bob = await w.ws.agent('rw', 'bob')
  const r = (await trainTo('release', '--apply', '--merge', { as: bob.token })).expectExit(0)
  expect(r.stdout).toContain(`on release, not recorded released: ${a} is another identity's task`)
  expect(promotedLines(await fileOf(a))).toEqual([])
  // Its owner's next apply records it.
  const mine = (await train('--apply')).expectExit(0)
  expect(mine.json.released).toMatchObject([{ ref: a }])
})
