// worktree/v1 from a store outcome, and matching git's worktrees to tasks.

import * as path from 'node:path'
import type { GitWorktree } from '../../adapters/git/worktree.js'
import { real, type WorktreeOutcome, worktreeName, worktreeProblem } from '../../domain/worktree/worktrees.js'
import type { TaskSummary } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import type { Store } from '../../store/store.js'
import type { WorktreeDocT } from './json.js'

export function worktreeDoc(action: 'add' | 'remove', o: WorktreeOutcome): WorktreeDocT {
  return {
    schema: 'worktree/v1',
    action,
    outcome: o.outcome,
    task: { id: o.task.id, ref: qualifiedRef(o.task) },
    path: o.path,
    branch: o.branch,
    head: o.head,
    base: o.base,
    branch_deleted: o.branch_deleted,
  }
}

/**
 * The task each worktree belongs to: the task that records its folder, else the one its folder name
 * (`.dacli/worktrees/<project>-<NNN>-<slug>`) names. Null for the others, whatever their branch is called.
 */
export function taskMatcher(store: Store, tasks: readonly TaskSummary[]): (w: GitWorktree) => TaskSummary | null {
  const byPath = new Map<string, TaskSummary>()
  const byName = new Map<string, TaskSummary>()
  for (const t of tasks) {
    // A recorded path outside .dacli/worktrees/ names nobody's worktree (worktreeProblem): never matched.
    if (t.worktree !== null && worktreeProblem(store, t) === null)
      byPath.set(real(path.join(store.root, t.worktree.path)), t)
    byName.set(worktreeName(t), t)
  }
  const home = real(path.join(store.dir, 'worktrees'))
  return (w) => {
    const p = real(w.path)
    const hit = byPath.get(p)
    if (hit !== undefined) return hit
    // Elsewhere, a branch named like a task's is no proof dacli made the worktree: the spec lists those
    // worktrees with task null (and prune, cleanup and remove never touch them).
    return path.dirname(p) === home ? (byName.get(path.basename(p)) ?? null) : null
  }
}
