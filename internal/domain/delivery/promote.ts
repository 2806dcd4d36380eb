// Recording a release: the task's log gains `promoted <target> <commit>[ #<pr>]` once its landed work is on a
// release train's target — merged there by `release train --apply --merge`, or found there by a later `--apply`
// (the promotion pull request merged on GitHub, a fix landed on the target itself). Delivery progress counts such a
// task `released` (progress.ts), from the files alone.

import type { Identity } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import type { Store } from '../../store/store.js'
import { change, mayRewrite } from '../task/lifecycle.js'
import { PROMOTED } from './kinds.js'
import { branchName, promotionOf } from './promotion.js'
import type { TrainTask } from './release.js'

export interface Promoted {
  id: string
  ref: string
  /** The commit on the target that holds the task's landed work: the promotion's merge, or the target's tip. */
  commit: string
}

/**
 * Log the promotion of each task's latest landing to `target` at `commit`, once (a log that records it already is
 * left as it is; a promotion of work landed before a reopen does not count),
 * for the tasks the caller may rewrite (another identity's task keeps its log; a later apply by its owner records it).
 */
export async function recordPromotions(
  store: Store,
  who: Identity,
  tasks: readonly TrainTask[],
  target: string,
  commit: string,
  pr: number | null,
): Promise<Promoted[]> {
  const out: Promoted[] = []
  const name = branchName(target) // `origin/release` and `release` are one target
  for (const { task } of tasks) {
    if (!(await mayRewrite(store, task, who))) continue
    const { target: file } = await store.load(task.id)
    const c = await change(store, file, who, PROMOTED, (e) => {
      if (promotionOf(e.before, name) !== null) return false
      e.log(PROMOTED, `${name} ${commit}${pr === null ? '' : ` #${pr}`}`)
      return { target: name, commit }
    })
    if (c.outcome === 'changed') out.push({ id: c.task.id, ref: qualifiedRef(c.task), commit })
  }
  return out
}
