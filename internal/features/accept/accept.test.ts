import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { nodeSystem } from '../../../cmd/system.js'
import { acquireLock } from '../../store/lock.js'
import { expectValid } from '../../testkit/schemas.js'
import { type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
let a: { id: string; token: string }
let ro: { id: string; token: string }

beforeEach(async () => {
  ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Two criteria', '--project', 'p', '--accept', 'one', '--accept', 'two')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'No criteria at all', '--project', 'p')).expectExit(0)
  a = await ws.agent('rw', 'alice')
  ro = await ws.agent('ro', 'reader')
})

const acc = async (...args: string[]) => {
  const r = await ws.dacli('accept', ...args, '--json')
  if (r.code === 0) expectValid(r.json)
  return r
}

describe('accept <ref>', () => {
  test('checks every box and closes; newly_checked, satisfied and total are reported separately', async () => {
    ;(await ws.dacli('task', 'check', 'p/1', '--n', '1')).expectExit(0)
    const r = (await acc('p/1', '--verify', 'true')).expectExit(0).json
    expect(r).toMatchObject({ accepted: 1, newly_checked: 1, satisfied: 2, total: 2, unverified_tasks: 0 })
    expect(r.tasks[0]).toMatchObject({
      ref: 'p/001-two-criteria',
      outcome: 'accepted',
      unverified: false,
      skipped_reason: null,
    })
    expect(r.tasks[0].verification).toMatchObject({ command: 'true', exit_code: 0 })
    expect((await ws.dacli('task', 'show', 'p/1', '--json')).json.status).toBe('done')
    // Again: zero newly checked with a non-zero total means "already satisfied".
    const again = (await acc('p/1')).expectExit(0).json
    expect(again).toMatchObject({ accepted: 0, newly_checked: 0, satisfied: 2, total: 2 })
    expect(again.tasks[0].outcome).toBe('unchanged')
  })

  test('a passing --verify on a task whose boxes were all ticked is reported and logged, never null', async () => {
    ;(await ws.dacli('task', 'check', 'p/1', '--all')).expectExit(0)
    const r = (await acc('p/1', '--verify', 'true')).expectExit(0).json
    expect(r).toMatchObject({ accepted: 1, newly_checked: 0, satisfied: 2, total: 2 })
    expect(r.tasks[0].verification).toMatchObject({ command: 'true', exit_code: 0 })
    const log = (await ws.dacli('task', 'show', 'p/1', '--json')).json.log
    expect(log.map((l: { verb: string }) => l.verb).slice(-2)).toEqual(['verified', 'accepted'])
  })

  test('a failing --verify is exit 1 and the task stays open', async () => {
    const r = (await acc('p/1', '--verify', 'exit 2')).expectExit(1)
    expect(r.error.kind).toBe('failure')
    expect((await ws.dacli('task', 'show', 'p/1', '--json')).json).toMatchObject({ status: 'open', acceptance_done: 0 })
  })

  test('no criteria → 3 unless --allow-unverified, which marks it unverified', async () => {
    expect((await acc('p/2')).expectExit(3).error.details.policy).toBe('acceptance')
    const r = (await acc('p/2', '--allow-unverified')).expectExit(0).json
    expect(r).toMatchObject({ accepted: 1, newly_checked: 0, satisfied: 0, total: 0, unverified_tasks: 1 })
    expect(r.tasks[0].unverified).toBe(true)
  })

  test('a non-owner’s accept is a proposal; the owner’s accept applies it; --force is root-only adoption', async () => {
    ;(await ws.dacli('task', 'claim', 'p/1', { as: a.token })).expectExit(0)
    const p = (await acc('p/1')).expectExit(0).json
    expect(p.tasks[0].outcome).toBe('proposed')
    expect(p.tasks[0].event_id).toMatch(/^[0-9A-Z]{26}$/)
    const r = (await ws.dacli('accept', 'p/1', '--json', { as: a.token })).expectExit(0).json
    expect(r.tasks[0].applied_proposals).toEqual([p.tasks[0].event_id])
    expect((await ws.dacli('events', 'list', '--pending', '--json')).json.events).toEqual([])
    ;(await ws.dacli('task', 'add', 'Third thing', '--project', 'p', '--accept', 'x')).expectExit(0)
    ;(await ws.dacli('task', 'claim', 'p/3', { as: a.token })).expectExit(0)
    const b = await ws.agent('rw', 'bob')
    expect(
      (await ws.dacli('accept', 'p/3', '--force', '--json', { as: b.token })).expectExit(3).error.details.policy,
    ).toBe('force')
    const f = (await acc('p/3', '--force')).expectExit(0).json
    expect(f.tasks[0].outcome).toBe('accepted')
  })

  test('usage: a ref or --all, not both, not neither', async () => {
    expect((await acc()).code).toBe(2)
    expect((await acc('p/1', '--all')).code).toBe(2)
  })
})

describe('accept --all', () => {
  test('closes every task with a pending close proposal the caller may close; skips are reported, not fatal', async () => {
    ;(await ws.dacli('task', 'add', 'Another checked one', '--project', 'p', '--accept', 'c')).expectExit(0)
    ;(await ws.dacli('task', 'done', 'p/1', { as: ro.token })).expectExit(0)
    ;(await ws.dacli('task', 'done', 'p/2', { as: ro.token })).expectExit(0)
    ;(await ws.dacli('task', 'claim', 'p/3', { as: a.token })).expectExit(0)
    ;(await ws.dacli('task', 'done', 'p/3', { as: ro.token })).expectExit(0)
    const r = (await acc('--all')).expectExit(0).json
    const by = Object.fromEntries(r.tasks.map((t: { ref: string }) => [t.ref, t]))
    expect(by['p/001-two-criteria'].outcome).toBe('accepted')
    expect(by['p/002-no-criteria-at-all']).toMatchObject({
      outcome: 'skipped',
      skipped_reason: expect.stringMatching(/no acceptance criteria/),
    })
    expect(by['p/003-another-checked-one']).toMatchObject({
      outcome: 'skipped',
      skipped_reason: expect.stringMatching(/not yours/),
    })
    expect(r.accepted).toBe(1)
    const again = (await acc('--all', '--allow-unverified')).expectExit(0).json
    expect(again.tasks.find((t: { ref: string }) => t.ref === 'p/002-no-criteria-at-all').outcome).toBe('accepted')
    expect(again.unverified_tasks).toBe(1)
  })

  test('a task refused in the close itself (blocked) is that task’s skip: the others close, its bytes stay', async () => {
    ;(await ws.dacli('task', 'add', 'Third thing', '--project', 'p', '--accept', 'c')).expectExit(0)
    const proposed = (await ws.dacli('accept', 'p/1', '--json', { as: ro.token })).expectExit(0).json.tasks[0].event_id
    ;(await ws.dacli('accept', 'p/3', { as: ro.token })).expectExit(0)
    ;(await ws.dacli('task', 'block', 'p/1', '--why', 'waiting on a vendor')).expectExit(0)
    const blocked = '.dacli/projects/p/tasks/blocked/001-two-criteria.md'
    const before = ws.file(blocked)
    const r = (await acc('--all')).expectExit(0).json
    const by = Object.fromEntries(r.tasks.map((t: { ref: string }) => [t.ref, t]))
    expect(by['p/001-two-criteria']).toMatchObject({
      outcome: 'skipped',
      newly_checked: 0,
      skipped_reason: expect.stringMatching(/is blocked: unblock it before closing it/),
      applied_proposals: [],
    })
    expect(by['p/003-third-thing']).toMatchObject({ outcome: 'accepted', newly_checked: 1 })
    expect(r.accepted).toBe(1)
    expect(ws.file(blocked)).toBe(before)
    const pending = (await ws.dacli('events', 'list', '--pending', '--json')).json.events
    expect(pending.map((e: { id: string }) => e.id)).toEqual([proposed])
    const human = (await ws.dacli('accept', '--all')).expectExit(0)
    expect(human.stdout).toMatch(/skipped p\/001-two-criteria: p\/001-two-criteria is blocked/)
  })

  test('a task whose lock another writer holds past the wait is skipped (a conflict of that task alone)', async () => {
    ;(await ws.dacli('task', 'add', 'Third thing', '--project', 'p', '--accept', 'c')).expectExit(0)
    ;(await ws.dacli('accept', 'p/1', { as: ro.token })).expectExit(0)
    ;(await ws.dacli('accept', 'p/3', { as: ro.token })).expectExit(0)
    const id = (await ws.dacli('task', 'show', 'p/1', '--json')).json.id as string
    const lock = await acquireLock(path.join(ws.root, '.dacli', 'locks'), `task-${id}`, { system: nodeSystem })
    try {
      const before = ws.snapshot()
      const r = (await ws.dacli('accept', '--all', '--json', { env: { DACLI_LOCK_WAIT_MS: '50' } })).expectExit(0).json
      expectValid(r)
      const by = Object.fromEntries(r.tasks.map((t: { ref: string }) => [t.ref, t]))
      expect(by['p/001-two-criteria']).toMatchObject({
        outcome: 'skipped',
        skipped_reason: expect.stringMatching(/is locked by pid/),
      })
      expect(by['p/003-third-thing'].outcome).toBe('accepted')
      const after = ws.snapshot()
      const p1 = '.dacli/projects/p/tasks/open/001-two-criteria.md'
      expect(after.get(p1)).toBe(before.get(p1))
    } finally {
      lock.release()
    }
  })

  test('a failure that is no one task’s stops it (exit 1) and names the tasks it closed before, which stay closed', async () => {
    ;(await ws.dacli('project', 'add', 'Q', '--slug', 'q')).expectExit(0)
    ;(await ws.dacli('task', 'add', 'In q', '--project', 'q', '--accept', 'c')).expectExit(0)
    ;(await ws.dacli('accept', 'p/1', { as: ro.token })).expectExit(0)
    ;(await ws.dacli('accept', 'q/1', { as: ro.token })).expectExit(0)
    // q's done folder is a file: moving its task there fails for a reason of the disk, not of that task.
    ws.write('.dacli/projects/q/tasks/done', 'not a folder\n')
    const r = (await ws.dacli('accept', '--all', '--json')).expectExit(1).error
    expect(r.details.accepted).toEqual(['p/001-two-criteria'])
    expect(r.next_actions[0]).toMatch(/^this task was closed before the failure and stays closed: p\/001-two-criteria;/)
    expect((await ws.dacli('task', 'show', 'p/1', '--json')).json.status).toBe('done')
    expect((await ws.dacli('task', 'show', 'q/1', '--json')).json.status).toBe('open')
    const human = (await ws.dacli('accept', '--all')).expectExit(1)
    expect(human.stderr).not.toContain('p/001-two-criteria') // closed already: the second run closes nothing more
  })
})
