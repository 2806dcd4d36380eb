// What the slice's commands compute from the planning view (store/plan.ts): the schedule, the ready frontier, and
// the claims other clones hold.

import type { Context } from '../../clikit/context.js'
import { CycleError } from '../../engines/cpm.js'
import { frontier } from '../../engines/frontier.js'
import { type PlanTask, schedule } from '../../engines/schedule.js'
import { claimedElsewhere } from '../../store/claims.js'
import type { Store, TaskSummary } from '../../store/index.js'
import type { Plan } from '../../store/plan.js'

/** Every loaded task as the schedule engine sees it, dependencies resolved to ids. */
function planTasks(plan: Plan): PlanTask[] {
  return [...plan.byId.values()].map((t) => ({
    id: t.id,
    project: t.project,
    status: t.status,
    priority: t.priority,
    te: t.estimate === null ? null : (t.estimate.optimistic + 4 * t.estimate.probable + t.estimate.pessimistic) / 6,
    deps: t.depends_on.map((d) => ({ on: plan.target(t, d.on)?.id ?? d.on, type: d.type })),
  }))
}

/** The schedule of the plan's project (or of the workspace when `project` is undefined). Throws CycleError. */
export const scheduleOf = (plan: Plan, project: string | undefined) => schedule(planTasks(plan), project ?? null)

/** The ready frontier of a plan, ordered by priority, then slack (when every task in scope is sized), then sequence. */
export function readyFrontier(
  plan: Plan,
  limit: number,
  project?: string,
  claimedElsewhere: ReadonlySet<string> = new Set(),
) {
  let slack: Map<string, number> | null = null
  let critical = new Set<string>()
  try {
    const s = scheduleOf(plan, project)
    if (s.duration !== null) {
      slack = new Map(s.rows.flatMap((r): [string, number][] => (r.slack === null ? [] : [[r.id, r.slack]])))
      critical = new Set(s.critical.map((c) => c.id))
    }
  } catch (e) {
    if (!(e instanceof CycleError)) throw e
    // A cycle leaves the order to priority and sequence; doctor and critical-path name it.
  }
  const statusOf = (id: string) => plan.byId.get(id)?.status ?? null
  const depsOf = (t: TaskSummary) => t.depends_on.map((d) => ({ on: plan.target(t, d.on)?.id ?? d.on, type: d.type }))
  const f = frontier(plan.tasks, depsOf, statusOf, slack, limit, claimedElsewhere)
  return { ...f, slack, critical }
}

/**
 * Tasks another clone holds a live claim on, from the last fetch of the remote's claims (coordination.md);
 * with `fetch`, fetched first (claims.remote in config.yml, else origin; an unreachable remote is exit 1).
 */
export async function remoteClaims(ctx: Context, store: Store, fetch: boolean): Promise<Set<string>> {
  if (fetch) {
    const { openClaims } = await import('../../gitx/claims.js')
    await openClaims(store, ctx.env, store.config.claims_remote ?? 'origin').fetchAll(
      ctx.now(),
      'dacli next (without --fetch: the claims as last fetched)',
    )
  }
  return claimedElsewhere(store, ctx.now())
}
