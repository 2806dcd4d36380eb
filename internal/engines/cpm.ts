import { byText } from '../base/order.js'
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
const round = (n: number | null) => (n === null ? null : Math.round(n * 1000) / 1000)
const same = (a: number | null, b: number | null) => a !== null && b !== null && Math.abs(a - b) < EPS

/** Ids in dependency order; throws CycleError naming one cycle. */
export function topoOrder(tasks: readonly CpmTask[]): string[] {
  const ids = new Set(tasks.map((t) => t.id))
  const byId = new Map(tasks.map((t) => [t.id, t]))
  const state = new Map<string, 1 | 2>()
  const order: string[] = []
  const stack: string[] = []
  const visit = (id: string) => {
    const s = state.get(id)
    if (s === 2) return
    if (s === 1) {
      const at = stack.indexOf(id)
      throw new CycleError([id, ...stack.slice(at + 1), id])
    }
    state.set(id, 1)
    stack.push(id)
    for (const d of byId.get(id)?.deps ?? []) if (ids.has(d.on)) visit(d.on)
    stack.pop()
    state.set(id, 2)
    order.push(id)
  }
  for (const t of [...tasks].sort((a, b) => byText(a.id, b.id))) visit(t.id)
  return order
}

const plus = (a: number | null, b: number | null) => (a === null || b === null ? null : a + b)
const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b)

/**
 * `measured` picks the tasks whose finish is the duration (default: all). A per-project schedule passes its own
 * tasks, so another project's tasks it waits on constrain it without stretching its end.
 */
export function criticalPath(tasks: readonly CpmTask[], opts: { measured?: (id: string) => boolean } = {}): CpmResult {
  const order = topoOrder(tasks)
  const byId = new Map(tasks.map((t) => [t.id, t]))
  const measured = opts.measured ?? (() => true)
  const unsized = tasks.filter((t) => t.te === null).map((t) => t.id)
  const links = (t: CpmTask) => t.deps.filter((d) => byId.has(d.on))
  const es = new Map<string, number | null>()
  const ef = new Map<string, number | null>()
  for (const id of order) {
    const t = byId.get(id) as CpmTask
    if (t.started === true) {
      let finish: number | null = t.te
      for (const d of links(t)) {
        if (d.type !== 'FF' && d.type !== 'SF') continue
        const bound = d.type === 'FF' ? (ef.get(d.on) ?? null) : (es.get(d.on) ?? null)
        finish = finish === null || bound === null ? null : Math.max(finish, bound)
      }
      es.set(id, 0)
      ef.set(id, finish)
      continue
    }
    let start: number | null = 0
    for (const d of links(t)) {
      const bound =
        d.type === 'FS'
          ? (ef.get(d.on) ?? null)
          : d.type === 'SS'
            ? (es.get(d.on) ?? null)
            : d.type === 'FF'
              ? minus(ef.get(d.on) ?? null, t.te)
              : minus(es.get(d.on) ?? null, t.te)
      start = start === null || bound === null ? null : Math.max(start, bound)
    }
    es.set(id, start)
    ef.set(id, plus(start, t.te))
  }
  const finishes = order.filter(measured).map((id) => ef.get(id) ?? null)
  const known = finishes.filter((f): f is number => f !== null)
  const end = finishes.length === 0 ? 0 : known.length > 0 ? Math.max(0, ...known) : null
  const duration = finishes.length === 0 ? 0 : finishes.every((f) => f !== null) ? end : null

  // How long each task occupies the schedule: Te, or a started task's stretched span.
  const span = (id: string) => {
    const t = byId.get(id) as CpmTask
    return t.started === true ? minus(ef.get(id) ?? null, 0) : t.te
  }
  const succ = new Map<string, { id: string; type: LinkType }[]>()
  for (const t of tasks)
    for (const d of links(t)) succ.set(d.on, [...(succ.get(d.on) ?? []), { id: t.id, type: d.type }])
  const lf = new Map<string, number | null>()
  const ls = new Map<string, number | null>()
  for (const id of [...order].reverse()) {
    const te = span(id)
    let finish: number | null = end
    for (const s of succ.get(id) ?? []) {
      const bound =
        s.type === 'FS'
          ? (ls.get(s.id) ?? null)
          : s.type === 'SS'
            ? plus(ls.get(s.id) ?? null, te)
            : s.type === 'FF'
              ? (lf.get(s.id) ?? null)
              : plus(lf.get(s.id) ?? null, te)
      finish = finish === null || bound === null ? null : Math.min(finish, bound)
    }
    lf.set(id, finish)
    ls.set(id, minus(finish, te))
  }
  const rows: CpmRow[] = order.map((id) => {
    const slack = minus(ls.get(id) ?? null, es.get(id) ?? null)
    return {
      id,
      te: (byId.get(id) as CpmTask).te,
      es: round(es.get(id) ?? null),
      ef: round(ef.get(id) ?? null),
      ls: round(ls.get(id) ?? null),
      lf: round(lf.get(id) ?? null),
      slack: slack === null ? null : round(Math.max(0, slack)),
      critical: slack !== null && Math.abs(slack) < EPS,
    }
  })
  const critical = criticalDag(rows, byId, es, ef)
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
function criticalDag(
  rows: readonly CpmRow[],
  byId: ReadonlyMap<string, CpmTask>,
  es: ReadonlyMap<string, number | null>,
  ef: ReadonlyMap<string, number | null>,
): CriticalNode[] {
  const crit = new Set(rows.filter((r) => r.critical).map((r) => r.id))
  const tight = (p: string, s: string, type: LinkType) => {
    const [pv, sv] =
      type === 'FS'
        ? [ef.get(p), es.get(s)]
        : type === 'SS'
          ? [es.get(p), es.get(s)]
          : type === 'FF'
            ? [ef.get(p), ef.get(s)]
            : [es.get(p), ef.get(s)]
    return same(pv ?? null, sv ?? null)
  }
  return rows
    .filter((r) => crit.has(r.id))
    .sort((a, b) => (a.es as number) - (b.es as number) || (a.ef as number) - (b.ef as number) || byText(a.id, b.id))
    .map((r) => ({
      id: r.id,
      after: ((byId.get(r.id) as CpmTask).deps ?? [])
        .filter((d) => crit.has(d.on) && tight(d.on, r.id, d.type))
        .map((d) => ({ id: d.on, type: d.type }))
        .sort((a, b) => byText(a.id, b.id)),
    }))
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
