// The GitHub adapter: Octokit (@octokit/core with the pagination, retry and
// throttling plugins) behind a small interface that speaks in dacli's terms
// and raises dacli's typed errors. Only this folder imports Octokit, and the
// github slice loads this module with import(), so no other command pays for it.
//
// Failure policy:
// - every request carries a timeout (a hung server is an error, not a hang);
// - 403/429 rate limits are waited out when GitHub says how long (retry-after,
//   or x-ratelimit-reset), at most twice and never longer than a bound;
// - idempotent requests (reads, PATCH) are retried on 5xx and network errors
//   with a bounded backoff; creating an issue is never retried, because a 5xx
//   can arrive after GitHub created it — the next push finds the issue by its
//   marker instead of creating a twin;
// - nothing Octokit logs reaches the console, and every message is redacted.

import { Octokit } from '@octokit/core'
import { paginateRest } from '@octokit/plugin-paginate-rest'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'
import Bottleneck from 'bottleneck/light.js'
import { type DacliError, FailureError, NotFoundError } from '../store/errors.js'
import { redact } from './redact.js'

export type Visibility = 'public' | 'private' | 'internal'

export interface RepoInfo {
  /** `owner/name` as GitHub spells it. */
  full_name: string
  visibility: Visibility
}

export interface Issue {
  number: number
  title: string
  /** The body ('' when the issue has none). */
  body: string
  state: 'open' | 'closed'
  labels: string[]
  /** The login of the author, or null when GitHub does not say (a deleted account). */
  author: string | null
}

export interface RateLimit {
  limit: number
  remaining: number
  used: number | null
  /** RFC 3339 UTC. */
  reset: string | null
}

export interface IssueWrite {
  title?: string
  body?: string
  labels?: string[]
  state?: 'open' | 'closed'
}

export interface GitHubClient {
  readonly apiUrl: string
  rateLimit(): Promise<RateLimit>
  repository(fullName: string): Promise<RepoInfo>
  /** Every issue (open and closed, pull requests left out), in ascending number order. */
  listIssues(fullName: string, onPage?: (fetched: number) => void): Promise<Issue[]>
  createIssue(fullName: string, fields: { title: string; body: string; labels: string[] }): Promise<Issue>
  updateIssue(fullName: string, number: number, fields: IssueWrite): Promise<Issue>
}

export interface ClientOptions {
  apiUrl: string
  token: string | null
  /** Per request. */
  timeoutMs: number
  /**
   * Minimum pause between write calls (GitHub asks for about a second to stay clear of its secondary
   * limits); writes that notify people, like creating an issue, wait three times as long.
   */
  writeIntervalMs: number
  userAgent: string
  /** Retries of an idempotent request after a 5xx or a network error (default 2). */
  retries?: number
  /** Backoff unit for those retries: the nth retry waits n² units (default 1000 ms). */
  backoffMs?: number
  /** A rate limit is waited out only when GitHub asks for at most this long (default 60 s). */
  maxRateLimitWaitS?: number
  /** Told before a rate-limit wait (progress for people). */
  onWait?: (message: string) => void
}

const silent = { debug() {}, info() {}, warn() {}, error() {} }
const RATE_LIMIT_RETRIES = 2

const GitHubOctokit = Octokit.plugin(paginateRest, retry, throttling)

interface RawIssue {
  number: number
  title: string
  body?: string | null
  state: string
  labels?: (string | { name?: string | null })[]
  user?: { login?: string } | null
  pull_request?: unknown
}

function issueOf(r: RawIssue): Issue {
  return {
    number: r.number,
    title: r.title,
    body: r.body ?? '',
    state: r.state === 'closed' ? 'closed' : 'open',
    labels: (r.labels ?? [])
      .map((l) => (typeof l === 'string' ? l : (l.name ?? '')))
      .filter((l) => l !== '')
      .sort(),
    author: r.user?.login ?? null,
  }
}

function splitRepo(fullName: string): { owner: string; repo: string } {
  const [owner, repo] = fullName.split('/') as [string, string]
  return { owner, repo }
}

export function createClient(opts: ClientOptions): GitHubClient {
  const secrets = [opts.token]
  const timedFetch: typeof fetch = (input, init) => {
    const timeout = AbortSignal.timeout(opts.timeoutMs)
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout
    return fetch(input, { ...init, signal })
  }
  const maxWait = opts.maxRateLimitWaitS ?? 60
  const onLimit =
    (kind: string) =>
    (retryAfter: number, options: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
      if (retryCount >= RATE_LIMIT_RETRIES || retryAfter > maxWait) return false
      opts.onWait?.(`GitHub ${kind}: waiting ${retryAfter}s before retrying ${options.method} ${options.url}`)
      return true
    }
  const octokit = new GitHubOctokit({
    baseUrl: opts.apiUrl,
    ...(opts.token === null ? {} : { auth: opts.token }),
    userAgent: opts.userAgent,
    log: silent,
    request: { fetch: timedFetch, log: silent },
    retry: {
      retries: opts.retries ?? 2,
      retryAfterBaseValue: opts.backoffMs ?? 1000,
      // Rate limits (403/429) belong to the throttling plugin, which honours GitHub's own wait times.
      doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451],
    },
    throttle: {
      id: 'dacli',
      write: new Bottleneck.Group({ maxConcurrent: 1, minTime: opts.writeIntervalMs }),
      // Writes that notify people (creating an issue) are spaced three times as far, as Octokit does by default.
      notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: opts.writeIntervalMs * 3 }),
      onRateLimit: onLimit('rate limit'),
      onSecondaryRateLimit: onLimit('secondary rate limit'),
    },
  })

  const call = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f()
    } catch (e) {
      throw classify(e, what, opts.apiUrl, secrets)
    }
  }

  return {
    apiUrl: opts.apiUrl,
    rateLimit: () =>
      call('reading the rate limit', async () => {
        const r = await octokit.request('GET /rate_limit')
        const core = (r.data as { resources?: { core?: Record<string, number> } }).resources?.core ?? {}
        return {
          limit: Number(core.limit ?? 0),
          remaining: Number(core.remaining ?? 0),
          used: typeof core.used === 'number' ? core.used : null,
          reset: typeof core.reset === 'number' ? stamp(core.reset) : null,
        }
      }),
    repository: (fullName) =>
      call(`reading the repository ${fullName}`, async () => {
        const r = await octokit.request('GET /repos/{owner}/{repo}', splitRepo(fullName))
        const d = r.data as { full_name: string; private: boolean; visibility?: string }
        const visibility: Visibility =
          d.visibility === 'public' || d.visibility === 'private' || d.visibility === 'internal'
            ? d.visibility
            : d.private
              ? 'private'
              : 'public'
        return { full_name: d.full_name, visibility }
      }),
    listIssues: (fullName, onPage) =>
      call(`listing the issues of ${fullName}`, async () => {
        const out: Issue[] = []
        let fetched = 0
        for await (const page of octokit.paginate.iterator('GET /repos/{owner}/{repo}/issues', {
          ...splitRepo(fullName),
          state: 'all',
          per_page: 100,
        })) {
          const items = page.data as unknown as RawIssue[]
          fetched += items.length
          for (const r of items) if (r.pull_request === undefined || r.pull_request === null) out.push(issueOf(r))
          onPage?.(fetched)
        }
        const seen = new Set<number>()
        return out.filter((i) => !seen.has(i.number) && seen.add(i.number)).sort((a, b) => a.number - b.number)
      }),
    createIssue: (fullName, fields) =>
      call(`creating an issue in ${fullName}`, async () => {
        const r = await octokit.request('POST /repos/{owner}/{repo}/issues', {
          ...splitRepo(fullName),
          ...fields,
          // Never retried: see the failure policy above.
          request: { retries: 0 },
        })
        return issueOf(r.data as unknown as RawIssue)
      }),
    updateIssue: (fullName, number, fields) =>
      call(`updating issue #${number} of ${fullName}`, async () => {
        const r = await octokit.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', {
          ...splitRepo(fullName),
          issue_number: number,
          ...fields,
        })
        return issueOf(r.data as unknown as RawIssue)
      }),
  }
}

const stamp = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')

interface RequestErrorLike {
  status?: number
  message?: string
  response?: { headers?: Record<string, string | undefined> }
}

/** A typed dacli error for anything the client threw, with every secret masked. */
export function classify(e: unknown, what: string, apiUrl: string, secrets: readonly (string | null)[]): DacliError {
  const err = (typeof e === 'object' && e !== null ? e : {}) as RequestErrorLike
  const status = typeof err.status === 'number' ? err.status : null
  const message = redact(String(err.message ?? e), secrets)
  const headers = err.response?.headers
  const details: Record<string, unknown> = { status, api_url: apiUrl }
  const next = ['dacli github doctor']
  if (err.response === undefined) {
    return new FailureError(`GitHub API at ${apiUrl} is unreachable (${what}): ${message}`, {
      details: { ...details, status: null },
      next: ['check the network and GITHUB_API_URL, then retry', ...next],
    })
  }
  if (status === 401) {
    return new FailureError(`GitHub rejected the token (401) while ${what}`, {
      details,
      next: ['check GH_TOKEN / GITHUB_TOKEN, or run `gh auth login`', ...next],
    })
  }
  if (status === 404) {
    return new NotFoundError(
      `${what}: not found on GitHub (404: the repository does not exist or the token cannot see it)`,
      {
        details,
        next,
      },
    )
  }
  if (status === 403 || status === 429) {
    const reset = Number(headers?.['x-ratelimit-reset'])
    const limited = headers?.['x-ratelimit-remaining'] === '0' || /rate limit/i.test(message)
    const when = limited && Number.isFinite(reset) && reset > 0 ? `; the limit resets at ${stamp(reset)}` : ''
    return new FailureError(`GitHub refused ${what} (${status}: ${message})${when}`, {
      details: { ...details, rate_limited: limited },
      next: limited ? ['wait for the rate limit to reset, then retry', ...next] : next,
    })
  }
  return new FailureError(`GitHub answered ${status ?? 'with an error'} while ${what}: ${message}`, {
    details,
    next: ['retry; a re-run converges without duplicates', ...next],
  })
}
