// Pull requests as dacli reads them: the answer shapes of the pulls, reviews, check-runs, combined-status,
// compare and merge endpoints, checked by hand before use (a 2xx that is not GitHub's API is a
// BadResponseError naming what was wrong), with the token masked in every text field.

import { BadResponseError } from './failure.js'
import { maskSecrets } from './redact.js'
import { kindOf } from './shapes.js'

export interface Pull {
  number: number
  url: string
  title: string
  body: string
  state: 'open' | 'closed'
  draft: boolean
  merged: boolean
  merged_at: string | null
  merge_commit_sha: string | null
  head: PullRef
  base: PullRef
  /** null while GitHub is still computing it. */
  mergeable: boolean | null
  /** GitHub's summary: clean, dirty, behind, blocked, unstable, draft, has_hooks, unknown (null when absent). */
  mergeable_state: string | null
  requested_reviewers: string[]
  created_at: string | null
  updated_at: string | null
}

export interface PullRef {
  ref: string
  sha: string
  /** The repository the branch is in (`owner/name`; a fork's for a pull request from a fork), null when gone. */
  repo: string | null
}

export type ReviewState = 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' | 'PENDING'

export interface Review {
  user: string | null
  state: ReviewState
  submitted_at: string | null
}

export interface CheckRun {
  name: string
  /** queued, in_progress, completed (others GitHub adds: waiting, requested, pending). */
  status: string
  /** success, failure, neutral, cancelled, skipped, timed_out, action_required, stale, or null until completed. */
  conclusion: string | null
}

export interface StatusContext {
  context: string
  state: 'pending' | 'success' | 'failure' | 'error'
}

export interface Comparison {
  /** Commits `head` has that `base` lacks. */
  ahead_by: number
  /** Commits `base` has that `head` lacks. */
  behind_by: number
  /** The commits listed (base...head: those of head), oldest first, at most what GitHub lists. */
  commits: { sha: string; subject: string }[]
}

export interface MergeResult {
  merged: boolean
  sha: string
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const SHA = /^[0-9a-f]{40}$/

function obj(v: unknown, what: string, status: number): Obj {
  if (!isObj(v)) throw new BadResponseError(`expected ${what} (a JSON object), got ${kindOf(v)}`, status)
  return v
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '')
const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null)

function ref(v: unknown, which: string, n: number, status: number, mask: (s: string) => string): PullRef {
  const r = obj(v, `pull request #${n}'s ${which}`, status)
  if (typeof r.ref !== 'string' || r.ref === '' || typeof r.sha !== 'string' || !SHA.test(r.sha)) {
    throw new BadResponseError(`pull request #${n} has no valid ${which} ref and sha`, status)
  }
  const repo = isObj(r.repo) && typeof r.repo.full_name === 'string' ? mask(r.repo.full_name) : null
  return { ref: r.ref, sha: r.sha, repo }
}

export function pullOf(raw: unknown, status: number, secrets: readonly (string | null)[]): Pull {
  const r = obj(raw, 'a pull request', status)
  if (!(typeof r.number === 'number' && Number.isInteger(r.number) && r.number > 0)) {
    throw new BadResponseError(`a pull request without a positive whole number (got ${kindOf(r.number)})`, status)
  }
  const n = r.number
  if (r.state !== 'open' && r.state !== 'closed') {
    throw new BadResponseError(`pull request #${n} has no open/closed state`, status)
  }
  const mask = (s: string) => maskSecrets(s, secrets)
  const reviewers = Array.isArray(r.requested_reviewers) ? r.requested_reviewers : []
  const mergedAt = textOrNull(r.merged_at)
  return {
    number: n,
    url: mask(text(r.html_url)),
    title: mask(text(r.title)),
    body: mask(text(r.body)),
    state: r.state,
    draft: r.draft === true,
    merged: r.merged === true || mergedAt !== null,
    merged_at: mergedAt,
    merge_commit_sha:
      typeof r.merge_commit_sha === 'string' && SHA.test(r.merge_commit_sha) ? r.merge_commit_sha : null,
    head: ref(r.head, 'head', n, status, mask),
    base: ref(r.base, 'base', n, status, mask),
    mergeable: typeof r.mergeable === 'boolean' ? r.mergeable : null,
    mergeable_state: textOrNull(r.mergeable_state),
    requested_reviewers: reviewers
      .map((u) => (isObj(u) && typeof u.login === 'string' ? mask(u.login) : null))
      .filter((u): u is string => u !== null),
    created_at: textOrNull(r.created_at),
    updated_at: textOrNull(r.updated_at),
  }
}

export function pullListOf(data: unknown, status: number, secrets: readonly (string | null)[]): Pull[] {
  if (!Array.isArray(data)) throw new BadResponseError(`expected a list of pull requests, got ${kindOf(data)}`, status)
  return data.map((p) => pullOf(p, status, secrets))
}

const REVIEW_STATES = new Set(['APPROVED', 'CHANGES_REQUESTED', 'COMMENTED', 'DISMISSED', 'PENDING'])

export function reviewListOf(data: unknown, status: number, secrets: readonly (string | null)[]): Review[] {
  if (!Array.isArray(data)) throw new BadResponseError(`expected a list of reviews, got ${kindOf(data)}`, status)
  return data.map((raw) => {
    const r = obj(raw, 'a review', status)
    if (typeof r.state !== 'string' || !REVIEW_STATES.has(r.state)) {
      throw new BadResponseError(`a review has no known state (got ${kindOf(r.state)})`, status)
    }
    const login = isObj(r.user) && typeof r.user.login === 'string' ? maskSecrets(r.user.login, secrets) : null
    return { user: login, state: r.state as ReviewState, submitted_at: textOrNull(r.submitted_at) }
  })
}

export function checkRunsOf(data: unknown, status: number, secrets: readonly (string | null)[]): CheckRun[] {
  const d = obj(data, 'the check runs', status)
  if (!Array.isArray(d.check_runs)) throw new BadResponseError('the check runs answer has no check_runs list', status)
  return d.check_runs.map((raw) => {
    const r = obj(raw, 'a check run', status)
    if (typeof r.name !== 'string' || typeof r.status !== 'string') {
      throw new BadResponseError('a check run has no name or status', status)
    }
    return { name: maskSecrets(r.name, secrets), status: r.status, conclusion: textOrNull(r.conclusion) }
  })
}

const STATUS_STATES = new Set(['pending', 'success', 'failure', 'error'])

export function statusesOf(data: unknown, status: number, secrets: readonly (string | null)[]): StatusContext[] {
  const d = obj(data, 'the combined status', status)
  const list = d.statuses ?? []
  if (!Array.isArray(list)) throw new BadResponseError('the combined status has no statuses list', status)
  return list.map((raw) => {
    const r = obj(raw, 'a commit status', status)
    if (typeof r.context !== 'string' || typeof r.state !== 'string' || !STATUS_STATES.has(r.state)) {
      throw new BadResponseError('a commit status has no context or known state', status)
    }
    return { context: maskSecrets(r.context, secrets), state: r.state as StatusContext['state'] }
  })
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0

export function comparisonOf(data: unknown, status: number, secrets: readonly (string | null)[]): Comparison {
  const d = obj(data, 'a comparison', status)
  if (!isCount(d.ahead_by) || !isCount(d.behind_by)) {
    throw new BadResponseError('the comparison has no whole-number ahead_by and behind_by', status)
  }
  const commits = Array.isArray(d.commits) ? d.commits : []
  return {
    ahead_by: d.ahead_by,
    behind_by: d.behind_by,
    commits: commits.filter(isObj).map((c) => {
      const message = isObj(c.commit) ? text(c.commit.message) : ''
      return { sha: text(c.sha), subject: maskSecrets(message.split('\n')[0] ?? '', secrets) }
    }),
  }
}

export function mergeResultOf(data: unknown, status: number): MergeResult {
  const d = obj(data, 'a merge result', status)
  if (typeof d.sha !== 'string' || !SHA.test(d.sha)) throw new BadResponseError('the merge result has no sha', status)
  return { merged: d.merged === true, sha: d.sha }
}
