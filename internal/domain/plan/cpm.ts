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
 * The tasks as the passes take them, as a graph over node indices: node `v` is `ids[v]`, its expected duration
 * `te[v]` (NaN when unsized), whether it has `started`, and its links to predecessors, kept flat node by node (the
 * links of `v` are at `preds.start[v]` up to `preds.start[v + 1]`), in typed arrays walked by index: a schedule of
 * 10,000 tasks runs once per process, before V8 has optimized anything, and there a tuple per link and a `for…of`
 * per node cost more than the arithmetic. `nodeOf` gives an id's node (ids are unique).
 */
export interface Net {
  ids: readonly string[]
  nodeOf: (id: string) => number
  te: Float64Array
  started: Uint8Array
  /** Each node's links to predecessors in the net, in the order of its deps. */
  preds: Links
}

export interface Links {
  start: Int32Array
  to: Int32Array
  type: Uint8Array
}

/** The passes' results by node: dependency order, the four dates (NaN: unknown) and the duration. */
export interface Solved {
  order: Int32Array
  es: Float64Array
  ef: Float64Array
  ls: Float64Array
  lf: Float64Array
  /** The latest known finish of the measured nodes. */
  end: number
  /** NaN when a measured node has no known finish. */
  duration: number
}

/** A net's links in flat arrays, filled node by node: `link(to, type)` for each link of the node, then `close()`. */
export class LinkBuilder {
  private to: number[] = []
  private type: number[] = []
  private readonly start: Int32Array
  private v = 0
  constructor(n: number) {
    this.start = new Int32Array(n + 1)
  }
  link(to: number, type: LinkType): void {
    this.to.push(to)
    this.type.push(codeOf(type))
  }
  /** The node's links are all given. */
  close(): void {
    this.start[++this.v] = this.to.length
  }
  done(): Links {
    return { start: this.start, to: Int32Array.from(this.to), type: Uint8Array.from(this.type) }
  }
}

/** The name of a link type code. */
export const linkName = (c: number): LinkType => (c === SS ? 'SS' : c === FF ? 'FF' : c === SF ? 'SF' : 'FS')

/** The tasks as a net: one node per id (the last task given with an id), links to known ids. */
function netOf(tasks: readonly CpmTask[]): Net & { node: CpmTask[] } {
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
  const te = new Float64Array(n)
  const started = new Uint8Array(n)
  const links = new LinkBuilder(n)
  for (let v = 0; v < n; v++) {
    const t = node[v] as CpmTask
    te[v] = t.te === null ? Number.NaN : t.te
    started[v] = t.started === true ? 1 : 0
    for (let k = 0; k < t.deps.length; k++) {
      const d = t.deps[k] as { on: string; type: LinkType }
      const u = index.get(d.on)
      if (u !== undefined) links.link(u, d.type)
    }
    links.close()
  }
  return { ids, nodeOf: (id) => index.get(id) as number, te, started, preds: links.done(), node }
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
function topoIndex(g: Net): Int32Array {
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
    const root = g.nodeOf(sorted[r] as string)
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
  const g = netOf(tasks)
  return Array.from(topoIndex(g), (v) => g.ids[v] as string)
}

/**
 * The forward and backward passes over a net. `measured` picks the nodes whose finish is the duration (null: all).
 * Throws CycleError.
 */
export function solve(g: Net, measured: ((v: number) => boolean) | null): Solved {
  const order = topoIndex(g)
  const n = g.ids.length
  const es = new Float64Array(n)
  const ef = new Float64Array(n)
  const { start, to, type } = g.preds
  for (let i = 0; i < n; i++) {
    const v = order[i] as number
    const te = g.te[v] as number
    const last = start[v + 1] as number
    if (g.started[v] === 1) {
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
    if (measured !== null && !measured(v)) continue
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
  const succ = reversed(g.preds, n)
  const lf = new Float64Array(n)
  const ls = new Float64Array(n)
  for (let i = n - 1; i >= 0; i--) {
    const v = order[i] as number
    const te = g.started[v] === 1 ? (ef[v] as number) : (g.te[v] as number)
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
  return { order, es, ef, ls, lf, end, duration }
}

/** Node `v`'s slack, rounded (null when unknown), and whether it is critical. */
export const slackAt = (s: Solved, v: number): number | null => {
  const slack = (s.ls[v] as number) - (s.es[v] as number)
  return Number.isNaN(slack) ? null : round(Math.max(0, slack))
}
export const criticalAt = (s: Solved, v: number): boolean => {
  const slack = (s.ls[v] as number) - (s.es[v] as number)
  return !Number.isNaN(slack) && Math.abs(slack) < EPS
}

/** A node's dates, rounded (null when unknown). */
export const datesAt = (s: Solved, v: number) => ({
  es: round(s.es[v] as number),
  ef: round(s.ef[v] as number),
  ls: round(s.ls[v] as number),
  lf: round(s.lf[v] as number),
})

/**
 * `measured` picks the tasks whose finish is the duration (default: all). A per-project schedule passes its own
 * tasks, so another project's tasks it waits on constrain it without stretching its end.
 */
export function criticalPath(tasks: readonly CpmTask[], opts: { measured?: (id: string) => boolean } = {}): CpmResult {
  const g = netOf(tasks)
  const measured = opts.measured
  const s = solve(g, measured === undefined ? null : (v) => measured(g.ids[v] as string))
  const rows: CpmRow[] = Array.from(s.order, (v) => {
    const d = datesAt(s, v)
    return {
      id: g.ids[v] as string,
      te: (g.node[v] as CpmTask).te,
      es: d.es,
      ef: d.ef,
      ls: d.ls,
      lf: d.lf,
      slack: slackAt(s, v),
      critical: criticalAt(s, v),
    }
  })
  const { duration, duration_lower_bound, critical, critical_path } = summaryOf(g, s)
  const unsized = tasks.filter((t) => t.te === null).map((t) => t.id)
  return { duration, duration_lower_bound, rows, critical, critical_path, unsized }
}

/** What a schedule says besides its rows: the duration, the critical tasks as a DAG and as one path when they are. */
export function summaryOf(g: Net, s: Solved): Omit<CpmResult, 'rows' | 'unsized'> {
  const critical = criticalDag(g, s)
  return {
    duration: round(s.duration),
    duration_lower_bound: round(s.end),
    critical,
    critical_path: chainOf(critical),
  }
}

/** Each critical task with the links from critical predecessors that are tight (the ones that set its dates). */
function criticalDag(g: Net, s: Solved): CriticalNode[] {
  const { es, ef } = s
  const nodes: number[] = []
  const crit = new Uint8Array(g.ids.length)
  for (let i = 0; i < s.order.length; i++) {
    const v = s.order[i] as number
    if (criticalAt(s, v)) {
      crit[v] = 1
      nodes.push(v)
    }
  }
  const tight = (p: number, v: number, type: number) =>
    type === FS
      ? same(ef[p] as number, es[v] as number)
      : type === SS
        ? same(es[p] as number, es[v] as number)
        : type === FF
          ? same(ef[p] as number, ef[v] as number)
          : same(es[p] as number, ef[v] as number)
  const r = (x: number) => round(x) as number
  const { start, to, type } = g.preds
  return nodes
    .sort(
      (a, b) =>
        r(es[a] as number) - r(es[b] as number) ||
        r(ef[a] as number) - r(ef[b] as number) ||
        byText(g.ids[a] as string, g.ids[b] as string),
    )
    .map((v) => {
      const after: { id: string; type: LinkType }[] = []
      for (let k = start[v] as number; k < (start[v + 1] as number); k++) {
        const u = to[k] as number
        if (crit[u] === 1 && tight(u, v, type[k] as number))
          after.push({ id: g.ids[u] as string, type: linkName(type[k] as number) })
      }
      return { id: g.ids[v] as string, after: after.sort((a, b) => byText(a.id, b.id)) }
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
