// The planning view: task summaries with every dependency resolved to the task it names (dependencies may cross
// projects). next, overview, critical-path and doctor read the backlog through it.

import type { Broken, TaskSummary } from './model.js'
import { qualifiedRef, resolveAmong } from './refs.js'
import type { Store } from './store.js'

export interface Plan {
  /** The tasks in scope (a project's, or every project's). */
  tasks: TaskSummary[]
  byId: Map<string, TaskSummary>
  /** A dependency's target, or null when it does not resolve. */
  target(t: TaskSummary, on: string): TaskSummary | null
  broken: Broken[]
}

/** A task's reference when the plan holds it, else its id as given. */
export function refIn(plan: Plan, id: string): string {
  const t = plan.byId.get(id)
  return t ? qualifiedRef(t) : id
}

export async function loadPlan(store: Store, project?: string): Promise<Plan> {
  const local = await store.listTasks(project)
  let all = local.tasks
  // Dependencies may cross projects: load the rest only when one points outside.
  const known = new Set(all.map((t) => t.id))
  if (project !== undefined && all.some((t) => t.depends_on.some((d) => !known.has(d.on)))) {
    all = (await store.listTasks()).tasks
  }
  const byId = new Map(all.map((t) => [t.id, t]))
  const cache = new Map<string, TaskSummary | null>()
  return {
    tasks: local.tasks,
    byId,
    broken: local.broken,
    target(t, on) {
      const hit = byId.get(on)
      if (hit) return hit
      const key = `${t.project}\u0000${on}`
      if (!cache.has(key)) cache.set(key, resolveAmong(all, on, t.project))
      return cache.get(key) ?? null
    },
  }
}
