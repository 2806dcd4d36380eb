// `events dismiss`: settle a pending event without applying it, so a
// proposal that can never apply stops being pending. Allowed to the owner of the
// event's task (with the usual rule that an rw identity acts as owner of an
// unowned task, or of one whose task is gone) and to root. Dismissing a question
// closes it unanswered and releases the block it held.

import { cmd } from '../../base/commands.js'
import { RefusedError, UsageError } from '../../base/errors.js'
import { checkText } from '../../format/ids.js'
import type { Identity, TaskRecord } from '../../format/model.js'
import { ROOT_ID, stamp } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { type EventRecord, findEvent, type Settled, withEvent } from '../../store/events.js'
import type { Store } from '../../store/store.js'
import { mayRewrite } from '../task/lifecycle.js'
import { readTaskOrGone } from '../task/readable.js'

export interface Dismissed {
  event: EventRecord
  outcome: 'dismissed' | 'unchanged'
  dismissed: Settled
  task: TaskRecord | null
  unblocked: boolean
}

export async function dismissEvent(store: Store, who: Identity, id: string, reason: string): Promise<Dismissed> {
  const why = checkText(reason, '--reason').replace(/\s+/g, ' ').trim()
  if (why === '') throw new UsageError('--reason is empty: say why it is dismissed')
  if (why.length > 500) throw new UsageError(`--reason is ${why.length} characters long; the limit is 500`)
  const e = await findEvent(store, id)
  const task = e.about === null ? null : await readTaskOrGone(store, e.about)
  if (who.id !== ROOT_ID && task !== null && !(await mayRewrite(store, task, who))) {
    throw new RefusedError(
      'owner',
      `only the owner of ${qualifiedRef(task)} (${task.owner}) or root may dismiss ${e.id}`,
      {
        details: { event_id: e.id, owner: task.owner, identity: who.id },
        next: [`ask ${task.owner} to run: ${cmd(`events dismiss ${e.id} --reason "<why>"`)}`],
      },
    )
  }
  const settled: Settled = { by: who.id, at: stamp(store.now()), reason: why }
  const outcome = await withEvent<{ state: 'dismissed' | 'unchanged'; by: Settled | null }>(store, e, async (fresh) => {
    if (fresh.state === 'applied') {
      throw new RefusedError(
        'state',
        `${e.id} was already ${e.event_kind === 'question' ? 'answered' : 'applied'}; there is nothing to dismiss`,
        {
          details: { event_id: e.id, state: fresh.state },
          next: [cmd('events list --pending')],
        },
      )
    }
    if (fresh.state === 'dismissed')
      return { outcome: null, result: { state: 'unchanged' as const, by: fresh.dismissed } }
    return {
      outcome: { applied: 'dismissed' as const, dismissed: settled },
      note: {
        ref: task === null ? (e.about ?? e.id) : qualifiedRef(task),
        project: task?.project ?? null,
        actor: who.id,
        summary: `${e.event_kind} ${e.id} dismissed: ${why}`,
      },
      result: { state: 'dismissed' as const, by: settled },
    }
  })
  if (outcome.state === 'unchanged') {
    return { event: e, outcome: 'unchanged', dismissed: outcome.by ?? settled, task, unblocked: false }
  }
  const event: EventRecord = { ...e, state: 'dismissed', applied: false, dismissed: settled }
  if (e.event_kind !== 'question' || task === null)
    return { event, outcome: 'dismissed', dismissed: settled, task, unblocked: false }
  const { releaseBlock } = await import('../questions/questions.js')
  const after = await releaseBlock(store, who, e, 'dismissed', `${e.id}: ${why}`)
  return { event, outcome: 'dismissed', dismissed: settled, task: after.task, unblocked: after.unblocked }
}
