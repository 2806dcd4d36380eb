// Performing a push plan, one item at a time in task order. An item's failure is
// recorded with its reason and the push goes on. Each issue number is written
// into its task the moment the issue exists, so a push killed at any point loses
// nothing the next push cannot find again (by the github block, else by the
// marker). The push stops sending — and fails the rest, unsent — only when going
// on cannot help: the token or the permissions were refused, GitHub's answers
// are not its API, the rate limit outlasts the retry budget or the budget is
// spent, or GitHub failed OUTAGE_AFTER items in a row.

import { type GitHubClient, type IssueWrite, Tally } from '../../adapters/github/api.js'
import type { Issue } from '../../adapters/github/shapes.js'
import type { Store } from '../../store/store.js'
import type { GithubContext } from './context.js'
import { writeMapping } from './mapping.js'
import { fetchIssues, type Prepared } from './preflight.js'
import { markerOf } from './projection.js'
import { type PushProgress, startProgress } from './pushprogress.js'
import { type PushPlan, planPush, type Step, type Window } from './pushwindow.js'

export interface PushRun {
  ctx: GithubContext
  p: Prepared
  project: string
  repo: string
  wsId: string
  actor: string
}

export type PushOutcome = 'created' | 'updated' | 'closed' | 'unchanged' | 'adopted' | 'failed'

/** What became of one step: its issue (when known), the outcome, why it failed, and the attempts it took. */
export interface StepResult {
  step: Step
  issue: number | null
  outcome: PushOutcome
  reason: string | null
  attempts: number
}

/** A performed push: the plan, each step's result, and why the push stopped sending (null: it did not). */
export interface PushRunResult {
  plan: PushPlan
  results: StepResult[]
  stopped: string | null
  client: GitHubClient
}

/** Plan against a fresh issues list and perform it, with progress: the real run of push and of sync's push half. */
export async function runPush(r: PushRun, tasks: Window, issues?: readonly Issue[]): Promise<PushRunResult> {
  const plan = planPush(tasks, issues ?? (await fetchIssues(r.p, r.repo)), r.repo, r.wsId)
  const client = r.p.session.client
  const progress = startProgress(r.ctx, r.p.session, r.repo, plan.steps.filter(busy).length)
  try {
    const { store } = r.p
    const milestones = new MilestoneBook(client, r.repo)
    const done = await applyPush(
      { store, client, actor: r.actor, repo: r.repo, wsId: r.wsId, progress, milestones },
      plan,
    )
    return { plan, results: done.results, stopped: done.stopped, client }
  } finally {
    progress.end()
  }
}

export interface PushApply {
  store: Store
  client: GitHubClient
  actor: string
  repo: string
  wsId: string
  progress: PushProgress
  milestones: MilestoneBook
}

/** The repository's milestones by title, listed once per push; a missing one is created when first needed. */
export class MilestoneBook {
  private byTitle: Promise<Map<string, number>> | null = null
  constructor(
    private readonly client: GitHubClient,
    private readonly repo: string,
  ) {}

  async numberOf(title: string, tally: Tally): Promise<number> {
    this.byTitle ??= this.client
      .listMilestones(this.repo)
      .then((list) => new Map(list.map((m) => [m.title, m.number])))
      .catch((e: unknown) => {
        this.byTitle = null
        throw e
      })
    const map = await this.byTitle
    const known = map.get(title)
    if (known !== undefined) return known
    const made = await this.client.createMilestone(this.repo, title, { tally })
    map.set(made.title, made.number)
    return made.number
  }
}

/** Consecutive items failed by GitHub (5xx, timeouts) after which the push is taken for an outage. */
const OUTAGE_AFTER = 3
/** Failures that would repeat on every item. */
const HALTS = new Set(['token', 'forbidden', 'rate_limit', 'foreign_host', 'bad_response'])

/** An item's issue exists on GitHub, but a later step for it failed. */
class AfterIssueError extends Error {
  constructor(
    readonly issue: number,
    what: string,
    cause: unknown,
  ) {
    super(`issue #${issue} exists, but ${what} failed: ${messageOf(cause)}`, { cause })
  }
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** The `details.cause_kind` GitHub errors carry (through wrapping), or null for a local failure. */
function causeKind(e: unknown): string | null {
  for (let c: unknown = e, depth = 0; c !== undefined && c !== null && depth < 8; depth++) {
    const kind = (c as { details?: { cause_kind?: unknown } }).details?.cause_kind
    if (typeof kind === 'string') return kind
    c = (c as { cause?: unknown }).cause
  }
  return null
}

/** Does the step have anything to do (a write on GitHub, or a mapping to record)? */
const busy = (s: Step) => s.action !== 'unchanged' || s.remap

async function applyPush(a: PushApply, plan: PushPlan): Promise<{ results: StepResult[]; stopped: string | null }> {
  const results: StepResult[] = []
  let stopped: string | null = null
  let inRow = 0
  for (const s of plan.steps) {
    const known = s.issue?.number ?? null
    if (!busy(s)) {
      results.push({ step: s, issue: known, outcome: 'unchanged', reason: null, attempts: 0 })
      continue
    }
    if (stopped !== null) {
      results.push({ step: s, issue: known, outcome: 'failed', reason: `not sent: ${stopped}`, attempts: 0 })
      a.progress.item(true)
      continue
    }
    const tally = new Tally()
    try {
      const r = await perform(a, s, tally)
      results.push({ step: s, issue: r.issue, outcome: r.outcome, reason: null, attempts: tally.attempts })
      inRow = 0
      a.progress.item(false)
    } catch (e) {
      const issue = e instanceof AfterIssueError ? e.issue : known
      results.push({ step: s, issue, outcome: 'failed', reason: messageOf(e), attempts: tally.attempts })
      a.progress.item(true)
      const kind = causeKind(e)
      if (kind !== null && HALTS.has(kind)) stopped = messageOf(e)
      else if (kind === 'transient' && ++inRow >= OUTAGE_AFTER) {
        stopped = `GitHub failed ${inRow} items in a row (the last: ${messageOf(e)})`
      }
      if (stopped === null && a.client.retries().exhausted) stopped = 'the retry budget is spent'
    }
  }
  return { results, stopped }
}

async function perform(a: PushApply, s: Step, tally: Tally): Promise<{ outcome: PushOutcome; issue: number }> {
  if (s.action === 'create') {
    const milestone = s.desired.milestone === null ? undefined : await a.milestones.numberOf(s.desired.milestone, tally)
    const { issue, adopted } = await a.client.createIssue(
      a.repo,
      {
        title: s.desired.title,
        body: s.desired.body,
        labels: s.desired.labels,
        ...(milestone === undefined ? {} : { milestone }),
      },
      { marker: markerOf(s.task.id as string, a.wsId), tally },
    )
    const n = issue.number
    // The mapping first: if closing fails now, the next push updates the known issue.
    await after(n, 'writing its number into the task', () => writeBack(a, s, n, true))
    if (s.desired.state === 'closed' && issue.state !== 'closed') {
      await after(n, 'closing it', () => a.client.updateIssue(a.repo, n, { state: 'closed' }, { tally }))
    }
    return { outcome: adopted ? 'adopted' : 'created', issue: n }
  }
  const n = (s.issue as { number: number }).number
  if (s.changes.length > 0) {
    const fields: IssueWrite = {}
    for (const c of s.changes) {
      if (c !== 'milestone') Object.assign(fields, { [c]: s.desired[c] })
      else
        fields.milestone = s.desired.milestone === null ? null : await a.milestones.numberOf(s.desired.milestone, tally)
    }
    await a.client.updateIssue(a.repo, n, fields, { tally })
    await after(n, 'writing the mapping into the task', () => writeBack(a, s, n, s.remap))
  } else {
    await writeBack(a, s, n, true)
  }
  const outcome: PushOutcome = s.adopted
    ? 'adopted'
    : s.action === 'close'
      ? 'closed'
      : s.action === 'update'
        ? 'updated'
        : 'unchanged'
  return { outcome, issue: n }
}

async function after<T>(issue: number, what: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f()
  } catch (e) {
    throw new AfterIssueError(issue, what, e)
  }
}

async function writeBack(a: PushApply, s: Step, issue: number, newMapping: boolean): Promise<void> {
  const file = s.task.file
  if (file === null) return
  await writeMapping(
    a.store,
    file,
    a.actor,
    { issue, repo: a.repo },
    newMapping ? `github: issue ${a.repo}#${issue}` : null,
  )
}
