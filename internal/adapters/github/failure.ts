// What went wrong with a request, in two forms: a Trouble (what the retry
// policy needs: may it be retried, must it wait, might the write have happened)
// and a typed dacli error (what the person or agent reads), with every secret
// masked. Octokit's errors are read through their status, headers and cause
// chain; this file is the only place that knows their shape.

import { cmd } from '../../base/commands.js'
import { type DacliError, FailureError, NotFoundError } from '../../base/errors.js'
import { isoSeconds } from '../../base/time.js'
import { redact } from './redact.js'

/** Raised inside the client for a URL off the API's origin (a Link or a redirect elsewhere): never sent. */
export class ForeignHostError extends Error {
  override name = 'ForeignHostError'
  constructor(readonly host: string) {
    super(`refused to follow a link to another host (${host}): the token goes only to the API's own host`)
  }
}

/** Raised by shapes.ts for a 2xx answer that is not GitHub's API (HTML, garbage, wrong-shaped JSON). */
export class BadResponseError extends Error {
  override name = 'BadResponseError'
  constructor(
    readonly problem: string,
    readonly status: number,
  ) {
    super(problem)
  }
}

/** The retry policy gave up on a request: the last error, how many attempts, and why it stopped. */
export class GaveUpError extends Error {
  override name = 'GaveUpError'
  constructor(
    readonly last: unknown,
    readonly attempts: number,
    readonly why: string | null,
  ) {
    super(String((last as { message?: unknown })?.message ?? last))
  }
}

/**
 * transient: a 5xx, a timeout or a network error — retryable, and a write may have happened;
 * rate_limit: a 403/429 rate limit — retryable after the wait GitHub asks for (ms; null when it does not say);
 * final: anything else — retrying would get the same answer.
 */
export type Trouble =
  | { kind: 'transient'; status: number | null }
  | { kind: 'rate_limit'; status: number; waitMs: number | null; secondary: boolean }
  | { kind: 'final'; status: number | null }

interface RequestErrorLike {
  status?: number
  message?: string
  response?: { headers?: Record<string, string | undefined>; status?: number }
  cause?: unknown
}

const like = (e: unknown): RequestErrorLike => (typeof e === 'object' && e !== null ? e : {}) as RequestErrorLike

function causeOf<T>(e: unknown, type: new (...a: never[]) => T): T | null {
  for (let c: unknown = e, depth = 0; c !== undefined && c !== null && depth < 8; depth++) {
    if (c instanceof type) return c
    c = (c as { cause?: unknown }).cause
  }
  return null
}

const isRateLimit = (status: number | null, headers: Record<string, string | undefined>, message: string) =>
  status === 429 ||
  (status === 403 &&
    (headers['x-ratelimit-remaining'] === '0' || headers['retry-after'] !== undefined || /rate limit/i.test(message)))

/** How long GitHub asks to wait: retry-after (seconds), else the reset of an exhausted quota, by GitHub's clock. */
function askedWaitMs(headers: Record<string, string | undefined>): number | null {
  const after = headers['retry-after']
  if (after !== undefined && /^\d+$/.test(after.trim())) return Number(after.trim()) * 1000
  const reset = Number(headers['x-ratelimit-reset'])
  if (headers['x-ratelimit-remaining'] === '0' && Number.isFinite(reset) && reset > 0) {
    const now = Date.parse(headers.date ?? '')
    const serverNow = Number.isFinite(now) ? now : Date.now()
    // One second past the reset, as GitHub's documentation advises.
    return Math.max(0, reset * 1000 - serverNow) + 1000
  }
  return null
}

export function troubleOf(e: unknown): Trouble {
  if (causeOf(e, ForeignHostError) !== null) return { kind: 'final', status: null }
  const bad = causeOf(e, BadResponseError)
  if (bad !== null) return { kind: 'final', status: bad.status }
  const err = like(e)
  const status = typeof err.status === 'number' ? err.status : null
  // Octokit reports a network failure or a timeout as status 500 with no response.
  if (err.response === undefined) return { kind: 'transient', status: null }
  const headers = err.response.headers ?? {}
  if (isRateLimit(status, headers, String(err.message ?? ''))) {
    const secondary = status === 429 || /secondary/i.test(String(err.message ?? ''))
    return { kind: 'rate_limit', status: status as number, waitMs: askedWaitMs(headers), secondary }
  }
  if (status !== null && status >= 500) return { kind: 'transient', status }
  return { kind: 'final', status }
}

/** A typed dacli error for anything the client threw, with every secret masked. */
export function classify(e: unknown, what: string, apiUrl: string, secrets: readonly (string | null)[]): DacliError {
  const gaveUp = e instanceof GaveUpError ? e : null
  const last = gaveUp?.last ?? e
  // Why it stopped may quote another answer (the proof read that failed): masked like the message.
  const why = gaveUp?.why ? redact(gaveUp.why, secrets) : null
  const tried =
    gaveUp === null || gaveUp.attempts <= 1
      ? why
        ? ` (${why})`
        : ''
      : ` (${gaveUp.attempts} attempts${why ? `; ${why}` : ''})`
  const made = classifyOnce(last, what, apiUrl, secrets, tried)
  if (gaveUp !== null) made.details.attempts = gaveUp.attempts
  return made
}

function classifyOnce(
  e: unknown,
  what: string,
  apiUrl: string,
  secrets: readonly (string | null)[],
  tried: string,
): DacliError {
  const err = like(e)
  const status = typeof err.status === 'number' ? err.status : null
  const message = redact(String(err.message ?? e), secrets)
  const headers = err.response?.headers ?? {}
  const details: Record<string, unknown> = { status, api_url: apiUrl }
  const next = [cmd('github doctor')]
  const foreign = causeOf(e, ForeignHostError)
  if (foreign !== null) {
    return new FailureError(`GitHub API at ${apiUrl} ${redact(foreign.message, secrets)} while ${what}`, {
      details: { ...details, status: null, cause_kind: 'foreign_host', host: redact(foreign.host, secrets) },
      next: ['check GITHUB_API_URL: the server it names sends dacli to other hosts', ...next],
    })
  }
  const bad = causeOf(e, BadResponseError)
  if (bad !== null) {
    return new FailureError(
      `GitHub API at ${apiUrl} answered ${what} with something that is not GitHub’s API: ${redact(bad.problem, secrets)}`,
      {
        details: { ...details, status: bad.status, cause_kind: 'bad_response' },
        next: ['check GITHUB_API_URL (a proxy or captive portal may be answering in its place)', ...next],
      },
    )
  }
  if (err.response === undefined) {
    return new FailureError(`GitHub API at ${apiUrl} is unreachable (${what}): ${message}${tried}`, {
      details: { ...details, status: null, cause_kind: 'transient' },
      next: ['check the network and GITHUB_API_URL, then retry', ...next],
    })
  }
  if (status === 401) {
    return new FailureError(`GitHub rejected the token (401) while ${what}`, {
      details: { ...details, cause_kind: 'token' },
      next: ['check GH_TOKEN / GITHUB_TOKEN, or run `gh auth login`', ...next],
    })
  }
  if (status === 404) {
    return new NotFoundError(
      `${what}: not found on GitHub (404: the repository does not exist or the token cannot see it)`,
      { details: { ...details, cause_kind: 'not_found' }, next },
    )
  }
  if (isRateLimit(status, headers, message)) {
    const reset = Number(headers['x-ratelimit-reset'])
    const when =
      headers['x-ratelimit-remaining'] === '0' && Number.isFinite(reset) && reset > 0
        ? `; the limit resets at ${isoSeconds(reset)}`
        : ''
    return new FailureError(`GitHub refused ${what} (${status}: ${message})${when}${tried}`, {
      details: { ...details, rate_limited: true, cause_kind: 'rate_limit' },
      next: ['wait for the rate limit to reset, then retry', ...next],
    })
  }
  if (status === 403) {
    return new FailureError(`GitHub refused ${what} (403: ${message})`, {
      details: { ...details, rate_limited: false, cause_kind: 'forbidden' },
      next: ['check that the token may write issues in this repository', ...next],
    })
  }
  const transient = status !== null && status >= 500
  return new FailureError(`GitHub answered ${status ?? 'with an error'} while ${what}: ${message}${tried}`, {
    details: { ...details, cause_kind: transient ? 'transient' : 'rejected' },
    next: transient ? ['retry; a re-run converges without duplicates', ...next] : next,
  })
}
