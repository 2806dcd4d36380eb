// A merge conflict becomes a decision (FORMAT.md, "Merging records"): for every field both clones changed
// differently, a question on the task (ask's machinery: it blocks the task, so `next` does not hand it out,
// and `overview`, `threads` and `explain` show it) names the field, both values, who changed each and when.
// The task has kept the other side's value meanwhile; `answer <qid> ours|theirs|<value>` settles it.

import { canonicalJSON } from '../../base/canonical.js'
import type { Identity } from '../../format/model.js'
import type { FieldConflict } from '../../format/objmerge.js'
import type { Store } from '../../store/store.js'
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
        `ours (this clone): ${shown(f.ours)} — by ${whoWhen(c.ours)}`,
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
