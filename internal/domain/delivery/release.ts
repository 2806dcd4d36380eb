// A release train: the project's tasks whose landed commit is on the source branch and not on the target (by
// commit reachability, after fetching both from origin), their pull requests and checks, what blocks the
// promotion (required checks on the source's tip, required approvals of the promotion pull request), and — when
// applied — one promotion pull request source → target, opened or reused (its body rewritten when the listing
// changed), merged on --merge when nothing blocks.
// A dry run reads only: no write request reaches GitHub.

import { fetchBranch } from '../../adapters/git/branches.js'
import { isAncestor, revParse } from '../../adapters/git/worktree.js'
import type { GitHubClient, Pull } from '../../adapters/github/client.js'
import { ConflictError, DacliError, FailureError, NotFoundError, UsageError } from '../../base/errors.js'
import type { TaskRecord } from '../../format/model.js'
import { connect } from '../github/connect.js'
import type { GithubContext } from '../github/context.js'
import { branchName, promotionOf } from './promotion.js'
import { branchOf, headIn, markedFor, repoOf } from './pulls.js'

export interface TrainTask {
  task: TaskRecord
  landed: string
  pull: Pull | null
}

export interface Train {
  project: string
  repo: string
  source: { name: string; sha: string }
  target: { name: string; sha: string }
  tasks: TrainTask[]
  required_checks: { name: string; state: 'passed' | 'pending' | 'failed' | 'missing' }[]
  reviews: { required: number; approved: number }
  promotion: Pull | null
  blockers: string[]
  /**
   * Tasks whose landed commit is on the target already but whose log does not say so (promoted outside dacli: the
   * promotion pull request merged on GitHub, a hotfix landed on the target itself): `--apply` records them released.
   */
  arrived: TrainTask[]
}

export interface TrainOptions {
  project: string
  source: string
  target: string
  requiredChecks: readonly string[]
  requiredReviews: number
}

const landedSha = (t: TaskRecord): string | null => {
  const l = [...t.log].reverse().find((e) => e.verb === 'landed')
  const sha = l?.details.split(' ')[0] ?? ''
  return /^[0-9a-f]{40}$/.test(sha) ? sha : null
}

const FAILED = new Set(['failure', 'timed_out', 'cancelled', 'action_required', 'stale'])

async function checkState(client: GitHubClient, repo: string, sha: string, name: string) {
  const runs = (await client.checkRuns(repo, sha)).filter((c) => c.name === name)
  const sts = (await client.statuses(repo, sha)).filter((s) => s.context === name)
  if (runs.length === 0 && sts.length === 0) return 'missing' as const
  if (
    runs.some((c) => c.conclusion !== null && FAILED.has(c.conclusion)) ||
    sts.some((s) => s.state === 'failure' || s.state === 'error')
  )
    return 'failed' as const
  if (runs.some((c) => c.status !== 'completed') || sts.some((s) => s.state === 'pending')) return 'pending' as const
  return 'passed' as const
}

export async function planTrain(
  ctx: GithubContext,
  given: TrainOptions,
): Promise<{ train: Train; client: GitHubClient }> {
  // Branches of origin, however they are spelled (`origin/release`, `refs/heads/release`): one train, one target.
  const o = { ...given, source: branchName(given.source), target: branchName(given.target) }
  if (o.source === o.target) throw new UsageError(`--source and --target are both ${o.source}: nothing to promote`)
  const store = await ctx.store()
  store.requireProject(o.project)
  const git = store.git
  if (git === null) throw new FailureError('not inside a git repository: cannot tell which commits each branch has')
  const repo = await repoOf(ctx, o.project)
  const resolve = async (name: string) => {
    const fetched = await fetchBranch(git, store.env, 'origin', name, store.remoteDeadline)
    const sha = fetched ?? (await revParse(git, store.env, name))
    if (sha === null) throw new NotFoundError(`no branch ${name} here or on origin`, { details: { branch: name } })
    return { name, sha }
  }
  const source = await resolve(o.source)
  const target = await resolve(o.target)
  const s = await connect(ctx, { requireToken: true })
  const all = (await store.listRecords(o.project)).records
  const pulls = await s.client.listPulls(repo, { state: 'all' })
  const tasks: TrainTask[] = []
  const arrived: TrainTask[] = []
  for (const t of all) {
    const sha = landedSha(t)
    if (sha === null || (await revParse(git, store.env, sha)) === null) continue
    if (await isAncestor(git, store.env, sha, target.sha)) {
      if (promotionOf(t, target.name) === null) arrived.push({ task: t, landed: sha, pull: null })
      continue
    }
    if (!(await isAncestor(git, store.env, sha, source.sha))) continue
    const pull =
      pulls.find((p) => branchOf(t) !== null && p.head.ref === branchOf(t) && headIn(p, repo)) ??
      pulls.find((p) => markedFor(p, t.id)) ??
      null
    tasks.push({ task: t, landed: sha, pull })
  }
  const owner = repo.split('/')[0] as string
  const promotion =
    (await s.client.listPulls(repo, { state: 'open', head: `${owner}:${o.source}` })).find(
      (p) => p.base.ref === o.target,
    ) ?? null
  const required_checks = []
  for (const name of o.requiredChecks)
    required_checks.push({ name, state: await checkState(s.client, repo, source.sha, name) })
  let approved = 0
  if (promotion !== null) {
    const by = new Map<string, string>()
    for (const r of await s.client.reviews(repo, promotion.number))
      if (r.user !== null && r.state !== 'COMMENTED') by.set(r.user, r.state)
    approved = [...by.values()].filter((v) => v === 'APPROVED').length
  }
  const blockers: string[] = []
  if (tasks.length === 0) blockers.push(`no task of ${o.project} landed on ${o.source} is missing from ${o.target}`)
  for (const c of required_checks)
    if (c.state !== 'passed') blockers.push(`required check ${c.name} is ${c.state} on ${o.source}`)
  const reviews = { required: o.requiredReviews, approved }
  if (approved < o.requiredReviews) blockers.push(reviewBlocker(reviews, promotion))
  if (promotion !== null && promotion.mergeable === false)
    blockers.push(`#${promotion.number} does not merge cleanly into ${o.target}`)
  const train: Train = {
    project: o.project,
    repo,
    source,
    target,
    tasks,
    required_checks,
    reviews,
    promotion,
    blockers,
    arrived,
  }
  return { train, client: s.client }
}

/** The blocker of approvals missing, naming the promotion pull request (or that there is none yet). */
const reviewBlocker = (r: Train['reviews'], promotion: Pull | null) =>
  `${r.approved} of ${r.required} required approval(s)${promotion === null ? ' (no promotion pull request yet)' : ` on #${promotion.number}`}`

export function promotionBody(t: Train): string {
  return [
    `Promotes ${t.tasks.length} task(s) of ${t.project} from ${t.source.name} to ${t.target.name}:`,
    '',
    ...t.tasks.map(
      (x) =>
        `- ${x.task.title} (${x.task.project}/${x.task.seq}, ${x.landed.slice(0, 12)}${x.pull ? `, #${x.pull.number}` : ''})`,
    ),
    '',
    `<!-- dacli:release-train ${t.project} ${t.source.name}->${t.target.name} -->`,
  ].join('\n')
}

export interface Applied {
  /** `updated`: reused, and its body rewritten, for it no longer listed the tasks the train promotes. */
  action: 'opened' | 'reused' | 'updated'
  pull: Pull
  merged: string | null
}

/**
 * Open (or reuse) the promotion pull request; merge it when asked and nothing blocks. A reused one whose body is not
 * this train's listing (a task landed on the source since it was opened) has its body rewritten first, so the pull
 * request says what merging it promotes. Null when no task is to be promoted: the target already has them all,
 * nothing is opened, rewritten or merged, and that is no error of the caller's.
 */
export async function applyTrain(client: GitHubClient, t: Train, merge: boolean): Promise<Applied | null> {
  if (t.tasks.length === 0) return null
  let action: Applied['action'] = 'reused'
  let pull = t.promotion
  const body = promotionBody(t)
  if (pull !== null && pull.body.replace(/\r\n/g, '\n') !== body) {
    // GitHub keeps a body edited in its web form with CRLF line ends: the same listing is no change.
    pull = await client.updatePull(t.repo, pull.number, { body })
    action = 'updated'
  }
  if (pull === null) {
    pull = await client.createPull(t.repo, {
      title: `Release ${t.project}: ${t.source.name} → ${t.target.name}`,
      body,
      head: t.source.name,
      base: t.target.name,
      draft: false,
    })
    action = 'opened'
    // The plan was read before the pull request existed: its approvals blocker names it now.
    const before = reviewBlocker(t.reviews, null)
    const opened = pull
    t.blockers = t.blockers.map((b) => (b === before ? reviewBlocker(t.reviews, opened) : b))
  }
  let merged: string | null = null
  if (merge && t.blockers.length === 0) {
    // Under a lease on the source commit whose checks were read: a source that moved since is not merged.
    try {
      merged = (await client.mergePull(t.repo, pull.number, { method: 'merge', sha: t.source.sha })).sha
    } catch (e) {
      const status = e instanceof DacliError ? e.details.status : undefined
      if (status !== 409) throw e
      throw new ConflictError(
        `${t.source.name} moved on GitHub since ${t.source.sha.slice(0, 12)} was checked: nothing merged`,
        { details: { pr: pull.number, checked: t.source.sha }, cause: e },
      )
    }
  }
  return { action, pull, merged }
}
