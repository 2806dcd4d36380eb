// A merge conflict becomes a decision (FORMAT.md, "Merging records"): for every field both clones changed
// differently, a question on the task (ask's machinery: it blocks the task, so `next` does not hand it out,
// and `overview`, `threads` and `explain` show it) names the field, both values, who changed each and when.
// The task has kept the other side's value meanwhile; `answer <qid> ours|theirs|<value>` settles it.

import { canonicalJSON } from '../../base/canonical.js'
import type { Identity } from '../../format/model.js'
import type { FieldConflict } from '../../format/objmerge.js'
import { qualifiedRef } from '../../format/refs.js'
import { isOpenQuestion, listEvents } from '../../store/events.js'
import type { Store } from '../../store/store.js'
import { questionPayload } from './payload.js'
import { askQuestion } from './questions.js'

export interface SideOfChange {
  by: string | null
  at: string | null
}

export interface ConflictToDecide {
  /** The task id. */
  id: string
  fields: FieldConflict[]
  ours: SideOfChange
  theirs: SideOfChange
}

export interface RaisedDecision {
  question: string
  task: string
  field: string
  ours: unknown
  theirs: unknown
  blocks: boolean
}

const shown = (v: unknown) => {
  const s = typeof v === 'string' ? v.trim() : canonicalJSON(v ?? null)
  return s.length > 300 ? `${s.slice(0, 299)}…` : s
}
const whoWhen = (s: SideOfChange) => `${s.by ?? 'unknown'} at ${s.at ?? 'an unknown time'}`

/** Raise one question per conflicting field (`from`: where theirs came from, e.g. the remote's name). */
export async function raiseDecisions(
  store: Store,
  who: Identity,
  conflicts: readonly ConflictToDecide[],
  from: string,
): Promise<RaisedDecision[]> {
  const out: RaisedDecision[] = []
  for (const c of conflicts) {
    for (const f of c.fields) {
      const text = [
        `Merge conflict on ${f.field}: both sides changed it differently.`,
        // The question travels to every clone: "ours" names the clone that merged, where "this clone" would lie.
        `ours (the clone that merged, ${store.system.hostname}:${store.dir}): ${shown(f.ours)} — by ${whoWhen(c.ours)}`,
        `theirs (${from}, kept for now): ${shown(f.theirs)} — by ${whoWhen(c.theirs)}`,
        'Answer ours, theirs or the value.',
      ].join('\n')
      const asked = await askQuestion(store, who, {
        about: c.id,
        text,
        need: `a decision on ${f.field}`,
        conflict: { field: f.field, ours: JSON.stringify(f.ours ?? null), theirs: JSON.stringify(f.theirs ?? null) },
      })
      out.push({
        question: asked.question.id,
        task: c.id,
        field: f.field,
        ours: f.ours ?? null,
        theirs: f.theirs ?? null,
        blocks: asked.blocks,
      })
    }
  }
  return out
}

export interface OpenDecision {
  question: string
  task: string | null
  ref: string | null
  field: string
  ours: unknown
  theirs: unknown
  /** Whether the question blocks its task (`blocked_by`), as when it was raised. */
  blocks: boolean
  asked_at: string
}

const parsed = (text: string | null): unknown => {
  if (text === null) return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Every open merge-conflict question of the workspace, oldest first. */
export async function openDecisions(store: Store): Promise<OpenDecision[]> {
  const open = (await listEvents(store)).events.filter(
    (e) => isOpenQuestion(e) && questionPayload(e.data).conflict !== null,
  )
  if (open.length === 0) return []
  const tasks = new Map((await store.listTasks()).tasks.map((t) => [t.id, t]))
  return open.map((e) => {
    const p = questionPayload(e.data)
    const t = e.about === null ? undefined : tasks.get(e.about)
    return {
      question: e.id,
      task: e.about,
      ref: t === undefined ? null : qualifiedRef(t),
      field: p.conflict as string,
      ours: parsed(p.ours),
      theirs: parsed(p.theirs),
      blocks: p.blocks,
      asked_at: e.created,
    }
  })
}
