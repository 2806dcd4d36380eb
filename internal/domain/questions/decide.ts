// Answering a merge conflict's question (FORMAT.md, "Merging records"): `ours` restores the value the merging
// clone had, `theirs` confirms the one the task kept, anything else is the value itself (JSON where it parses as
// JSON, else the text). The task is rewritten under its lock after the question is settled and its block released.

import { UsageError } from '../../base/errors.js'
import { titleControl } from '../../format/ids.js'
import { setSection, setTitle } from '../../format/markdown.js'
import type { Identity } from '../../format/model.js'
import { type Claim, STATUSES, type Status, type TaskRecord } from '../../format/model.js'
import { isBodyPart, replaceBodyPart } from '../../format/objmerge.js'
import type { EventRecord } from '../../store/events.js'
import type { Store } from '../../store/store.js'
import { questionPayload } from './payload.js'

export interface Decision {
  field: string
  value: unknown
  chose: 'ours' | 'theirs' | 'value'
}

function fromJson(text: string | null): unknown {
  if (text === null) return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** What answering a conflict question with `text` sets (exit 2 for a value the field cannot hold). */
export function decisionOf(q: EventRecord, text: string): Decision {
  const p = questionPayload(q.data)
  const field = p.conflict as string
  const word = text.trim()
  const chose = word === 'ours' || word === 'theirs' ? word : 'value'
  // A body part's own value is its text as written (a title, a section's content), never parsed as JSON.
  const own = isBodyPart(field) ? word : fromJson(word)
  const value = chose === 'ours' ? fromJson(p.ours) : chose === 'theirs' ? fromJson(p.theirs) : own
  if (field === 'status' && !(STATUSES as readonly unknown[]).includes(value)) {
    throw new UsageError(`${q.id} decides a status: answer ours, theirs or one of ${STATUSES.join(', ')}`, {
      details: { question: q.id, field, value },
    })
  }
  if (isBodyPart(field) && typeof value !== 'string') {
    throw new UsageError(`${q.id} decides the text of ${field}: answer ours, theirs or the text`, {
      details: { question: q.id, field },
    })
  }
  if (field === 'title' && chose === 'value' && (/[\r\n]/.test(word) || titleControl(word) !== null)) {
    throw new UsageError(`${q.id} decides the task's title: answer ours, theirs or the new title, one line of text`, {
      details: { question: q.id, field },
    })
  }
  return { field, value, chose }
}

/** Write the decided value into the question's task. */
export async function applyDecision(
  store: Store,
  who: Identity,
  q: EventRecord,
  d: Decision,
): Promise<TaskRecord | null> {
  if (q.about === null) return null
  const { target } = await store.load(q.about)
  const r = await store.editTask(target, who.id, (e) => {
    if (d.field === 'status') e.status = d.value as Status
    // Ours and theirs are a whole part as a side wrote it (its heading included); an answer's own value is a title's
    // text or a section's content, written under the heading the part has (FORMAT.md, "Merging records").
    else if (d.chose === 'value' && d.field === 'title') e.body = setTitle(e.body, d.value as string)
    else if (d.chose === 'value' && d.field.startsWith('section:'))
      e.body = setSection(e.body, d.field.slice('section:'.length), d.value as string)
    else if (isBodyPart(d.field)) e.body = replaceBodyPart(e.body, d.field, d.value as string)
    else if (d.value === null) e.delete(d.field)
    else if (typeof d.value === 'object' && !Array.isArray(d.value))
      e.setFlow(d.field, d.value as Record<string, unknown>)
    else e.set(d.field, d.value)
    e.log('edited', `${d.field} decided by ${q.id} (${d.chose})`)
    // A done task holds no claim (`task done` deletes it): an answer that leaves the task done drops the claim it
    // still had (the merge kept one while the status was in question, or the answer wrote one back). A claim ref on
    // the claims remote is not deleted here: `reconcile` offers that (claim_on_closed_task), as doctor reports it.
    const claim = d.field === 'claim' ? d.value : e.before.claim
    if (e.status === 'done' && typeof claim === 'object' && claim !== null) {
      const c = claim as Partial<Claim>
      const there = typeof c.remote === 'string' ? `, on ${c.remote}` : ''
      e.delete('claim')
      e.log(
        'edited',
        `claim dropped (${c.by ?? '?'}'s${there}): ${q.id} left the task done, and a done task holds no claim${there === '' ? '' : '; its ref there is left to reconcile'}`,
      )
    }
    return {}
  })
  return r.task
}
