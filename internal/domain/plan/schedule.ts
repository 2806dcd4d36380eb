// The schedule behind `critical-path` (and `next`'s slack): which tasks are in the
// plan, which links constrain them, then CPM. Pure: values in, values out.
//
// - In the plan: open, active and blocked tasks (a blocked task stays, marked, so
//   what depends on it keeps its place). Done tasks are finished: links to them are
//   met. `wont` tasks are out of the plan and listed as excluded.
// - An active task has started: it starts now (ES 0); links that constrain its
//   start (FS, SS) are met, and FF or SF links push its finish (it runs on until
//   what it finishes with allows).
// - A project's schedule also holds the tasks of other projects it waits on
//   (upstream, transitively), marked external: they constrain it but its duration
//   is its own tasks' finish. The workspace's schedule holds every project.

import { byText } from '../../base/order.js'
import { type CpmResult, type CpmRow, type CpmTask, criticalPath, type LinkType } from './cpm.js'
import type { TaskState } from './readiness.js'

export interface PlanTask {
  id: string
  project: string
  status: TaskState
  priority: string | null
  /** Expected duration Te, or null when unsized. */
  te: number | null
  /** Dependencies, each resolved to a task id (or left as written when it does not resolve). */
  deps: readonly { on: string; type: string }[]
}

export interface ScheduleRow extends CpmRow {
  project: string
  status: TaskState
  /** A task of another project that this project's schedule waits on. */
  external: boolean
}

export interface Schedule extends Omit<CpmResult, 'rows'> {
  scope: 'project' | 'workspace'
  rows: ScheduleRow[]
  /** Tasks left out of the plan (`wont`), with the planned tasks that depend on them. */
  excluded: { id: string; reason: 'wont'; dependents: string[] }[]
  /** The links that constrain the schedule (after the rules above). */
  links: { from: string; to: string; type: LinkType }[]
}

const link = (type: string): LinkType => (type === 'SS' || type === 'FF' || type === 'SF' ? type : 'FS')
const planned = (t: PlanTask) => t.status !== 'done' && t.priority !== 'wont'

/** The schedule of one project (`project`) or of the whole workspace (null). Throws CycleError. */
export function schedule(all: readonly PlanTask[], project: string | null): Schedule {
  const byId = new Map(all.map((t) => [t.id, t]))
  const own = all.filter((t) => (project === null || t.project === project) && t.status !== 'done')
  const inPlan = new Map(own.filter(planned).map((t) => [t.id, t]))
  // Another project's unfinished work this project waits on, transitively.
  const stack = [...inPlan.values()]
  while (stack.length > 0) {
    const t = stack.pop() as PlanTask
    for (const d of t.deps) {
      const p = byId.get(d.on)
      if (p === undefined || inPlan.has(p.id) || !planned(p)) continue
      inPlan.set(p.id, p)
      stack.push(p)
    }
  }
  const constraining = (t: PlanTask, type: LinkType) => t.status !== 'active' || type === 'FF' || type === 'SF'
  const input: CpmTask[] = [...inPlan.values()].map((t) => ({
    id: t.id,
    te: t.te,
    started: t.status === 'active',
    deps: t.deps
      .filter((d) => inPlan.has(d.on) && constraining(t, link(d.type)))
      .map((d) => ({ on: d.on, type: link(d.type) })),
  }))
  const isOwn = (id: string) => project === null || byId.get(id)?.project === project
  const cpm = criticalPath(input, { measured: isOwn })
  // Each row's fields written out (a spread of 8 fields, 10,000 times, was a tenth of the whole schedule).
  const rows: ScheduleRow[] = cpm.rows.map((r) => {
    const t = byId.get(r.id) as PlanTask
    return {
      id: r.id,
      te: r.te,
      es: r.es,
      ef: r.ef,
      ls: r.ls,
      lf: r.lf,
      slack: r.slack,
      critical: r.critical,
      project: t.project,
      status: t.status,
      external: !isOwn(r.id),
    }
  })
  // The planned tasks depending on each wont task, in one pass over the plan.
  const wont = new Map(own.filter((t) => t.priority === 'wont').map((t) => [t.id, [] as string[]]))
  if (wont.size > 0) {
    for (const x of inPlan.values()) {
      for (const d of x.deps) {
        const list = wont.get(d.on)
        if (list !== undefined && list[list.length - 1] !== x.id) list.push(x.id)
      }
    }
  }
  const excluded = own
    .filter((t) => t.priority === 'wont')
    .map((t) => ({ id: t.id, reason: 'wont' as const, dependents: wont.get(t.id) as string[] }))
    .sort((a, b) => byText(a.id, b.id))
  return {
    ...cpm,
    scope: project === null ? 'workspace' : 'project',
    rows,
    excluded,
    links: input.flatMap((t) => t.deps.map((d) => ({ from: d.on, to: t.id, type: d.type }))),
  }
}
