import { byText } from '../../base/order.js'
import { type Hold, readiness, startHeld } from './readiness.js'
// The ready frontier: the tasks `readiness` calls ready (open,
// not `wont`, no FS predecessor unfinished, no SS predecessor unstarted; FF and SF
// never hold a start); ordered by MoSCoW, then critical-path slack (when known),
// then sequence. Never a `could` while a `must` is ready. Pure.

export type Status = 'open' | 'active' | 'blocked' | 'done'
export type Priority = 'must' | 'should' | 'could' | 'wont'

export interface FrontierTask {
  id: string
  project: string
  seq: number
  status: Status
  priority: Priority | null
}

export type Dep = { on: string; type: string }

const RANK: Record<string, number> = { must: 0, should: 1, none: 2, could: 3, wont: 9 }
const priorityRank = (p: Priority | null) => RANK[p ?? 'none'] as number

export interface Frontier<T extends FrontierTask, H = never> {
  ready: T[]
  /** Ready tasks not proposed because `hold` held them back (overlapping work), best first, with its reason. */
  held: { task: T; why: H }[]
  /** Open tasks whose start a dependency holds (see readiness.ts), in scope order. */
  waiting: T[]
  /**
   * The links holding a waiting task's start, worked out when asked: a caller shows a page of the waiting tasks, and
   * at 10,000 tasks making them for every one was most of what a long-lived server's `next_tasks` allocated.
   */
  holdsOf(t: T): Hold[]
  /** When nothing is ready: why, in one sentence; null otherwise. */
  explanation: string | null
}

/**
 * `scope` holds the candidates, `depsOf` their dependencies (as ids `statusOf` knows). `slack` (id → slack) orders equal priorities when every task in
 * scope is sized; pass null otherwise.
 */
export function frontier<T extends FrontierTask, H = never>(
  scope: readonly T[],
  depsOf: (t: T) => readonly Dep[],
  statusOf: (id: string) => Status | null,
  slack: ReadonlyMap<string, number> | null,
  limit: number,
  /** Tasks another clone holds a live claim on: never proposed. */
  claimedElsewhere: ReadonlySet<string> = new Set(),
  /**
   * Why a ready task may not be proposed (it overlaps work in progress, or a task proposed before it), or null.
   * `picked` holds the tasks proposed so far, best first.
   */
  hold: ((t: T, picked: readonly T[]) => H | null) | null = null,
): Frontier<T, H> {
  const waiting: T[] = []
  const candidates: T[] = []
  let elsewhere = 0
  // Indexed loops here and in startHeld: a for-of made an iterator result per task and per link on every call (a
  // long-lived server's `next_tasks` over 10,000 tasks runs this code rarely enough to stay unoptimized).
  for (let i = 0; i < scope.length; i++) {
    const t = scope[i] as T
    if (t.status !== 'open' || t.priority === 'wont') continue
    if (claimedElsewhere.has(t.id)) {
      elsewhere++
      continue
    }
    if (startHeld(depsOf(t), statusOf)) waiting.push(t)
    else candidates.push(t)
  }
  const anyMust = candidates.some((t) => t.priority === 'must')
  const ordered = candidates
    .filter((t) => !(anyMust && t.priority === 'could'))
    .sort(
      (a, b) =>
        priorityRank(a.priority) - priorityRank(b.priority) ||
        (slack === null
          ? 0
          : (slack.get(a.id) ?? Number.POSITIVE_INFINITY) - (slack.get(b.id) ?? Number.POSITIVE_INFINITY)) ||
        byText(a.project, b.project) ||
        a.seq - b.seq,
    )
  const ready: T[] = []
  const held: { task: T; why: H }[] = []
  for (let i = 0; i < ordered.length; i++) {
    const t = ordered[i] as T
    const why = hold === null ? null : hold(t, ready)
    if (why !== null) held.push({ task: t, why })
    else if (ready.length < limit) ready.push(t)
    else if (hold === null) break
  }
  return {
    ready,
    held,
    waiting,
    holdsOf: (t) => readiness(t, depsOf(t), statusOf).holds,
    explanation: ready.length > 0 ? null : explain(scope, waiting.length, elsewhere, held.length),
  }
}

function explain(scope: readonly FrontierTask[], waiting: number, elsewhere: number, held: number): string {
  const count = (s: Status) => scope.filter((t) => t.status === s).length
  if (scope.length === 0) return 'there are no tasks here yet'
  const open = count('open')
  const parts: string[] = []
  if (count('done') === scope.length) return 'everything is done'
  if (waiting > 0)
    parts.push(
      `${waiting} open task${waiting === 1 ? ' waits' : 's wait'} on dependencies (FS: not done, SS: not started)`,
    )
  if (count('blocked') > 0) parts.push(`${count('blocked')} blocked`)
  if (count('active') > 0) parts.push(`${count('active')} already in progress`)
  const wont = scope.filter((t) => t.status === 'open' && t.priority === 'wont').length
  if (wont > 0) parts.push(`${wont} marked wont`)
  if (elsewhere > 0) parts.push(`${elsewhere} claimed in another clone (the remote's claims)`)
  if (held > 0) parts.push(`${held} held back: ${held === 1 ? 'it touches' : 'they touch'} paths of work in progress`)
  if (open === 0 && parts.length === 0) return 'nothing is open'
  return `nothing is ready: ${parts.join(', ')}`
}
