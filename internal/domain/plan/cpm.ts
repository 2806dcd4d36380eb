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

/** A link type as a number, for the typed arrays below. */
const FS = 0
const SS = 1
const FF = 2
const SF = 3
const codeOf = (t: LinkType) => (t === 'SS' ? SS : t === 'FF' ? FF : t === 'SF' ? SF : FS)

/**
 * The tasks as a graph over indices: one node per id (the last task given with an id), links to known ids. Links
 * are kept flat, node by node (the links of `v` are at `start[v]` up to `start[v + 1]`), in typed arrays walked by
 * index: a schedule of 10,000 tasks runs once per process, before V8 has optimized anything, and there a tuple per
 * link and a `for…of` per node cost more than the arithmetic.
 */
interface Graph {
  ids: string[]
  index: Map<string, number>
  node: CpmTask[]
  /** Each node's links to known predecessors, in the order of its deps. */
  preds: Links
}

interface Links {
  start: Int32Array
  to: Int32Array
  type: Uint8Array
}

function graphOf(tasks: readonly CpmTask[]): Graph {
  const ids: string[] = []
  const index = new Map<string, number>()
  const node: CpmTask[] = []
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i] as CpmTask
    let v = index.get(t.id)
    if (v === undefined) {
      v = ids.length
      index.set(t.id, v)
      ids.push(t.id)
    }
    node[v] = t
  }
  const n = ids.length
  const start = new Int32Array(n + 1)
  const to: number[] = []
  const type: number[] = []
  for (let v = 0; v < n; v++) {
    start[v] = to.length
    const deps = (node[v] as CpmTask).deps
    for (let k = 0; k < deps.length; k++) {
      const d = deps[k] as { on: string; type: LinkType }
      const u = index.get(d.on)
      if (u === undefined) continue
      to.push(u)
      type.push(codeOf(d.type))
    }
  }
  start[n] = to.length
  return { ids, index, node, preds: { start, to: Int32Array.from(to), type: Uint8Array.from(type) } }
}

/** The same links the other way round: each node's successors. */
function reversed(l: Links, n: number): Links {
  const start = new Int32Array(n + 1)
  for (let k = 0; k < l.to.length; k++) (start[(l.to[k] as number) + 1] as number)++
  for (let v = 0; v < n; v++) start[v + 1] = (start[v + 1] as number) + (start[v] as number)
  const fill = start.slice(0, n)
  const to = new Int32Array(l.to.length)
  const type = new Uint8Array(l.to.length)
  for (let v = 0; v < n; v++) {
    for (let k = l.start[v] as number; k < (l.start[v + 1] as number); k++) {
      const u = l.to[k] as number
      const at = fill[u] as number
      fill[u] = at + 1
      to[at] = v
      type[at] = l.type[k] as number
    }
  }
  return { start, to, type }
}

/** Node indices in dependency order (depth first from the ids in code-unit order); throws CycleError. */
function topoIndex(g: Graph): Int32Array {
  const n = g.ids.length
  const { start, to } = g.preds
  const state = new Uint8Array(n) // 0 new, 1 on the path, 2 placed
  const order = new Int32Array(n)
  let placed = 0
  const path: number[] = []
  const at: number[] = [] // per path entry: the next link to follow
  // Code-unit order, as byText orders: the default sort of strings.
  const sorted = [...g.ids].sort()
  for (let r = 0; r < n; r++) {
    const root = g.index.get(sorted[r] as string) as number
    if (state[root] !== 0) continue
    state[root] = 1
    path.push(root)
    at.push(start[root] as number)
    while (path.length > 0) {
      const top = path.length - 1
      const v = path[top] as number
      const k = at[top] as number
      if (k < (start[v + 1] as number)) {
        at[top] = k + 1
        const u = to[k] as number
        if (state[u] === 2) continue
        if (state[u] === 1) {
          const id = g.ids[u] as string
          throw new CycleError([id, ...path.slice(path.indexOf(u) + 1).map((i) => g.ids[i] as string), id])
        }
        state[u] = 1
        path.push(u)
        at.push(start[u] as number)
      } else {
        path.pop()
        at.pop()
        state[v] = 2
        order[placed++] = v
      }
    }
  }
  return order
}

/** Ids in dependency order; throws CycleError naming one cycle. */
export function topoOrder(tasks: readonly CpmTask[]): string[] {
  const g = graphOf(tasks)
  return Array.from(topoIndex(g), (v) => g.ids[v] as string)
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
  const { start, to, type } = g.preds
  for (let i = 0; i < n; i++) {
    const v = order[i] as number
    const t = g.node[v] as CpmTask
    const te = teOf(t)
    const last = start[v + 1] as number
    if (t.started === true) {
      let finish = te
      for (let k = start[v] as number; k < last; k++) {
        const u = to[k] as number
        if (type[k] === FF) finish = Math.max(finish, ef[u] as number)
        else if (type[k] === SF) finish = Math.max(finish, es[u] as number)
      }
      es[v] = 0
      ef[v] = finish
      continue
    }
    let begin = 0
    for (let k = start[v] as number; k < last; k++) {
      const u = to[k] as number
      const c = type[k]
      const bound =
        c === FS
          ? (ef[u] as number)
          : c === SS
            ? (es[u] as number)
            : c === FF
              ? (ef[u] as number) - te
              : (es[u] as number) - te
      begin = Math.max(begin, bound)
    }
    es[v] = begin
    ef[v] = begin + te
  }
  let anyMeasured = false
  let allKnown = true
  let anyKnown = false
  let end = 0
  for (let i = 0; i < n; i++) {
    const v = order[i] as number
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
  const succ = reversed(g.preds, n)
  const lf = new Float64Array(n)
  const ls = new Float64Array(n)
  for (let i = n - 1; i >= 0; i--) {
    const v = order[i] as number
    const te = span(v)
    let finish = end
    for (let k = succ.start[v] as number; k < (succ.start[v + 1] as number); k++) {
      const s = succ.to[k] as number
      const c = succ.type[k]
      const bound =
        c === FS
          ? (ls[s] as number)
          : c === SS
            ? (ls[s] as number) + te
            : c === FF
              ? (lf[s] as number)
              : (lf[s] as number) + te
      finish = Math.min(finish, bound)
    }
    lf[v] = finish
    ls[v] = finish - te
  }
  const rows: CpmRow[] = Array.from(order, (v) => {
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
