// The planning view shared by this slice's commands: task summaries with every
// dependency resolved to the task it names.

import { type CpmTask, CycleError, criticalPath, type LinkType } from '../../engines/cpm.js'
import { frontier } from '../../engines/frontier.js'
import type { Broken, Store, TaskSummary } from '../../store/index.js'
import { resolveAmong } from '../../store/refs.js'

export const refOf = (t: { project: string; seq: number; slug: string }) =>
  `${t.project}/${String(t.seq).padStart(3, '0')}-${t.slug}`

export interface Plan {
  /** The tasks in scope (a project's, or every project's). */
  tasks: TaskSummary[]
  byId: Map<string, TaskSummary>
  /** A dependency's target, or null when it does not resolve. */
  target(t: TaskSummary, on: string): TaskSummary | null
  broken: Broken[]
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

/** CPM input over open and active tasks; links to tasks outside that scope are satisfied or out of reach. */
export function cpmInput(plan: Plan, scope: readonly TaskSummary[]): CpmTask[] {
  const ids = new Set(scope.map((t) => t.id))
  return scope.map((t) => ({
    id: t.id,
    te: t.estimate === null ? null : (t.estimate.optimistic + 4 * t.estimate.probable + t.estimate.pessimistic) / 6,
    deps: t.depends_on
      .map((d) => ({ on: plan.target(t, d.on)?.id ?? d.on, type: d.type as LinkType }))
      .filter((d) => ids.has(d.on)),
  }))
}

export const inProgressScope = (plan: Plan) => plan.tasks.filter((t) => t.status === 'open' || t.status === 'active')

/** The ready frontier of a plan, ordered by priority, then slack (when every task in scope is sized), then sequence. */
export function readyFrontier(plan: Plan, limit: number) {
  const scope = inProgressScope(plan)
  let slack: Map<string, number> | null = null
  let critical = new Set<string>()
  try {
    const cpm = criticalPath(cpmInput(plan, scope))
    if (cpm.duration !== null) {
      slack = new Map(cpm.rows.map((r) => [r.id, r.slack as number]))
      critical = new Set(cpm.critical_path)
    }
  } catch (e) {
    if (!(e instanceof CycleError)) throw e
    // A cycle leaves the order to priority and sequence; doctor and critical-path name it.
  }
  const statusOf = (id: string) => plan.byId.get(id)?.status ?? null
  const depsOf = (t: TaskSummary) => t.depends_on.map((d) => ({ on: plan.target(t, d.on)?.id ?? d.on, type: d.type }))
  const f = frontier(plan.tasks, depsOf, statusOf, slack, limit)
  return { ...f, slack, critical }
}
