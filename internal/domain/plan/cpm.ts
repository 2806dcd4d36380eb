import { byText } from '../../base/order.js'
// The critical path method over FS/SS/FF/SF links (no lags). Pure: values in,
// values out.
//
// Forward pass, for a link P → S:   FS: ES(S) ≥ EF(P)         SS: ES(S) ≥ ES(P)
//                                   FF: EF(S) ≥ EF(P)         SF: EF(S) ≥ ES(P)
// Backward pass mirrors it:         FS: LF(P) ≤ LS(S)         SS: LS(P) ≤ LS(S)
//                                   FF: LF(P) ≤ LF(S)         SF: LS(P) ≤ LF(S)
// Slack = LS − ES; a task with zero slack is critical.
//
// Unsized tasks (no Te) never erase the rest: a value is null only when it
// depends on a duration nobody gave. A task's ES is known when every value its
// links need upstream is known (an unsized task may still have a known start);
// its LF when every value needed downstream is known. The backward pass ends at
// the latest known finish, so slack is measured against the sized part of the
// schedule while anything is unsized.

export type LinkType = 'FS' | 'SS' | 'FF' | 'SF'

export interface CpmTask {
  id: string
  /** Expected duration Te, or null when the task is unsized. */
  te: number | null
  /** Predecessors (ids); links to ids outside the input are ignored. */
  deps: readonly { on: string; type: LinkType }[]
  /**
   * Already under way: it starts now (ES 0) whatever its links say, and FF/SF links push its finish instead of
   * its start (EF may then exceed ES + Te: it runs until what it finishes with is done).
   */
  started?: boolean
}

export interface CpmRow {
  id: string
  te: number | null
  es: number | null
  ef: number | null
  ls: number | null
  lf: number | null
  slack: number | null
  critical: boolean
}

/** A critical task with the critical links that drive it (the critical path as a DAG). */
export interface CriticalNode {
  id: string
  after: { id: string; type: LinkType }[]
}

export interface CpmResult {
  /** The duration (latest finish of the measured tasks), or null when one of them has no known finish. */
  duration: number | null
  /** The latest known finish of the measured tasks: the duration when every one is sized, else a lower bound. */
  duration_lower_bound: number | null
  rows: CpmRow[]
  /** The critical tasks (zero slack) ordered by early start, each with its critical predecessors. */
  critical: CriticalNode[]
  /** The critical tasks in order when they form one path; empty when they branch or when none is known. */
  critical_path: string[]
  unsized: string[]
}

export class CycleError extends Error {
  /** Starts and ends with the same id. */
  constructor(readonly cycle: readonly [string, ...string[]]) {
    super(`dependency cycle: ${cycle.join(' → ')}`)
  }
}

const EPS = 1e-9
// Values are kept in typed arrays by task index, NaN standing for "unknown" (null in the result): NaN carries
// through +, −, Math.max and Math.min exactly as an unknown value must, and a workspace of 10,000 tasks is
// scheduled without a map lookup or an allocation per link.
const round = (n: number) => (Number.isNaN(n) ? null : Math.round(n * 1000) / 1000)
const same = (a: number, b: number) => !Number.isNaN(a) && !Number.isNaN(b) && Math.abs(a - b) < EPS

/** The tasks as a graph over indices: one node per id (the last task given with an id), links to known ids. */
interface Graph {
  ids: string[]
  index: Map<string, number>
  node: CpmTask[]
  /** Each node's links to known predecessors, in the order of its deps: [predecessor, type]. */
  preds: [number, LinkType][][]
}

function graphOf(tasks: readonly CpmTask[]): Graph {
  const ids: string[] = []
  const index = new Map<string, number>()
  const node: CpmTask[] = []
  for (const t of tasks) {
    let v = index.get(t.id)
    if (v === undefined) {
      v = ids.length
      index.set(t.id, v)
      ids.push(t.id)
    }
    node[v] = t
  }
  const preds = node.map((t) => {
    const out: [number, LinkType][] = []
    for (const d of t.deps) {
      const u = index.get(d.on)
      if (u !== undefined) out.push([u, d.type])
    }
    return out
  })
  return { ids, index, node, preds }
}

/** Node indices in dependency order (depth first from the ids in code-unit order); throws CycleError. */
function topoIndex(g: Graph): number[] {
  const state = new Uint8Array(g.ids.length) // 0 new, 1 on the path, 2 placed
  const order: number[] = []
  const path: number[] = []
  const at: number[] = [] // per path entry: the next link to follow
  const roots = g.ids.map((_, v) => v).sort((a, b) => byText(g.ids[a] as string, g.ids[b] as string))
  for (const root of roots) {
    if (state[root] !== 0) continue
    state[root] = 1
    path.push(root)
    at.push(0)
    while (path.length > 0) {
      const v = path[path.length - 1] as number
      const k = at[at.length - 1] as number
      const links = g.preds[v] as [number, LinkType][]
      if (k < links.length) {
        at[at.length - 1] = k + 1
        const u = (links[k] as [number, LinkType])[0]
        if (state[u] === 2) continue
        if (state[u] === 1) {
          const id = g.ids[u] as string
          throw new CycleError([id, ...path.slice(path.indexOf(u) + 1).map((i) => g.ids[i] as string), id])
        }
        state[u] = 1
        path.push(u)
        at.push(0)
      } else {
        path.pop()
        at.pop()
        state[v] = 2
        order.push(v)
      }
    }
  }
  return order
}

/** Ids in dependency order; throws CycleError naming one cycle. */
export function topoOrder(tasks: readonly CpmTask[]): string[] {
  const g = graphOf(tasks)
  return topoIndex(g).map((v) => g.ids[v] as string)
}

const teOf = (t: CpmTask) => (t.te === null ? Number.NaN : t.te)

/**
 * `measured` picks the tasks whose finish is the duration (default: all). A per-project schedule passes its own
 * tasks, so another project's tasks it waits on constrain it without stretching its end.
 */
export function criticalPath(tasks: readonly CpmTask[], opts: { measured?: (id: string) => boolean } = {}): CpmResult {
  const g = graphOf(tasks)
  const order = topoIndex(g)
  const n = g.ids.length
  const measured = opts.measured ?? (() => true)
  const unsized = tasks.filter((t) => t.te === null).map((t) => t.id)
  const es = new Float64Array(n)
  const ef = new Float64Array(n)
  for (const v of order) {
    const t = g.node[v] as CpmTask
    const te = teOf(t)
    const links = g.preds[v] as [number, LinkType][]
    if (t.started === true) {
      let finish = te
      for (const [u, type] of links) {
        if (type === 'FF') finish = Math.max(finish, ef[u] as number)
        else if (type === 'SF') finish = Math.max(finish, es[u] as number)
      }
      es[v] = 0
      ef[v] = finish
      continue
    }
    let start = 0
    for (const [u, type] of links) {
      const bound =
        type === 'FS'
          ? (ef[u] as number)
          : type === 'SS'
            ? (es[u] as number)
            : type === 'FF'
              ? (ef[u] as number) - te
              : (es[u] as number) - te
      start = Math.max(start, bound)
    }
    es[v] = start
    ef[v] = start + te
  }
  let anyMeasured = false
  let allKnown = true
  let anyKnown = false
  let end = 0
  for (const v of order) {
    if (!measured(g.ids[v] as string)) continue
    anyMeasured = true
    const f = ef[v] as number
    if (Number.isNaN(f)) allKnown = false
    else {
      anyKnown = true
      end = Math.max(end, f)
    }
  }
  if (anyMeasured && !anyKnown) end = Number.NaN
  const duration = !anyMeasured ? 0 : allKnown ? end : Number.NaN

  // How long each task occupies the schedule: Te, or a started task's stretched span.
  const span = (v: number) => ((g.node[v] as CpmTask).started === true ? (ef[v] as number) : teOf(g.node[v] as CpmTask))
  const succ: [number, LinkType][][] = Array.from({ length: n }, () => [])
  for (const t of tasks) {
    const v = g.index.get(t.id) as number
    for (const d of t.deps) {
      const u = g.index.get(d.on)
      if (u !== undefined) (succ[u] as [number, LinkType][]).push([v, d.type])
    }
  }
  const lf = new Float64Array(n)
  const ls = new Float64Array(n)
  for (let k = order.length - 1; k >= 0; k--) {
    const v = order[k] as number
    const te = span(v)
    let finish = end
    for (const [s, type] of succ[v] as [number, LinkType][]) {
      const bound =
        type === 'FS'
          ? (ls[s] as number)
          : type === 'SS'
            ? (ls[s] as number) + te
            : type === 'FF'
              ? (lf[s] as number)
              : (lf[s] as number) + te
      finish = Math.min(finish, bound)
    }
    lf[v] = finish
    ls[v] = finish - te
  }
  const rows: CpmRow[] = order.map((v) => {
    const slack = (ls[v] as number) - (es[v] as number)
    return {
      id: g.ids[v] as string,
      te: (g.node[v] as CpmTask).te,
      es: round(es[v] as number),
      ef: round(ef[v] as number),
      ls: round(ls[v] as number),
      lf: round(lf[v] as number),
      slack: Number.isNaN(slack) ? null : round(Math.max(0, slack)),
      critical: !Number.isNaN(slack) && Math.abs(slack) < EPS,
    }
  })
  const critical = criticalDag(rows, g, es, ef)
  return {
    duration: round(duration),
    duration_lower_bound: round(end),
    rows,
    critical,
    critical_path: chainOf(critical),
    unsized,
  }
}

/** Each critical task with the links from critical predecessors that are tight (the ones that set its dates). */
function criticalDag(rows: readonly CpmRow[], g: Graph, es: Float64Array, ef: Float64Array): CriticalNode[] {
  const crit = new Set(rows.filter((r) => r.critical).map((r) => r.id))
  const tight = (p: number, s: number, type: LinkType) =>
    type === 'FS'
      ? same(ef[p] as number, es[s] as number)
      : type === 'SS'
        ? same(es[p] as number, es[s] as number)
        : type === 'FF'
          ? same(ef[p] as number, ef[s] as number)
          : same(es[p] as number, ef[s] as number)
  return rows
    .filter((r) => crit.has(r.id))
    .sort((a, b) => (a.es as number) - (b.es as number) || (a.ef as number) - (b.ef as number) || byText(a.id, b.id))
    .map((r) => {
      const v = g.index.get(r.id) as number
      return {
        id: r.id,
        after: ((g.node[v] as CpmTask).deps ?? [])
          .filter((d) => crit.has(d.on) && tight(g.index.get(d.on) as number, v, d.type))
          .map((d) => ({ id: d.on, type: d.type }))
          .sort((a, b) => byText(a.id, b.id)),
      }
    })
}

/** The critical tasks in order when they form a single path (one start, each linked to the next), else []. */
function chainOf(nodes: readonly CriticalNode[]): string[] {
  if (nodes.length === 0) return []
  const next = new Map<string, string[]>()
  for (const n of nodes) for (const a of n.after) next.set(a.id, [...(next.get(a.id) ?? []), n.id])
  const starts = nodes.filter((n) => n.after.length === 0)
  if (starts.length !== 1 || nodes.some((n) => new Set(n.after.map((a) => a.id)).size > 1)) return []
  const chain: string[] = []
  for (let cur: string | undefined = starts[0]?.id; cur !== undefined; ) {
    chain.push(cur)
    const after = [...new Set(next.get(cur) ?? [])]
    if (after.length > 1) return []
    cur = after[0]
  }
  return chain.length === nodes.length ? chain : []
}
