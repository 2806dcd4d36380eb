// The GitHub client as the github slice sees it, in dacli's terms. This module
// loads nothing heavy: the Octokit-backed implementation (client.ts) is
// imported only when a command connects.

import type { CheckRun, Comparison, MergeResult, Pull, Review, StatusContext } from './pulls.js'
import type { RetryReport } from './retry.js'
import type { Issue, Milestone, RateLimit, RepoInfo } from './shapes.js'

export interface IssueWrite {
  title?: string
  body?: string
  labels?: string[]
  state?: 'open' | 'closed'
  /** A milestone number, or null to take the issue out of its milestone. */
  milestone?: number | null
}

/** Attempts made for one item (every HTTP attempt, retries included). */
export class Tally {
  attempts = 0
}

export interface Quota {
  remaining: number
  limit: number
  /** RFC 3339 UTC, or null. */
  reset: string | null
}

export interface GitHubClient {
  readonly apiUrl: string
  /** The spacing of writes: between any two, and before each issue creation. */
  readonly pacing: { writeMs: number; createMs: number }
  rateLimit(): Promise<RateLimit>
  repository(fullName: string): Promise<RepoInfo>
  /** Every issue (open and closed, pull requests left out), in ascending number order. */
  listIssues(fullName: string, onPage?: (fetched: number) => void): Promise<Issue[]>
  /**
   * The issues updated at or after `since` (RFC 3339 on GitHub's clock; null: every issue), in ascending number
   * order, and the mark to pass as `since` next time (GitHub's clock when the listing began, less a minute).
   */
  listIssuesSince(
    fullName: string,
    since: string | null,
    onPage?: (fetched: number) => void,
  ): Promise<{ issues: Issue[]; mark: string }>
  /**
   * Create an issue whose body carries `marker` (a string no other issue carries). After a failure that leaves
   * it unknown whether GitHub created it (a 5xx, a timeout), the issues updated since a minute before the create
   * (by GitHub's clock) are read back: the one carrying the marker is returned as `adopted`; only if there is none
   * is the create sent again. A rate limit is a refusal, not a doubt: it is waited out and sent again.
   */
  createIssue(
    fullName: string,
    fields: { title: string; body: string; labels: string[]; milestone?: number },
    opts: { marker: string; tally?: Tally },
  ): Promise<{ issue: Issue; adopted: boolean }>
  updateIssue(fullName: string, number: number, fields: IssueWrite, opts?: { tally?: Tally }): Promise<Issue>
  /** Pull requests (state open, closed or all), optionally of one head (`owner:branch`), newest first. */
  listPulls(fullName: string, opts: { state: 'open' | 'closed' | 'all'; head?: string }): Promise<Pull[]>
  pull(fullName: string, number: number): Promise<Pull>
  reviews(fullName: string, number: number): Promise<Review[]>
  /** The check runs of a commit (every page). */
  checkRuns(fullName: string, sha: string): Promise<CheckRun[]>
  /** The commit statuses of a commit (the combined status's contexts). */
  statuses(fullName: string, sha: string): Promise<StatusContext[]>
  /** `base...head`: how far head is ahead of and behind base, and head's commits base lacks. */
  compare(fullName: string, base: string, head: string): Promise<Comparison>
  createPull(
    fullName: string,
    fields: { title: string; body: string; head: string; base: string; draft: boolean },
  ): Promise<Pull>
  /** Rewrite a pull request's body (the same body sent twice is one body: retried like any idempotent write). */
  updatePull(fullName: string, number: number, fields: { body: string }): Promise<Pull>
  /** Merge, only if the head is still `sha` (GitHub answers 409 otherwise, 405 when it cannot merge). */
  mergePull(
    fullName: string,
    number: number,
    opts: { method: 'merge' | 'squash' | 'rebase'; sha: string },
  ): Promise<MergeResult>
  /** Every milestone of the repository, open and closed. */
  listMilestones(fullName: string): Promise<Milestone[]>
  createMilestone(fullName: string, title: string, opts?: { tally?: Tally }): Promise<Milestone>
  /** The quota GitHub reported with its latest answer (null before the first). */
  quota(): Quota | null
  /** What the retry policy has spent so far. */
  retries(): RetryReport
}
