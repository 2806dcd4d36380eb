// The planning view behind next, overview, critical-path, doctor and explain: task
// summaries with every dependency resolved to the task it names, and the schedule
// and ready frontier over them (the engines decide; this loads and wires).

import type { Broken, TaskSummary } from '../../format/model.js'
import { qualifiedRef, resolveAmong } from '../../format/refs.js'
import type { Store } from '../../store/store.js'
import { claimedElsewhere } from '../claims/arbiter.js'
import { CycleError } from '../plan/cpm.js'
import { frontier } from '../plan/frontier.js'
import { type PlanTask, type Schedule, schedule } from '../plan/schedule.js'

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

/** Every loaded task as the schedule engine sees it, dependencies resolved to ids. */
function planTasks(plan: Plan): PlanTask[] {
  return [...plan.byId.values()].map((t) => ({
    id: t.id,
    project: t.project,
    status: t.status,
    priority: t.priority,
    te: t.estimate === null ? null : (t.estimate.optimistic + 4 * t.estimate.probable + t.estimate.pessimistic) / 6,
    deps: depsOf(plan, t),
  }))
}

/** A task's dependencies, each resolved to a task id (left as written when it does not resolve). */
export const depsOf = (plan: Plan, t: TaskSummary) =>
  t.depends_on.map((d) => ({ on: plan.target(t, d.on)?.id ?? d.on, type: d.type }))

/** The schedule of the plan's project (or of the workspace when `project` is undefined). Throws CycleError. */
export const scheduleOf = (plan: Plan, project: string | undefined) => schedule(planTasks(plan), project ?? null)

/** The ready frontier of a plan, ordered by priority, then slack (when every task in scope is sized), then sequence. */
export function readyFrontier<H = never>(
  plan: Plan,
  limit: number,
  project?: string,
  claimedElsewhere: ReadonlySet<string> = new Set(),
  /** Why a ready task is held back (overlapping work: footprint.ts), or null; see frontier(). */
  hold: ((t: TaskSummary, picked: readonly TaskSummary[]) => H | null) | null = null,
) {
  let slack: Map<string, number> | null = null
  let critical = new Set<string>()
  let s: Schedule | null = null
  try {
    s = scheduleOf(plan, project)
    if (s.duration !== null) {
      slack = new Map(s.rows.flatMap((r): [string, number][] => (r.slack === null ? [] : [[r.id, r.slack]])))
      critical = new Set(s.critical.map((c) => c.id))
    }
  } catch (e) {
    if (!(e instanceof CycleError)) throw e
    // A cycle leaves the order to priority and sequence; doctor and critical-path name it.
  }
  const statusOf = (id: string) => plan.byId.get(id)?.status ?? null
  const f = frontier(plan.tasks, (t) => depsOf(plan, t), statusOf, slack, limit, claimedElsewhere, hold)
  /** `schedule`: the plan's schedule, or null when a cycle leaves it undefined. */
  return { ...f, slack, critical, schedule: s }
}

/**
 * Tasks another clone holds a live claim on, from the last fetch of the remote's claims;
 * with `fetch`, fetched first (claims.remote in config.yml, else origin; an unreachable remote is exit 1).
 */
export async function remoteClaims(
  store: Store,
  env: Readonly<Record<string, string | undefined>>,
  now: Date,
  fetch: { label: string } | null,
): Promise<Set<string>> {
  if (fetch !== null) {
    const { openClaims } = await import('../claims/remote.js')
    await openClaims(store, env, store.config.claims_remote ?? 'origin').fetchAll(now, fetch.label)
  }
  return claimedElsewhere(store, now)
}
