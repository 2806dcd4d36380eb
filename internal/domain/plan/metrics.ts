// Delivery metrics from task histories: pure arithmetic over
// what the store recorded. Times arrive as epoch milliseconds (null when a log
// line's stamp did not parse); nothing here reads a clock.
//
// A metric with no samples is null, never 0: an empty window measures nothing.

/** One `## Log` line, its stamp already parsed. */
export interface HistoryLine {
  at: number | null
  verb: string
  details: string
}

export interface TaskHistory {
  id: string
  log: readonly HistoryLine[]
}

export interface MetricsInput {
  /** Tasks whose status is done. */
  done: readonly TaskHistory[]
  /** Tombstones (tasks/removed/). */
  removed: readonly TaskHistory[]
  /** For each task id, how many questions about it were answered by a person. */
  answered: ReadonlyMap<string, number>
  /** Start of the window (epoch ms), or null for all history. */
  since: number | null
}

export const FAILURE_CLASSES = [
  'reopened',
  'lease-expired',
  'unverified-close',
  'unlanded-override',
  'blocked',
] as const
export type FailureClass = (typeof FAILURE_CLASSES)[number]

export interface Metrics {
  tasks_finished: number
  completion: { value: number | null; samples: number }
  retry: { value: number | null; samples: number }
  failures: { classes: Record<FailureClass, number> | null; samples: number }
  wall_time: { median_seconds: number | null; total_seconds: number | null; samples: number }
  tokens: { output: number | null; samples: number; budget: number | null; budget_samples: number }
  human_intervention: { value: number | null; samples: number }
}

const CLOSES = new Set(['done', 'accepted'])
const CLAIMS = new Set(['claimed', 'claimed-local', 'taken-over'])

const lastOf = (log: readonly HistoryLine[], verbs: ReadonlySet<string>): HistoryLine | null => {
  for (let i = log.length - 1; i >= 0; i--) {
    const l = log[i] as HistoryLine
    if (verbs.has(l.verb)) return l
  }
  return null
}

/** When a done task finished: its last close line (null when none is recorded or its stamp is unreadable). */
export const finishedAt = (t: TaskHistory): number | null => lastOf(t.log, CLOSES)?.at ?? null

/** When a tombstone was removed: its last `removed` line. */
export const removedAt = (t: TaskHistory): number | null => lastOf(t.log, new Set(['removed']))?.at ?? null

/** In the window: always without one; with one, only when the time is known and not before its start. */
const inWindow = (at: number | null, since: number | null) => since === null || (at !== null && at >= since)

const ratio = (n: number, d: number) => ({ value: d === 0 ? null : n / d, samples: d })

export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}

/** The failure lines of one task's history, by class. */
export function failuresOf(t: TaskHistory): Record<FailureClass, number> {
  const c: Record<FailureClass, number> = {
    reopened: 0,
    'lease-expired': 0,
    'unverified-close': 0,
    'unlanded-override': 0,
    blocked: 0,
  }
  // Criteria ticked on someone's word since the last reopen (a reopen unticks every box).
  let attested = false
  for (const l of t.log) {
    if (l.verb === 'reopened') {
      c.reopened++
      attested = false
    } else if (l.verb === 'taken-over') {
      // A claim lost by its holder; adopting a task nobody held (accept --force) took nothing from anyone.
      if (!l.details.startsWith('from nobody')) c['lease-expired']++
    } else if (l.verb === 'attested') attested = true
    else if (CLOSES.has(l.verb)) {
      if (attested || l.details.includes('NO acceptance criteria')) c['unverified-close']++
      attested = false
    } else if (l.verb === 'unlanded') c['unlanded-override']++
    else if (l.verb === 'blocked') c.blocked++
  }
  return c
}

/** Claim → done in seconds: the first claim to the last close (null when either is missing or out of order). */
export function wallSeconds(t: TaskHistory): number | null {
  const claim = t.log.find((l) => CLAIMS.has(l.verb))
  const end = finishedAt(t)
  if (claim === undefined || claim.at === null || end === null || end < claim.at) return null
  return (end - claim.at) / 1000
}

/** Output tokens reported on closes (`tokens output N` lines), summed; null when the task reported none. */
export function tokensOf(t: TaskHistory): number | null {
  let total: number | null = null
  for (const l of t.log) {
    if (l.verb !== 'tokens') continue
    const m = /^output (\d{1,10})$/.exec(l.details)
    if (m !== null) total = (total ?? 0) + Number(m[1])
  }
  return total
}

export function measure(input: MetricsInput): Metrics {
  const finished = input.done.filter((t) => inWindow(finishedAt(t), input.since))
  const removed = input.removed.filter((t) => inWindow(removedAt(t), input.since))
  const n = finished.length

  let reopens = 0
  const classes: Record<FailureClass, number> = {
    reopened: 0,
    'lease-expired': 0,
    'unverified-close': 0,
    'unlanded-override': 0,
    blocked: 0,
  }
  const walls: number[] = []
  let output: number | null = null
  let tokenSamples = 0
  let answered = 0
  for (const t of finished) {
    const f = failuresOf(t)
    for (const k of FAILURE_CLASSES) classes[k] += f[k]
    reopens += f.reopened
    const w = wallSeconds(t)
    if (w !== null) walls.push(w)
    const tok = tokensOf(t)
    if (tok !== null) {
      output = (output ?? 0) + tok
      tokenSamples++
    }
    answered += input.answered.get(t.id) ?? 0
  }

  return {
    tasks_finished: n,
    completion: ratio(n, n + removed.length),
    retry: ratio(reopens, n),
    failures: { classes: n === 0 ? null : classes, samples: n },
    wall_time: {
      median_seconds: median(walls),
      total_seconds: walls.length === 0 ? null : walls.reduce((a, b) => a + b, 0),
      samples: walls.length,
    },
    // No command records a token budget yet: budget stays null (budget_samples 0) until one does.
    tokens: { output, samples: tokenSamples, budget: null, budget_samples: 0 },
    human_intervention: ratio(answered, n),
  }
}
