import { beforeEach, describe, expect, test } from 'vitest'
import { dacliJson } from '../../testkit/schemas.js'
import { type RunOpts, type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
let worker: { id: string; token: string }
let other: { id: string; token: string }
let reader: { id: string; token: string }

beforeEach(async () => {
  ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Held task', '--project', 'p', '--accept', 'x')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Spare task', '--project', 'p', '--accept', 'y')).expectExit(0)
  worker = await ws.agent('rw', 'worker')
  other = await ws.agent('rw', 'other')
  reader = await ws.agent('ro', 'reader')
  ;(await ws.dacli('task', 'claim', 'p/1', { as: worker.token })).expectExit(0)
})

const j = (...args: (string | RunOpts)[]) => dacliJson(ws, ...args)

describe('a proposal that can never apply', () => {
  test('sync names it with the reason and the dismiss command; dismissing settles it for good', async () => {
    // issue 14 item 12: an ro claim of a task someone else holds stays pending forever.
    const claim = (await j('task', 'claim', 'p/1', { as: reader.token })).expectExit(0).json
    expect(claim.outcome).toBe('proposed')
    for (const as of [undefined, worker.token]) {
      const s = (await j('sync', ...(as ? [{ as }] : []))).expectExit(0).json
      expect(s.pending).toEqual([
        {
          event_id: claim.event_id,
          reason: `p/001-held-task is held by ${worker.id}`,
          never_applies: true,
          next: [
            `dacli events dismiss ${claim.event_id} --reason "can never apply: p/001-held-task is held by ${worker.id}"`,
          ],
        },
      ])
    }
    expect((await ws.dacli('sync')).stdout).toContain('— it can never apply')
    // Only the target's owner (or root) may dismiss it: another rw identity is refused and nothing changes.
    const before = ws.snapshot()
    const no = (await j('events', 'dismiss', claim.event_id, '--reason', 'x', { as: other.token })).expectExit(3)
    expect(no.error.details).toMatchObject({ policy: 'owner', owner: worker.id })
    ;(await j('events', 'dismiss', claim.event_id, { as: worker.token })).expectExit(2) // --reason is required
    ;(await j('events', 'dismiss', claim.event_id, '--reason', '  ', { as: worker.token })).expectExit(2)
    ;(await j('events', 'dismiss', claim.event_id, '--reason', 'x', { as: reader.token })).expectExit(3) // grant
    ;(await j('events', 'dismiss', '01ZZZZZZZZ', '--reason', 'x')).expectExit(4)
    expect(ws.snapshot()).toEqual(before)
    const d = (
      await j('events', 'dismiss', claim.event_id, '--reason', 'held by the worker', { as: worker.token })
    ).expectExit(0).json
    expect(d).toMatchObject({
      schema: 'event-dismiss/v1',
      event_id: claim.event_id,
      kind: 'claim',
      outcome: 'dismissed',
      dismissed: { by: worker.id, reason: 'held by the worker' },
      about: { ref: 'p/001-held-task' },
      task: null,
    })
    const list = (await j('events', 'list')).json.events
    const file = ws.file(list[0].path)
    expect(file).toContain('applied: dismissed\n')
    expect(file).toMatch(
      new RegExp(`\\ndismissed:\\n  by: ${worker.id}\\n  at: [0-9TZ:-]+\\n  reason: held by the worker\\n---\\n`),
    )
    expect(list[0]).toMatchObject({ state: 'dismissed', applied: false, dismissed: { by: worker.id } })
    expect((await j('events', 'list', '--pending')).json.total).toBe(0)
    expect((await j('sync')).json).toMatchObject({ applied: [], pending: [] })
    expect((await j('status')).json.pending_events).toBe(0)
    // Twice: unchanged, the first dismissal kept.
    const again = (await j('events', 'dismiss', claim.event_id, '--reason', 'again')).expectExit(0).json
    expect(again).toMatchObject({ outcome: 'unchanged', dismissed: { by: worker.id, reason: 'held by the worker' } })
  })

  test('a task that is gone or done makes its proposals never apply; one waiting for its owner does not', async () => {
    const block = (await j('task', 'block', 'p/2', { as: reader.token })).json // p/2 unowned: root can apply it
    const held = (await j('task', 'block', 'p/1', { as: other.token })).json // p/1 held: waits for the worker
    ;(await ws.dacli('task', 'rm', 'p/2')).expectExit(0)
    const s = (await j('sync')).json
    const by = (id: string) => s.pending.find((p: { event_id: string }) => p.event_id === id)
    expect(by(block.event_id)).toMatchObject({ never_applies: true, reason: expect.stringMatching(/is gone/) })
    expect(by(held.event_id)).toMatchObject({ never_applies: false, next: [] })
    // Done: a block proposal for a task closed meanwhile.
    ;(await ws.dacli('task', 'check', 'p/1', '--all', { as: worker.token })).expectExit(0)
    ;(await ws.dacli('task', 'done', 'p/1', { as: worker.token })).expectExit(0)
    const s2 = (await j('sync')).json
    expect(s2.pending.find((p: { event_id: string }) => p.event_id === held.event_id)).toMatchObject({
      never_applies: true,
      reason: 'p/001-held-task is done',
    })
    // The gone task's proposal: with no owner left, any rw identity may dismiss it.
    ;(await j('events', 'dismiss', block.event_id, '--reason', 'task removed', { as: other.token })).expectExit(0)
    // An applied event cannot be dismissed.
    ;(await ws.dacli('task', 'add', 'Third', '--project', 'p', '--accept', 'z')).expectExit(0)
    const c3 = (await j('task', 'claim', 'p/3', { as: reader.token })).json
    expect((await j('sync')).json.applied).toContain(c3.event_id)
    const before = ws.snapshot()
    const r = (await j('events', 'dismiss', c3.event_id, '--reason', 'late')).expectExit(3)
    expect(r.error.details).toMatchObject({ policy: 'state', state: 'applied' })
    expect(ws.snapshot()).toEqual(before)
  })

  test('dismissing a question closes it unanswered and releases the task it held', async () => {
    const q = (await j('ask', 'Still needed?', '--about', 'p/2', { as: reader.token })).json
    const d = (await j('events', 'dismiss', q.id, '--reason', 'no longer matters')).expectExit(0).json
    expect(d).toMatchObject({ kind: 'question', task: { ref: 'p/002-spare-task', status: 'open', unblocked: true } })
    const t = (await j('threads', '--about', 'p/2')).json.threads[0]
    expect(t).toMatchObject({ state: 'dismissed', dismissed: { by: 'a-root', reason: 'no longer matters' } })
    ;(await j('answer', q.id, 'late')).expectExit(3)
    const log = (await j('task', 'show', 'p/2')).json.log.map((l: { verb: string }) => l.verb)
    expect(log.slice(-2)).toEqual(['dismissed', 'unblocked'])
  })
})
