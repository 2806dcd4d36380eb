// The GitHub adapter: Octokit (@octokit/core with the pagination plugin, and the
// throttling plugin for spacing writes) behind a small interface that speaks in
// dacli's terms and raises dacli's typed errors. Only this folder imports
// Octokit, and the github slice loads this module with import(), so no other
// command pays for it.
//
// - Every request carries a timeout, and goes only to the API's own origin: a
//   `Link` or a redirect to another host is refused before anything is sent
//   (guardedfetch.ts).
// - Every request runs under one retry policy (retry.ts). Reads and PATCH are
//   idempotent and simply retried; creating an issue is retried only after
//   proving the failed attempt created nothing (see createIssue).
// - Every answer is checked (shapes.ts); every message is redacted.

import { Octokit } from '@octokit/core'
import { paginateRest } from '@octokit/plugin-paginate-rest'
import { throttling } from '@octokit/plugin-throttling'
import Bottleneck from 'bottleneck/light.js'
import { isoSeconds } from '../../base/time.js'
import type { GitHubClient, Quota, Tally } from './api.js'
import { BadResponseError, classify } from './failure.js'
import { guardedFetch } from './guardedfetch.js'
import {
  type CheckRun,
  checkRunsOf,
  comparisonOf,
  mergeResultOf,
  type Pull,
  pullListOf,
  pullOf,
  type Review,
  reviewListOf,
  type StatusContext,
  statusesOf,
} from './pulls.js'
import { maskIssue, maskSecrets } from './redact.js'
import { Retrier, type RetryReport, type RetrySettings } from './retry.js'
import {
  createdIssueOf,
  type Issue,
  issueListOf,
  kindOf,
  type Milestone,
  milestonesOf,
  PageTrail,
  type RateLimit,
  type RepoInfo,
  rateLimitOf,
  repoOf,
} from './shapes.js'

export type { GitHubClient, Quota } from './api.js'
export { Tally } from './api.js'
export type { CheckRun, Comparison, MergeResult, Pull, Review, StatusContext } from './pulls.js'
export type { Issue, RateLimit, RepoInfo, RetryReport, RetrySettings }

export interface ClientOptions {
  apiUrl: string
  token: string | null
  /** Per request. */
  timeoutMs: number
  /** Minimum pause between write calls; creating an issue (it notifies people) waits three times as long. */
  writeIntervalMs: number
  userAgent: string
  retry: RetrySettings
  /** Told before each wait of the retry policy (progress for people). */
  onWait?: (ms: number, why: string) => void
  sleep?: (ms: number) => Promise<void>
}

/** A create's proof reads the issues updated since this long before the create began, by GitHub's clock. */
const PROOF_MARGIN_MS = 60_000
const silent = { debug() {}, info() {}, warn() {}, error() {} }
const GitHubOctokit = Octokit.plugin(paginateRest, throttling)

/** A request's options for the retry hook: sent once (a create), and whose attempts it counts. */
class Tag {
  constructor(
    readonly once: boolean,
    readonly tally: Tally | undefined,
  ) {}
}

const splitRepo = (fullName: string) => {
  const [owner, repo] = fullName.split('/') as [string, string]
  return { owner, repo }
}

export function createClient(opts: ClientOptions): GitHubClient {
  const secrets = [opts.token]
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))
  const retrier = new Retrier(opts.retry, {
    sleep,
    random: Math.random,
    ...(opts.onWait ? { onWait: opts.onWait } : {}),
  })
  const octokit = new GitHubOctokit({
    baseUrl: opts.apiUrl,
    ...(opts.token === null ? {} : { auth: opts.token }),
    userAgent: opts.userAgent,
    log: silent,
    request: { fetch: guardedFetch(opts.apiUrl, opts.timeoutMs), log: silent },
    throttle: {
      id: 'dacli',
      write: new Bottleneck.Group({ maxConcurrent: 1, minTime: opts.writeIntervalMs }),
      notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: opts.writeIntervalMs * 3 }),
      // Waiting out rate limits is the retry policy's job (it counts attempts and keeps the budget).
      onRateLimit: () => false,
      onSecondaryRateLimit: () => false,
    },
  })

  let quota: Quota | null = null
  // GitHub's clock as of its latest answer, and ours at that moment: `since` must be read on GitHub's clock.
  let clock: { server: number; local: number } | null = null
  const serverNow = () => (clock === null ? Date.now() : clock.server + (Date.now() - clock.local))
  const observe = (headers: Record<string, string | number | undefined> | undefined) => {
    if (headers === undefined) return
    const date = Date.parse(String(headers.date ?? ''))
    if (Number.isFinite(date)) clock = { server: date, local: Date.now() }
    const remaining = Number(headers['x-ratelimit-remaining'])
    const limit = Number(headers['x-ratelimit-limit'])
    const reset = Number(headers['x-ratelimit-reset'])
    if (headers['x-ratelimit-remaining'] !== undefined && Number.isInteger(remaining) && Number.isInteger(limit)) {
      quota = { remaining, limit, reset: Number.isInteger(reset) ? isoSeconds(reset) : null }
    }
  }
  octokit.hook.wrap('request', (request, options) => {
    const tag = (options.request as { dacli?: unknown } | undefined)?.dacli
    const once = tag instanceof Tag && tag.once
    const attempt = async () => {
      if (tag instanceof Tag && tag.tally) tag.tally.attempts++
      try {
        const res = await request(options)
        observe(res.headers)
        // Every endpoint dacli uses answers JSON; anything else is not GitHub's API (shapes.ts checks the rest).
        if (typeof res.data !== 'object' || res.data === null || res.data instanceof ArrayBuffer) {
          throw new BadResponseError(`expected JSON, got ${kindOf(res.data)}`, res.status)
        }
        return res
      } catch (e) {
        observe((e as { response?: { headers?: Record<string, string> } }).response?.headers)
        throw e
      }
    }
    if (once) return attempt()
    return retrier.run(attempt, { idempotent: true, what: `on ${options.method} ${pathOf(options)}` })
  })

  // GitHub's text can carry the token in use (pasted into an issue, or echoed by a hostile server): masked
  // before anything reads it, so it is never printed, written into a task file or committed.
  const scrub = (i: Issue) => maskIssue(i, secrets)

  const call = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f()
    } catch (e) {
      throw classify(e, what, opts.apiUrl, secrets)
    }
  }

  const list = async (
    fullName: string,
    since: string | null,
    onPage?: (n: number) => void,
    onFirst?: (serverMs: number) => void,
  ) => {
    const out: Issue[] = []
    let fetched = 0
    const trail = new PageTrail()
    for await (const page of octokit.paginate.iterator('GET /repos/{owner}/{repo}/issues', {
      ...splitRepo(fullName),
      state: 'all',
      per_page: 100,
      ...(since === null ? {} : { since }),
    })) {
      const items = issueListOf(page.data, page.status)
      if (fetched === 0 && onFirst !== undefined) {
        const date = Date.parse(String(page.headers.date ?? ''))
        onFirst(Number.isFinite(date) ? date : serverNow())
        onFirst = undefined
      }
      fetched += Array.isArray(page.data) ? page.data.length : 0
      out.push(...items.map(scrub))
      onPage?.(fetched)
      trail.check(page.url, page.headers.link, page.data, page.status)
    }
    const seen = new Set<number>()
    return out.filter((i) => !seen.has(i.number) && seen.add(i.number)).sort((a, b) => a.number - b.number)
  }

  return {
    apiUrl: opts.apiUrl,
    pacing: { writeMs: opts.writeIntervalMs, createMs: opts.writeIntervalMs * 3 },
    quota: () => quota,
    retries: () => retrier.report(),
    rateLimit: () =>
      call('reading the rate limit', async () => {
        const r = await octokit.request('GET /rate_limit')
        return rateLimitOf(r.data, r.status)
      }),
    repository: (fullName) =>
      call(`reading the repository ${fullName}`, async () => {
        const r = await octokit.request('GET /repos/{owner}/{repo}', splitRepo(fullName))
        const repo = repoOf(r.data, r.status)
        // The name is written into task files and printed: one carrying the token is no repository of GitHub's.
        if (maskSecrets(repo.full_name, secrets) !== repo.full_name) {
          throw new BadResponseError('the repository name carries the token', r.status)
        }
        return repo
      }),
    listIssues: (fullName, onPage) => call(`listing the issues of ${fullName}`, () => list(fullName, null, onPage)),
    listIssuesSince: (fullName, since, onPage) =>
      call(`listing the issues of ${fullName}`, async () => {
        // GitHub's clock when it answered the first page, less a margin: every issue changed after the listing
        // began has an updated_at at or after it, so the next listing from it misses nothing.
        let first: number | null = null
        const issues = await list(fullName, since, onPage, (ms) => {
          first = ms
        })
        const mark = new Date((first ?? serverNow()) - PROOF_MARGIN_MS).toISOString()
        return { issues, mark }
      }),
    createIssue: (fullName, fields, o) =>
      call(`creating an issue in ${fullName}`, () => {
        const since = new Date(serverNow() - PROOF_MARGIN_MS).toISOString()
        return retrier.run<{ issue: Issue; adopted: boolean }>(
          async () => {
            const r = await octokit.request('POST /repos/{owner}/{repo}/issues', {
              ...splitRepo(fullName),
              ...fields,
              request: { dacli: new Tag(true, o.tally) },
            })
            return { issue: scrub(createdIssueOf(r.data, r.status)), adopted: false }
          },
          {
            idempotent: false,
            what: `while creating an issue in ${fullName}`,
            proof: async () => {
              const found = (await list(fullName, since)).find((i) => i.body.includes(o.marker))
              return found === undefined ? null : { issue: found, adopted: true }
            },
          },
        )
      }),
    listPulls: (fullName, o) =>
      call(`listing the pull requests of ${fullName}`, async () => {
        const out: Pull[] = []
        const trail = new PageTrail()
        for await (const page of octokit.paginate.iterator('GET /repos/{owner}/{repo}/pulls', {
          ...splitRepo(fullName),
          state: o.state,
          per_page: 100,
          ...(o.head === undefined ? {} : { head: o.head }),
        })) {
          out.push(...pullListOf(page.data, page.status, secrets))
          trail.check(page.url, page.headers.link, page.data, page.status)
        }
        return out
      }),
    pull: (fullName, number) =>
      call(`reading pull request #${number} of ${fullName}`, async () => {
        const r = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
          ...splitRepo(fullName),
          pull_number: number,
        })
        return pullOf(r.data, r.status, secrets)
      }),
    reviews: (fullName, number) =>
      call(`reading the reviews of pull request #${number}`, async () => {
        // Every page: a long-lived pull request's latest reviews come after its first hundred.
        const out: Review[] = []
        const trail = new PageTrail()
        for await (const page of octokit.paginate.iterator('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', {
          ...splitRepo(fullName),
          pull_number: number,
          per_page: 100,
        })) {
          out.push(...reviewListOf(page.data, page.status, secrets))
          trail.check(page.url, page.headers.link, page.data, page.status)
        }
        return out
      }),
    checkRuns: (fullName, sha) =>
      call(`reading the check runs of ${sha.slice(0, 12)}`, async () => {
        const out: CheckRun[] = []
        const trail = new PageTrail()
        for await (const page of octokit.paginate.iterator('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
          ...splitRepo(fullName),
          ref: sha,
          per_page: 100,
        })) {
          // The paginator hands over each page's check_runs list (it unwraps `{total_count, check_runs}`).
          const data: unknown = page.data
          out.push(...checkRunsOf(Array.isArray(data) ? { check_runs: data } : data, page.status, secrets))
          trail.check(page.url, page.headers.link, data, page.status)
        }
        return out
      }),
    statuses: (fullName, sha) =>
      call(`reading the commit status of ${sha.slice(0, 12)}`, async () => {
        // Every page: the combined status lists 30 contexts a page unless asked, and pages past them.
        const out: StatusContext[] = []
        const trail = new PageTrail()
        for await (const page of octokit.paginate.iterator('GET /repos/{owner}/{repo}/commits/{ref}/status', {
          ...splitRepo(fullName),
          ref: sha,
          per_page: 100,
        })) {
          const data: unknown = page.data
          out.push(...statusesOf(data, page.status, secrets))
          trail.check(page.url, page.headers.link, data, page.status)
        }
        return out
      }),
    compare: (fullName, base, head) =>
      call(`comparing ${base}...${head} in ${fullName}`, async () => {
        const r = await octokit.request('GET /repos/{owner}/{repo}/compare/{basehead}', {
          ...splitRepo(fullName),
          basehead: `${base}...${head}`,
        })
        return comparisonOf(r.data, r.status, secrets)
      }),
    createPull: (fullName, fields) =>
      call(`opening a pull request in ${fullName}`, async () => {
        // Sent once: a second create after a doubt would be refused by GitHub anyway (one open PR per head).
        const r = await octokit.request('POST /repos/{owner}/{repo}/pulls', {
          ...splitRepo(fullName),
          ...fields,
          request: { dacli: new Tag(true, undefined) },
        })
        return pullOf(r.data, r.status, secrets)
      }),
    updatePull: (fullName, number, fields) =>
      call(`updating pull request #${number} of ${fullName}`, async () => {
        const r = await octokit.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
          ...splitRepo(fullName),
          pull_number: number,
          ...fields,
          request: { dacli: new Tag(false, undefined) },
        })
        return pullOf(r.data, r.status, secrets)
      }),
    mergePull: (fullName, number, o) =>
      call(`merging pull request #${number} of ${fullName}`, async () => {
        const r = await octokit.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', {
          ...splitRepo(fullName),
          pull_number: number,
          merge_method: o.method,
          sha: o.sha,
          request: { dacli: new Tag(true, undefined) },
        })
        return mergeResultOf(r.data, r.status)
      }),
    updateIssue: (fullName, number, fields, o) =>
      call(`updating issue #${number} of ${fullName}`, async () => {
        const r = await octokit.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', {
          ...splitRepo(fullName),
          issue_number: number,
          ...fields,
          request: { dacli: new Tag(false, o?.tally) },
        })
        return scrub(createdIssueOf(r.data, r.status))
      }),
    listMilestones: (fullName) =>
      call(`listing the milestones of ${fullName}`, async () => {
        const out: Milestone[] = []
        const trail = new PageTrail()
        for await (const page of octokit.paginate.iterator('GET /repos/{owner}/{repo}/milestones', {
          ...splitRepo(fullName),
          state: 'all',
          per_page: 100,
        })) {
          out.push(...milestonesOf(page.data, page.status))
          trail.check(page.url, page.headers.link, page.data, page.status)
        }
        return out
      }),
    createMilestone: (fullName, title, o) =>
      call(`creating the milestone "${title}" in ${fullName}`, async () => {
        const r = await octokit.request('POST /repos/{owner}/{repo}/milestones', {
          ...splitRepo(fullName),
          title,
          request: { dacli: new Tag(true, o?.tally) },
        })
        return milestonesOf(r.data, r.status)[0] as Milestone
      }),
  }
}

/** The path a request goes to, its route's `{placeholders}` filled in from its parameters (as a retry line names it). */
const pathOf = (o: { url: unknown }) =>
  String(o.url)
    .replace(/^https?:\/\/[^/]+/, '')
    .replace(/\{(\w+)\}/g, (m, k: string) => {
      const v = (o as Record<string, unknown>)[k]
      return typeof v === 'string' || typeof v === 'number' ? encodeURIComponent(String(v)) : m
    })
