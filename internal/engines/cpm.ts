import { byText } from '../base/order.js'
// The critical path method over FS/SS/FF/SF links (no lags). Pure: values in,
// values out.
//
// Forward pass, for a link P → S:   FS: ES(S) ≥ EF(P)         SS: ES(S) ≥ ES(P)
//                                   FF: EF(S) ≥ EF(P)         SF: EF(S) ≥ ES(P)
// Backward pass mirrors it:         FS: LF(P) ≤ LS(S)         SS: LS(P) ≤ LS(S)
//                                   FF: LF(P) ≤ LF(S)         SF: LS(P) ≤ LF(S)
// Slack = LS − ES; a task with zero slack is critical.

export type LinkType = 'FS' | 'SS' | 'FF' | 'SF'

export interface CpmTask {
  id: string
  /** Expected duration Te, or null when the task is unsized. */
  te: number | null
  /** Predecessors (ids); links to ids outside the input are ignored. */
  deps: readonly { on: string; type: LinkType }[]
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

export interface CpmResult {
  /** Project duration, or null when a task in scope is unsized. */
  duration: number | null
  rows: CpmRow[]
  /** Critical task ids ordered by early start. */
  critical_path: string[]
  unsized: string[]
}

export class CycleError extends Error {
  constructor(readonly cycle: string[]) {
    super(`dependency cycle: ${cycle.join(' → ')}`)
  }
}

const EPS = 1e-9
const round = (n: number) => Math.round(n * 1000) / 1000

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
      throw new CycleError([...stack.slice(at), id])
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

export function criticalPath(tasks: readonly CpmTask[]): CpmResult {
  const order = topoOrder(tasks)
  const byId = new Map(tasks.map((t) => [t.id, t]))
  const unsized = tasks.filter((t) => t.te === null).map((t) => t.id)
  const es = new Map<string, number | null>()
  const ef = new Map<string, number | null>()
  // Forward pass: a task's start is known only when it and everything upstream is sized.
  for (const id of order) {
    const t = byId.get(id) as CpmTask
    let start: number | null = t.te === null ? null : 0
    for (const d of t.deps) {
      if (!byId.has(d.on) || start === null) continue
      const pes = es.get(d.on) ?? null
      const pef = ef.get(d.on) ?? null
      if (pes === null || pef === null) {
        start = null
        continue
      }
      const te = t.te as number
      const bound = d.type === 'FS' ? pef : d.type === 'SS' ? pes : d.type === 'FF' ? pef - te : pes - te
      start = Math.max(start, bound)
    }
    es.set(id, start)
    ef.set(id, start === null || t.te === null ? null : start + t.te)
  }
  if (unsized.length > 0) {
    return {
      duration: null,
      rows: order.map((id) => {
        const t = byId.get(id) as CpmTask
        const s = es.get(id) ?? null
        const f = ef.get(id) ?? null
        return {
          id,
          te: t.te,
          es: s === null ? null : round(s),
          ef: f === null ? null : round(f),
          ls: null,
          lf: null,
          slack: null,
          critical: false,
        }
      }),
      critical_path: [],
      unsized,
    }
  }
  const duration = Math.max(0, ...order.map((id) => ef.get(id) as number))
  // Backward pass over successors.
  const succ = new Map<string, { id: string; type: LinkType }[]>()
  for (const t of tasks)
    for (const d of t.deps) if (byId.has(d.on)) succ.set(d.on, [...(succ.get(d.on) ?? []), { id: t.id, type: d.type }])
  const lf = new Map<string, number>()
  const ls = new Map<string, number>()
  for (const id of [...order].reverse()) {
    const te = (byId.get(id) as CpmTask).te as number
    let finish = duration
    for (const s of succ.get(id) ?? []) {
      const sls = ls.get(s.id) as number
      const slf = lf.get(s.id) as number
      const bound = s.type === 'FS' ? sls : s.type === 'SS' ? sls + te : s.type === 'FF' ? slf : slf + te
      finish = Math.min(finish, bound)
    }
    lf.set(id, finish)
    ls.set(id, finish - te)
  }
  const rows: CpmRow[] = order.map((id) => {
    const slack = (ls.get(id) as number) - (es.get(id) as number)
    return {
      id,
      te: (byId.get(id) as CpmTask).te,
      es: round(es.get(id) as number),
      ef: round(ef.get(id) as number),
      ls: round(ls.get(id) as number),
      lf: round(lf.get(id) as number),
      slack: round(Math.max(0, slack)),
      critical: Math.abs(slack) < EPS,
    }
  })
  const critical_path = rows
    .filter((r) => r.critical)
    .sort((a, b) => (a.es as number) - (b.es as number) || (a.ef as number) - (b.ef as number) || byText(a.id, b.id))
    .map((r) => r.id)
  return { duration: round(duration), rows, critical_path, unsized: [] }
}
