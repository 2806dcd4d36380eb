// The retry policy, one for every request of a session:
// - a transient failure (5xx, timeout, network) waits a backoff that doubles from
//   `backoffMs` (jittered, at most a minute) and tries again;
// - a rate limit (403/429) waits what GitHub asks for (retry-after, else the reset
//   of the exhausted quota; a secondary limit that says nothing waits a minute);
// - anything else is final at once;
// - each request makes at most `maxAttempts` attempts, and all waits of the
//   session together stay within `budgetMs`: a wait that does not fit is not
//   started, and the request gives up saying why.
// A request that is not idempotent (creating an issue) is retried only through
// `proof`: after the wait, the caller checks whether the first attempt took
// effect after all, and only if it did not is the request sent again.

import { GaveUpError, type Trouble, troubleOf } from './failure.js'

export interface RetrySettings {
  /** Attempts per request, the first included (≥ 1). */
  maxAttempts: number
  /** The first backoff after a transient failure; each further one doubles. */
  backoffMs: number
  /** All waits of the session together, at most. */
  budgetMs: number
}

export interface RetryReport {
  max_attempts: number
  budget_ms: number
  /** Time spent waiting before retries. */
  waited_ms: number
  /** Attempts that were retries. */
  retried: number
  /** Set once a wait did not fit in the budget. */
  exhausted: boolean
}

export interface RetryDeps {
  sleep: (ms: number) => Promise<void>
  random: () => number
  /** Told before each wait (progress for people). */
  onWait?: (ms: number, why: string) => void
}

export interface RunOptions<T> {
  /** Safe to send again after any failure (reads, PATCH). */
  idempotent: boolean
  /** For a request that is not idempotent: after a transient failure, find its effect (found → done). */
  proof?: () => Promise<T | null>
  /** Counts the attempts made. */
  tally?: { attempts: number }
  /** What the request does, for the wait messages ("on GET /path", "while creating an issue in …"). */
  what?: string
}

const MAX_BACKOFF_MS = 60_000
const SECONDARY_FALLBACK_MS = 60_000

export class Retrier {
  private waited = 0
  private retried = 0
  private exhausted = false

  constructor(
    readonly settings: RetrySettings,
    private readonly deps: RetryDeps,
  ) {}

  report(): RetryReport {
    return {
      max_attempts: this.settings.maxAttempts,
      budget_ms: this.settings.budgetMs,
      waited_ms: Math.round(this.waited),
      retried: this.retried,
      exhausted: this.exhausted,
    }
  }

  /** The wait before attempt `attempt + 1` after `t`, or why there is none. */
  waitFor(t: Trouble, attempt: number): { waitMs: number } | { stop: string | null } {
    if (t.kind === 'final') return { stop: null }
    if (attempt >= this.settings.maxAttempts) return { stop: null }
    let ms: number
    if (t.kind === 'rate_limit') ms = t.waitMs ?? (t.secondary ? SECONDARY_FALLBACK_MS : this.backoff(attempt))
    else ms = this.backoff(attempt)
    const left = this.settings.budgetMs - this.waited
    if (ms > left) {
      this.exhausted = true
      const asked = Math.ceil(ms / 1000)
      return {
        stop:
          t.kind === 'rate_limit'
            ? `GitHub asks to wait ${asked}s, more than the retry budget has left (${Math.floor(left / 1000)}s)`
            : 'the retry budget is spent',
      }
    }
    return { waitMs: ms }
  }

  /** Run one request under the policy; throws GaveUpError (carrying the last error) when it stops. */
  async run<T>(attempt: () => Promise<T>, o: RunOptions<T>): Promise<T> {
    for (let n = 1; ; n++) {
      if (o.tally) o.tally.attempts++
      let failure: unknown
      try {
        return await attempt()
      } catch (e) {
        failure = e
      }
      const t = troubleOf(failure)
      const uncertain = t.kind === 'transient' && !o.idempotent
      if (uncertain && o.proof === undefined) throw new GaveUpError(failure, n, null)
      const next = this.waitFor(t, n)
      if ('stop' in next) throw new GaveUpError(failure, n, next.stop)
      this.deps.onWait?.(next.waitMs, this.why(t, o.what))
      await this.deps.sleep(next.waitMs)
      this.waited += next.waitMs
      this.retried++
      if (uncertain && o.proof !== undefined) {
        let found: T | null
        try {
          found = await o.proof()
        } catch (e) {
          // Whether the write happened cannot be told: sending it again could make a twin.
          throw new GaveUpError(failure, n, `could not check whether it took effect: ${String((e as Error).message)}`)
        }
        if (found !== null) return found
      }
    }
  }

  private backoff(attempt: number): number {
    const full = Math.min(this.settings.backoffMs * 2 ** (attempt - 1), MAX_BACKOFF_MS)
    // Equal jitter: half fixed, half random, so retrying clients do not march in step.
    return Math.round(full / 2 + (this.deps.random() * full) / 2)
  }

  private why(t: Trouble, what: string | undefined): string {
    const doing = what === undefined ? '' : ` ${what}`
    if (t.kind === 'rate_limit') return `GitHub ${t.secondary ? 'secondary ' : ''}rate limit${doing}`
    return `GitHub ${t.status === null ? 'did not answer' : `answered ${t.status}`}${doing}`
  }
}
