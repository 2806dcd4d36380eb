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
import {
  type CpmResult,
  type CpmRow,
  criticalAt,
  datesAt,
  LinkBuilder,
  type LinkType,
  linkName,
  type Net,
  slackAt,
  solve,
  summaryOf,
} from './cpm.js'
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

/**
 * The schedule of one project (`project`) or of the whole workspace (null). Throws CycleError. Ids are unique (the
 * last task given with an id stands for it).
 *
 * Worked on task positions from start to end: the plan is a flag per position, the net (cpm.ts) is built straight
 * from the tasks, and each row is made once. A workspace of 10,000 tasks is scheduled once per `next`, before V8
 * has optimized anything, where a map per step, an input object per task and a second row per task cost a third of
 * the schedule (86 → 61 ms in a fresh process).
 */
export function schedule(all: readonly PlanTask[], project: string | null): Schedule {
  const n0 = all.length
  const position = new Map<string, number>()
  for (let i = 0; i < n0; i++) position.set((all[i] as PlanTask).id, i)
  // The plan: each position's node (-1: not in the plan), and the positions by node, in the order they joined.
  const node = new Int32Array(n0).fill(-1)
  const nodes: number[] = []
  const own = new Uint8Array(n0)
  const join = (i: number) => {
    node[i] = nodes.length
    nodes.push(i)
  }
  for (let i = 0; i < n0; i++) {
    const t = all[i] as PlanTask
    if (position.get(t.id) !== i || (project !== null && t.project !== project)) continue
    own[i] = 1
    if (planned(t)) join(i)
  }
  // Another project's unfinished work this project waits on, transitively.
  const stack = [...nodes]
  while (stack.length > 0) {
    const deps = (all[stack.pop() as number] as PlanTask).deps
    for (let k = 0; k < deps.length; k++) {
      const j = position.get((deps[k] as PlanTask['deps'][number]).on)
      if (j === undefined || node[j] !== -1 || !planned(all[j] as PlanTask)) continue
      join(j)
      stack.push(j)
    }
  }
  // The links that constrain: to tasks in the plan; an active task's start is met, so only FF and SF hold it.
  const n = nodes.length
  const ids: string[] = new Array(n)
  const te = new Float64Array(n)
  const started = new Uint8Array(n)
  const links = new LinkBuilder(n)
  for (let v = 0; v < n; v++) {
    const t = all[nodes[v] as number] as PlanTask
    ids[v] = t.id
    te[v] = t.te === null ? Number.NaN : t.te
    const active = t.status === 'active'
    started[v] = active ? 1 : 0
    for (let k = 0; k < t.deps.length; k++) {
      const d = t.deps[k] as PlanTask['deps'][number]
      const j = position.get(d.on)
      if (j === undefined || node[j] === -1) continue
      const type = link(d.type)
      if (!active || type === 'FF' || type === 'SF') links.link(node[j] as number, type)
    }
    links.close()
  }
  const net: Net = { ids, nodeOf: (id) => node[position.get(id) as number] as number, te, started, preds: links.done() }
  const isOwn = (v: number) => own[nodes[v] as number] === 1
  const solved = solve(net, project === null ? null : isOwn)
  const rows: ScheduleRow[] = new Array(n)
  for (let i = 0; i < n; i++) {
    const v = solved.order[i] as number
    const t = all[nodes[v] as number] as PlanTask
    const d = datesAt(solved, v)
    rows[i] = {
      id: t.id,
      te: t.te,
      es: d.es,
      ef: d.ef,
      ls: d.ls,
      lf: d.lf,
      slack: slackAt(solved, v),
      critical: criticalAt(solved, v),
      project: t.project,
      status: t.status,
      external: !isOwn(v),
    }
  }
  const unsized: string[] = []
  for (let v = 0; v < n; v++) if ((all[nodes[v] as number] as PlanTask).te === null) unsized.push(ids[v] as string)
  // The planned tasks depending on each wont task, in one pass over the plan.
  const wontOwn = all.filter((t, i) => own[i] === 1 && t.status !== 'done' && t.priority === 'wont')
  const wont = new Map(wontOwn.map((t) => [t.id, [] as string[]]))
  if (wont.size > 0) {
    for (const i of nodes) {
      const x = all[i] as PlanTask
      for (const d of x.deps) {
        const list = wont.get(d.on)
        if (list !== undefined && list[list.length - 1] !== x.id) list.push(x.id)
      }
    }
  }
  const excluded = wontOwn
    .map((t) => ({ id: t.id, reason: 'wont' as const, dependents: wont.get(t.id) as string[] }))
    .sort((a, b) => byText(a.id, b.id))
  const { start, to, type } = net.preds
  const linkList: Schedule['links'] = []
  for (let v = 0; v < n; v++)
    for (let k = start[v] as number; k < (start[v + 1] as number); k++)
      linkList.push({ from: ids[to[k] as number] as string, to: ids[v] as string, type: linkName(type[k] as number) })
  const { duration, duration_lower_bound, critical, critical_path } = summaryOf(net, solved)
  const scope = project === null ? 'workspace' : 'project'
  return { duration, duration_lower_bound, rows, critical, critical_path, unsized, scope, excluded, links: linkList }
}
