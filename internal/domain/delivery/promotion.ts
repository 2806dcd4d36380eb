// What a task's log says of its release: its latest landing (`landed <sha> …`), and whether a release train recorded
// that landing on a target since (`promoted <target> <commit>…` after it). A promotion before the latest landing is
// of earlier work (the task was reopened and landed again): it releases nothing of the work now landed.

import type { TaskRecord } from '../../format/model.js'
import { PROMOTED } from './kinds.js'

/** A branch as a train names it, without the ref prefixes that name the same branch (`origin/release` → `release`). */
export const branchName = (name: string): string =>
  name.replace(/^refs\/(heads|remotes\/origin)\//, '').replace(/^origin\//, '')

/**
 * The log line that records the task's latest landing promoted (to `target`, or to any target), or null. Without a
 * `landed` line any promotion counts (there is no later landing it could predate).
 */
export function promotionOf(t: TaskRecord, target?: string): TaskRecord['log'][number] | null {
  let after = -1
  for (let i = t.log.length - 1; i >= 0; i--) {
    if (t.log[i]?.verb === 'landed') {
      after = i
      break
    }
  }
  const want = target === undefined ? null : branchName(target)
  for (let i = after + 1; i < t.log.length; i++) {
    const e = t.log[i]
    if (e?.verb === PROMOTED && (want === null || branchName(e.details.split(' ')[0] ?? '') === want)) return e
  }
  return null
}

/** Has a release train recorded any promotion of the task, of this landing or an earlier one? */
export const everPromoted = (t: TaskRecord): boolean => t.log.some((e) => e.verb === PROMOTED)
