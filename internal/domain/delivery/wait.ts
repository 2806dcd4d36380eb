// Waiting for a task's pull request: diagnose, and again after a pause that grows while nothing changes
// (back to the interval after a change), never past the deadline, and never before GitHub's quota resets when
// it is spent (the client's retry policy already waits out a 403/429 with retry-after). Reached: the state or
// beyond it (waiting for ready, a merge is beyond). Unreachable: closed, or a conflict (only a person resolves it).

import type { TaskRecord } from '../../format/model.js'
import type { Session } from '../github/connect.js'
import type { DiagnosisCode } from './diagnosis.js'
import { type Diagnosed, diagnoseWith } from './pulls.js'

export type Until = 'ready' | 'merged'
export type WaitOutcome = 'reached' | 'timeout' | 'unreachable'

export interface WaitOptions {
  until: Until
  timeoutMs: number
  intervalMs: number
  now(): Date
  sleep(ms: number, signal: AbortSignal | null): Promise<void>
  signal: AbortSignal | null
  /** Told of the first diagnosis and of each change of code. */
  onChange(d: Diagnosed, at: Date): void
}

export interface WaitResult {
  outcome: WaitOutcome
  last: Diagnosed
  polls: number
  elapsed_ms: number
  changes: { at: string; code: DiagnosisCode }[]
}

const REACHES: Record<Until, ReadonlySet<DiagnosisCode>> = {
  ready: new Set(['ready', 'merged']),
  merged: new Set(['merged']),
}
const DEAD: ReadonlySet<DiagnosisCode> = new Set(['closed', 'merge_conflict'])

/** The pause before the next poll: the interval doubled per unchanged poll, at most a minute (or the interval). */
export const pauseAfter = (intervalMs: number, unchanged: number) =>
  Math.min(intervalMs * 2 ** Math.min(unchanged, 16), Math.max(intervalMs, 60_000))

/** How long GitHub asks us to hold off: until the quota's reset when it is spent, else 0. */
function quotaWait(s: Session, nowMs: number): number {
  const q = s.client.quota()
  if (q === null || q.remaining > 0 || q.reset === null) return 0
  return Math.max(0, Date.parse(q.reset) - nowMs + 1000)
}

export async function waitFor(s: Session, repo: string, t: TaskRecord, o: WaitOptions): Promise<WaitResult> {
  const start = o.now().getTime()
  const deadline = start + o.timeoutMs
  const changes: WaitResult['changes'] = []
  let polls = 0
  let unchanged = 0
  let last: Diagnosed | null = null
  for (;;) {
    const d = await diagnoseWith(s, repo, t)
    polls++
    const at = o.now()
    if (last === null || last.diagnosis.code !== d.diagnosis.code) {
      changes.push({ at: at.toISOString().replace(/\.\d{3}Z$/, 'Z'), code: d.diagnosis.code })
      o.onChange(d, at)
      unchanged = 0
    } else unchanged++
    last = d
    const done = (outcome: WaitOutcome): WaitResult => ({
      outcome,
      last: d,
      polls,
      elapsed_ms: Math.max(0, at.getTime() - start),
      changes,
    })
    if (REACHES[o.until].has(d.diagnosis.code)) return done('reached')
    if (DEAD.has(d.diagnosis.code)) return done('unreachable')
    const left = deadline - at.getTime()
    if (left <= 0 || o.signal?.aborted) return done('timeout')
    const pause = Math.max(pauseAfter(o.intervalMs, unchanged), quotaWait(s, at.getTime()))
    await o.sleep(Math.min(pause, left), o.signal)
  }
}
