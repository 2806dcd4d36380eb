// The planning view behind next, overview, critical-path, doctor and explain: task
// summaries with every dependency resolved to the task it names, and the schedule
// and ready frontier over them (the engines decide; this loads and wires).

import type { Broken, TaskSummary } from '../../format/model.js'
import { qualifiedRef, resolveAmong } from '../../format/refs.js'
import { type Patch, patchOf } from '../../store/livekept.js'
import type { Store } from '../../store/store.js'
import { claimedElsewhere } from '../claims/arbiter.js'
import { CycleError } from '../plan/cpm.js'
import { frontier } from '../plan/frontier.js'
import { type PlanTask, type Schedule, schedule } from '../plan/schedule.js'

export interface Plan {
  /** The tasks in scope (a project's, or every project's). */
  tasks: readonly TaskSummary[]
  /** Shared between the calls over one listing: never changed. */
  byId: ReadonlyMap<string, TaskSummary>
  /** A dependency's target, or null when it does not resolve. */
  target(t: TaskSummary, on: string): TaskSummary | null
  broken: readonly Broken[]
}

/** A task's reference when the plan holds it, else its id as given. */
export function refIn(plan: Plan, id: string): string {
  const t = plan.byId.get(id)
  return t ? qualifiedRef(t) : id
}

/**
 * The tasks of a listing by id, made once per listing (a server's calls share one listing while nothing changed:
 * joinListings). Shared: callers only read it.
 */
const byIds = new WeakMap<readonly TaskSummary[], ReadonlyMap<string, TaskSummary>>()

export function byIdOf(tasks: readonly TaskSummary[]): ReadonlyMap<string, TaskSummary> {
  const kept = byIds.get(tasks)
  if (kept !== undefined) return kept
  // A listing patched from the one before (the same tasks, some summaries read again): that one's, those replaced.
  const patch = patchOf(tasks)
  const from = patch === undefined ? undefined : byIds.get(patch.from)
  const m = new Map<string, TaskSummary>(from)
  if (from !== undefined) for (const [, now] of (patch as Patch).swaps) m.set(now.id, now)
  else for (const t of tasks) m.set(t.id, t)
  byIds.set(tasks, m)
  return m
}

export async function loadPlan(store: Store, project?: string): Promise<Plan> {
  const local = await store.listTasks(project)
  let all = local.tasks
  let byId = byIdOf(all)
  // Dependencies may cross projects: load the rest only when one points outside.
  if (project !== undefined && all.some((t) => t.depends_on.some((d) => !byId.has(d.on)))) {
    all = (await store.listTasks()).tasks
    byId = byIdOf(all)
  }
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

/**
 * The schedule engine's view of each summary whose dependencies all name, by id, a task the plan holds: such a view
 * is a function of the summary alone (a dependency that names a task of the plan resolves to that task's own id), and
 * a summary is never changed once listed, so a long-lived server's calls over a listing it keeps reuse the views
 * instead of making ten thousand again per call. A dependency written as a reference, or naming a task the plan does
 * not hold, resolves against the plan, so its task's view is made afresh every time.
 */
const views = new WeakMap<TaskSummary, PlanTask>()

/** Whether every dependency of `t` names, by id, a task the plan holds. */
function resolvesToItself(plan: Plan, t: TaskSummary): boolean {
  const deps = t.depends_on
  for (let i = 0; i < deps.length; i++)
    if (!plan.byId.has((deps[i] as TaskSummary['depends_on'][number]).on)) return false
  return true
}

/** A task as the schedule engine sees it, dependencies resolved to ids (shared: callers only read it). */
export function engineView(plan: Plan, t: TaskSummary): PlanTask {
  const own = resolvesToItself(plan, t)
  let v = own ? views.get(t) : undefined
  if (v !== undefined) return v
  const e = t.estimate
  v = {
    id: t.id,
    project: t.project,
    status: t.status,
    priority: t.priority,
    te: e === null ? null : (e.optimistic + 4 * e.probable + e.pessimistic) / 6,
    // Every dependency naming a task of the plan by id resolves to that id: the summary's own list is the view's.
    deps: own ? t.depends_on : depsOf(plan, t),
  }
  if (own) views.set(t, v)
  return v
}

/** Every loaded task as the schedule engine sees it. */
function planTasks(plan: Plan): PlanTask[] {
  // Made to size, and without an iterator result per task (see frontier.ts): a server's `next_tasks` over 10,000 tasks.
  const out = new Array<PlanTask>(plan.byId.size)
  let i = 0
  plan.byId.forEach((t) => {
    out[i++] = engineView(plan, t)
  })
  return out
}

/** A task's dependencies, each resolved to a task id (left as written when it does not resolve). */
export const depsOf = (plan: Plan, t: TaskSummary) =>
  t.depends_on.map((d) => ({ on: plan.target(t, d.on)?.id ?? d.on, type: d.type }))

/** The schedule of the plan's project (or of the workspace when `project` is undefined). Throws CycleError. */
export const scheduleOf = (plan: Plan, project: string | undefined) => schedule(planTasks(plan), project ?? null)

/**
 * The last schedules worked out, by scope, with the engine's input they were worked out from: the schedule is a pure
 * function of that input (ids, projects, statuses, priorities, estimates, resolved dependencies, in order), so a plan
 * whose input is equal in every field gets the same schedule without running CPM again (a long-lived server's
 * `next_tasks` after an edit that changed no such field: a title, a body, a criterion). Never a kept answer: the
 * input is made afresh from the files on every call and compared whole. Shared: callers only read it.
 */
const schedules = new Map<string, { input: PlanTask[]; schedule: Schedule }>()
/**
 * How many scopes' schedules are kept, and how many tasks their inputs may hold together (a project's input holds
 * every task when a dependency leaves it): each scope a server's calls go round must stay (a bound below the number
 * of projects would drop every one before its next call), and the memory stays within a few times the workspace's.
 */
const SCHEDULES_KEPT = 64
const SCHEDULED_TASKS_KEPT = 250_000

const sameInput = (a: readonly PlanTask[], b: readonly PlanTask[]): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as PlanTask
    const y = b[i] as PlanTask
    if (x === y) continue
    if (x.id !== y.id || x.project !== y.project || x.status !== y.status || x.priority !== y.priority) return false
    if (x.te !== y.te || x.deps.length !== y.deps.length) return false
    for (let j = 0; j < x.deps.length; j++) {
      const d = x.deps[j] as PlanTask['deps'][number]
      const e = y.deps[j] as PlanTask['deps'][number]
      if (d.on !== e.on || d.type !== e.type) return false
    }
  }
  return true
}

/** A schedule's slack by task and its critical tasks (what orders the frontier), worked out once per schedule. */
const ordering = new WeakMap<Schedule, { slack: Map<string, number>; critical: Set<string> }>()

/** scheduleOf, the same schedule again when the engine's input is equal to the last one's for this scope. */
function sharedScheduleOf(plan: Plan, project: string | undefined): Schedule {
  const input = planTasks(plan)
  const key = project ?? '\u0000'
  const last = schedules.get(key)
  if (last !== undefined && sameInput(last.input, input)) return last.schedule
  const s = schedule(input, project ?? null)
  schedules.delete(key)
  schedules.set(key, { input, schedule: s })
  let held = 0
  for (const k of schedules.values()) held += k.input.length
  for (const [k, v] of schedules) {
    if (schedules.size <= SCHEDULES_KEPT && held <= SCHEDULED_TASKS_KEPT) break
    if (k === key) break
    schedules.delete(k)
    held -= v.input.length
  }
  return s
}

/** The ready frontier of a plan, ordered by priority, then slack (when every task in scope is sized), then sequence. */
/**
 * Whether every open and active task in scope (the plan's tasks — a label filter's — of `project`, or of all) has an
 * estimate: then slack orders equal priorities, though a blocked or out-of-scope task without one leaves the end date
 * unknown (slack is then measured against its lower bound, and a task whose slack hangs on an unsized one has none).
 */
function openAndActiveSized(plan: Plan, project: string | undefined): boolean {
  for (let i = 0; i < plan.tasks.length; i++) {
    const t = plan.tasks[i] as TaskSummary
    if (
      (t.status === 'open' || t.status === 'active') &&
      t.priority !== 'wont' &&
      (project === undefined || t.project === project)
    )
      if (t.estimate === null) return false
  }
  return true
}

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
    s = sharedScheduleOf(plan, project)
    if (s.duration !== null || openAndActiveSized(plan, project)) {
      let d = ordering.get(s)
      if (d === undefined) {
        d = { slack: new Map(), critical: new Set() }
        // Plain loops: a pair array per row was most of this step in a fresh process (10,000 rows).
        for (let i = 0; i < s.rows.length; i++) {
          const r = s.rows[i] as Schedule['rows'][number]
          if (r.slack !== null) d.slack.set(r.id, r.slack)
        }
        for (let i = 0; i < s.critical.length; i++) d.critical.add((s.critical[i] as Schedule['critical'][number]).id)
        ordering.set(s, d)
      }
      slack = d.slack
      critical = d.critical
    }
  } catch (e) {
    if (!(e instanceof CycleError)) throw e
    // A cycle leaves the order to priority and sequence; doctor and critical-path name it.
  }
  const statusOf = (id: string) => plan.byId.get(id)?.status ?? null
  const f = frontier(plan.tasks, (t) => engineView(plan, t).deps, statusOf, slack, limit, claimedElsewhere, hold)
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
