// A task held up by an open question (ask and answer): which question, and the refusal that names it.

import { cmd } from '../../base/commands.js'
import { RefusedError } from '../../base/errors.js'
import { excerpt } from '../../base/text.js'
import type { TaskRecord, TaskSummary } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { type EventRecord, isOpenQuestion, isQuestionId, listEvents } from '../../store/events.js'
import type { Store } from '../../store/store.js'

/** The open question that keeps a task blocked, if any (manual `task unblock` is refused while there is one). */
export async function blockingQuestion(
  store: Store,
  t: Pick<TaskSummary, 'blocked_by' | 'status'>,
): Promise<EventRecord | null> {
  if (t.status !== 'blocked' || !isQuestionId(t.blocked_by)) return null
  const e = (await listEvents(store)).events.find((x) => x.id === t.blocked_by)
  return e !== undefined && isOpenQuestion(e) ? e : null
}

export function openQuestionRefusal(t: TaskRecord, q: EventRecord): RefusedError {
  return new RefusedError(
    'open-question',
    `${qualifiedRef(t)} waits on the open question ${q.id} ("${excerpt(q.body, 60)}"): answer it, or dismiss it, to unblock`,
    {
      details: { question: q.id, asked_by: q.created_by },
      next: [cmd(`answer ${q.id} "<answer>"`), cmd(`events dismiss ${q.id} --reason "<why it no longer matters>"`)],
    },
  )
}
