// Issue 14, the lifecycle: the removed state, reopen releasing the owner, link-type
// validation, attested ticks. Each test failed before its fix.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
const json = async (...a: string[]) => {
  const r = await ws.dacli(...a, '--json')
  if (r.code === 0) expectValid(r.json)
  return r
}

beforeEach(async () => {
  ws = await workspace()
  await ws.ok('project', 'add', 'Calc', '--slug', 'calc')
  await ws.ok('task', 'add', 'Add modulo function', '--project', 'calc', '--accept', 'mod works')
  await ws.ok('task', 'add', 'Add power function', '--project', 'calc', '--accept', 'pow works')
})

describe('6. removed is one state everywhere', () => {
  test('task rm says removed, its JSON says removed, and lists, show and other commands agree', async () => {
    const rm = (await json('task', 'rm', 'calc/2')).expectExit(0).json
    expect(rm.task).toMatchObject({
      status: 'removed',
      path: '.dacli/projects/calc/tasks/removed/002-add-power-function.md',
    })
    const tomb = '.dacli/projects/calc/tasks/removed/002-add-power-function.md'
    expect(ws.file(tomb)).toMatch(/^removed: \{by: a-root, at: \d{4}-/m)
    const human = await ws.dacli('task', 'rm', 'calc/1')
    expect(human.stdout).toMatch(
      /^removed calc\/001-add-modulo-function — a tombstone now \(.*removed\/001-add-modulo-function\.md\)/,
    )
    expect(human.stdout).not.toMatch(/now open/)
    // Lists: live statuses by default, tombstones when asked.
    expect((await json('task', 'list')).expectExit(0).json.total).toBe(0)
    const removed = (await json('task', 'list', '--status', 'removed')).expectExit(0).json
    expect(removed.tasks.map((t: { ref: string; status: string }) => `${t.ref} ${t.status}`)).toEqual([
      'calc/001-add-modulo-function removed',
      'calc/002-add-power-function removed',
    ])
    expect((await json('task', 'list', '--status', 'open', '--status', 'removed')).json.total).toBe(2)
    // show reads the tombstone; every other command says it was removed (4).
    expect((await json('task', 'show', 'calc/2')).expectExit(0).json).toMatchObject({ status: 'removed' })
    expect((await ws.dacli('task', 'show', 'calc/2')).stdout).toMatch(/calc\/002-add-power-function\s+removed/)
    const claim = (await json('task', 'claim', 'calc/2')).expectExit(4)
    expect(claim.error.message).toMatch(/calc\/002-add-power-function was removed by a-root at .*; its tombstone is/)
    expect(claim.error.details.removed).toMatchObject({ ref: 'calc/002-add-power-function', by: 'a-root' })
    expect(
      (await json('task', 'add', 'Use it', '--project', 'calc', '--depends-on', 'calc/2')).expectExit(4).error.details
        .removed,
    ).toBeDefined()
    // A number never seen is still plainly unknown.
    expect((await json('task', 'show', 'calc/9')).expectExit(4).error.details.removed).toBeUndefined()
  })
})

describe('7. reopen gives the task back', () => {
  test('a reopened task has no owner and no claim (logged), so another agent can claim it', async () => {
    const a = await ws.agent('rw', 'alice')
    const b = await ws.agent('rw', 'bob')
    await ws.ok('task', 'claim', 'calc/1', { as: a.token })
    await ws.ok('accept', 'calc/1', { as: a.token })
    const r = (
      await ws.dacli('task', 'reopen', 'calc/1', '--reason', 'mod of negatives is wrong', '--json', { as: a.token })
    ).expectExit(0).json
    expect(r.task).toMatchObject({ status: 'open', owner: null, claim: null })
    expect(r.details.previous_owner).toBe(a.id)
    expect(r.task.log.at(-1)).toMatchObject({
      verb: 'reopened',
      details: `mod of negatives is wrong (owner ${a.id} released)`,
    })
    const file = ws.file('.dacli/projects/calc/tasks/open/001-add-modulo-function.md')
    expect(file).not.toMatch(/^owner:/m)
    expect(file).not.toMatch(/^claim:/m)
    const c = (await ws.dacli('task', 'claim', 'calc/1', '--json', { as: b.token })).expectExit(0).json
    expect(c.task.owner).toBe(b.id)
  })
})

describe('9. link types', () => {
  test('an unknown link type is a usage error (2) naming the allowed types, before anything is looked up or written', async () => {
    const before = ws.snapshot()
    for (const argv of [
      ['task', 'add', 'Add roots', '--project', 'calc', '--depends-on', 'calc/5:XX'],
      ['task', 'add', 'Add roots', '--project', 'nope', '--depends-on', 'calc/1:fx'],
      ['task', 'depend', 'calc/2', '--add', 'calc/1:XX'],
      ['task', 'depend', 'calc/2', '--remove', 'calc/1:'],
    ]) {
      const r = (await json(...argv)).expectExit(2)
      expect(r.error.message).toMatch(/unknown link type ".*"; use one of FS, SS, FF, SF/)
      expect(r.error.details.allowed).toEqual(['FS', 'SS', 'FF', 'SF'])
    }
    expect(ws.snapshot()).toEqual(before)
    // Lower case is accepted; an unknown task with a good type is still "not found".
    expect(
      (await json('task', 'depend', 'calc/2', '--add', 'calc/1:ss')).expectExit(0).json.task.depends_on[0].type,
    ).toBe('SS')
    expect((await json('task', 'depend', 'calc/2', '--add', 'calc/5:FF')).expectExit(4).error.message).toMatch(
      /no task matches "calc\/5"/,
    )
  })
})

describe('11. accept without --verify attests, it does not verify', () => {
  test('each tick is logged as attested and counted; the human output says nothing was verified', async () => {
    const r = (await json('accept', 'calc/1')).expectExit(0).json
    expect(r).toMatchObject({ accepted: 1, newly_checked: 1, attested: 1 })
    expect(r.tasks[0]).toMatchObject({ attested: 1, verification: null })
    const log = (await json('task', 'show', 'calc/1')).json.log.map((l: { verb: string }) => l.verb)
    expect(log).toEqual(['created', 'checked', 'attested', 'accepted'])
    expect(ws.file('.dacli/projects/calc/tasks/done/001-add-modulo-function.md')).toMatch(
      /a-root attested 1 \(no --verify: on a-root's word, nothing was run\)/,
    )
    const h = await ws.dacli('accept', 'calc/2')
    expect(h.stdout).toMatch(/1 criterion attested, not verified: ticked without --verify, nothing was run/)
    // With --verify nothing is attested; task check without --verify attests too.
    await ws.ok('task', 'add', 'Add roots', '--project', 'calc', '--accept', 'a', '--accept', 'b')
    const v = (await json('task', 'check', 'calc/3', '--n', '1', '--verify', 'true')).expectExit(0).json
    expect(v.details.attested).toEqual([])
    const c = (await json('task', 'check', 'calc/3', '--n', '2')).expectExit(0).json
    expect(c.details.attested).toEqual([2])
    const acc = (await json('accept', 'calc/3')).expectExit(0).json
    expect(acc).toMatchObject({ newly_checked: 0, attested: 0, satisfied: 2 })
  })
})

test('the tombstone file keeps its bytes but for the removal (format: status is the folder)', async () => {
  const live = path.join(ws.root, '.dacli/projects/calc/tasks/open/002-add-power-function.md')
  const before = fs.readFileSync(live, 'utf8')
  await ws.ok('task', 'rm', 'calc/2')
  expect(fs.existsSync(live)).toBe(false)
  const after = ws.file('.dacli/projects/calc/tasks/removed/002-add-power-function.md')
  expect(after.split('\n').slice(0, 3)).toEqual(before.split('\n').slice(0, 3))
  expect(after).toMatch(/- \S+ a-root removed\n/)
})
