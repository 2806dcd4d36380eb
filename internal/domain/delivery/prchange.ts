// Opening and landing a task's pull request. Open: push the task's branch (system git) and open a pull request
// whose body holds the task's summary, criteria and marker — or reuse the open one for that branch. Land: only
// when the diagnosis says ready; merge with a lease on the head GitHub showed; then close the task through
// `task done`'s own rules, its landing checked against the merge commit on the fetched base.

import { fetchBranch, hasCommit, pushBranch } from '../../adapters/git/branches.js'
import type { GitInfo } from '../../adapters/git/discover.js'
import { commitsNotOn } from '../../adapters/git/landing.js'
import { revParse, trunkOf } from '../../adapters/git/worktree.js'
import type { MergeResult, Pull } from '../../adapters/github/client.js'
import { cmd } from '../../base/commands.js'
import { ConflictError, FailureError, NotFoundError, RefusedError, UsageError } from '../../base/errors.js'
import type { Identity, TaskRecord } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import type { Store } from '../../store/store.js'
import type { Arbitration } from '../claims/arbiter.js'
import { refuseClosingTheirs } from '../claims/arbitrate.js'
import { connect } from '../github/connect.js'
import type { GithubContext } from '../github/context.js'
import { inert, markerOf } from '../github/projection.js'
import { type Change, change, closeLanding, closeRefusal, doneTask, mayRewrite } from '../task/lifecycle.js'
import { unlandedRefusal } from '../task/unlanded.js'
import { branchOf, type Diagnosed, diagnoseWith, locate, repoOf } from './pulls.js'

export type MergeMethod = 'merge' | 'squash' | 'rebase'

export interface Opened {
  task: TaskRecord
  repo: string
  action: 'opened' | 'reused'
  pushed: 'pushed' | 'up-to-date' | null
  pull: Pull
}

/** The pull request `pr open` would open: what it would send to GitHub. */
export interface NewPull {
  title: string
  body: string
  head: string
  base: string
  draft: boolean
}

/** What `pr open --dry-run` found `pr open` would do; nothing of it done. */
export interface OpenPlan {
  task: TaskRecord
  repo: string
  action: 'open' | 'reuse'
  /** What pushing the branch would do (git push --dry-run), or null when nothing would be pushed. */
  push: 'pushed' | 'up-to-date' | null
  /** The open pull request that would be reused; null when one would be opened. */
  pull: Pull | null
  /** The pull request that would be opened; null when one would be reused. */
  open: NewPull | null
  /** Would the task's log gain `pr-opened` (the caller may rewrite it, and it does not name the pull request yet)? */
  logs: boolean
}

/** Opening one, or reusing it: done, or (dry run) only planned. */
type Step =
  | { task: TaskRecord; repo: string; action: 'reused'; pushed: Opened['pushed']; pull: Pull }
  | { task: TaskRecord; repo: string; action: 'opened'; pushed: Opened['pushed']; pull: Pull | null; open: NewPull }

/** The pull request body: the task's why, its context, its criteria, and the marker that finds it again. */
export function pullBody(t: TaskRecord, wsId: string): string {
  const parts: string[] = []
  if (t.so_that !== null) parts.push(`So that ${inert(t.so_that)}`)
  if (t.context !== null && t.context.trim() !== '') parts.push(inert(t.context.trim()))
  if (t.acceptance.length > 0) {
    parts.push(
      ['## Acceptance', ...t.acceptance.map((a) => `- [${a.checked ? 'x' : ' '}] ${inert(a.text)}`)].join('\n'),
    )
  }
  parts.push(`Task ${qualifiedRef(t)} (${t.id})`)
  parts.push(markerOf(t.id, wsId))
  return parts.join('\n\n')
}

const baseName = (trunk: string) => trunk.replace(/^origin\//, '')

/**
 * Note the pull request in the task's log (`pr-opened #N <url>`), once, when the caller may rewrite the task:
 * `pr diagnose` finds it again by the link, and delivery progress counts the task as pr_open.
 */
async function notePull(ctx: GithubContext, t: TaskRecord, who: Identity, pull: Pull): Promise<TaskRecord> {
  const store = await ctx.store()
  if (!(await mayRewrite(store, t, who))) return t
  const { target } = await store.load(t.id)
  const c = await change(store, target, who, 'pr-opened', (e) => {
    if (notes(e.before, pull.url)) return false
    e.log('pr-opened', `#${pull.number} ${pull.url}`)
    return { pr: pull.number }
  })
  return c.task
}

/** Does the task's log already note the pull request at `url`? */
const notes = (t: TaskRecord, url: string) => t.log.some((l) => l.verb === 'pr-opened' && l.details.includes(url))

export async function openPull(
  ctx: GithubContext,
  ref: string,
  who: Identity,
  opts: { base?: string; draft: boolean; branch?: string },
): Promise<Opened> {
  const opened = await openOrReuse(ctx, ref, opts, false)
  const pull = opened.pull as Pull // a pull request is opened unless this is a dry run
  return { ...opened, pull, task: await notePull(ctx, opened.task, who, pull) }
}

/**
 * What `pr open` would do, found as it finds it (the same reads, the same refusals), with nothing written: the
 * branch's push asked of the remote with `git push --dry-run`, no request but reads sent to GitHub, the task as it is.
 */
export async function planOpen(
  ctx: GithubContext,
  ref: string,
  who: Identity,
  opts: { base?: string; draft: boolean; branch?: string },
): Promise<OpenPlan> {
  const step = await openOrReuse(ctx, ref, opts, true)
  const store = await ctx.store()
  const logs = (await mayRewrite(store, step.task, who)) && (step.pull === null || !notes(step.task, step.pull.url))
  return {
    task: step.task,
    repo: step.repo,
    action: step.action === 'opened' ? 'open' : 'reuse',
    push: step.pushed,
    pull: step.pull,
    open: step.action === 'opened' ? step.open : null,
    logs,
  }
}

async function openOrReuse(
  ctx: GithubContext,
  ref: string,
  opts: { base?: string; draft: boolean; branch?: string },
  dryRun: boolean,
): Promise<Step> {
  const store = await ctx.store()
  const t = await store.readTask(ref)
  const branch = opts.branch ?? branchOf(t)
  if (branch !== null && (branch.startsWith('-') || /[\s\u0000-\u001f:]/.test(branch))) {
    throw new UsageError(`"${branch}" is not a branch name`)
  }
  const repo = await repoOf(ctx, t.project)
  const s = await connect(ctx, { requireToken: true })
  // Never a duplicate: the task's open pull request (by its branch, a link, or its marker) is reused.
  const owner = repo.split('/')[0] as string
  const byBranch = branch === null ? [] : await s.client.listPulls(repo, { state: 'open', head: `${owner}:${branch}` })
  const found = byBranch[0] ?? (await locate(s.client, repo, t)).pull
  if (found !== undefined && found !== null && found.state === 'open') {
    if (opts.branch !== undefined && opts.branch !== found.head.ref) {
      // A --branch the open pull request is not from: one that is not here is 4, another branch 5; nothing sent.
      const git = store.git
      if (git === null || !(await localBranch(git, store.env, opts.branch))) {
        throw new NotFoundError(`no branch ${opts.branch} in this repository: nothing to push for ${qualifiedRef(t)}`, {
          details: { task: t.id, branch: opts.branch },
          next: [found.url],
        })
      }
      throw new ConflictError(
        `#${found.number}, the open pull request of ${qualifiedRef(t)}, is from ${found.head.ref}, not ${opts.branch}: close it on GitHub to open one from ${opts.branch}, or open again without --branch`,
        { details: { pr: found.number, head: found.head.ref, asked: opts.branch }, next: [found.url] },
      )
    }
    if (opts.base !== undefined && opts.base !== found.base.ref) {
      throw new ConflictError(
        `#${found.number}, the open pull request of ${qualifiedRef(t)}, is against ${found.base.ref}, not ${opts.base}: change its base on GitHub or close it, then open again`,
        { details: { pr: found.number, base: found.base.ref, asked: opts.base }, next: [found.url] },
      )
    }
    // Reused as it is, with the commits made on its branch here since it was opened: pushed as for a new one.
    const git = store.git
    const ours = branch !== null && found.head.ref === branch && found.head.repo === repo
    const tip = ours && git !== null ? await revParse(git, store.env, `refs/heads/${branch}`) : null
    if (tip === null || git === null || branch === null)
      return { task: t, repo, action: 'reused', pushed: null, pull: found }
    const pushed = await pushBranch(git, store.env, 'origin', branch, store.remoteDeadline, dryRun)
    // The pull request's head is the branch just pushed (GitHub's own answer may lag the push).
    return {
      task: t,
      repo,
      action: 'reused',
      pushed,
      pull: dryRun ? found : { ...found, head: { ...found.head, sha: tip } },
    }
  }
  if (branch === null) {
    throw new UsageError(`${qualifiedRef(t)} has no branch: give it a worktree, or name the branch`, {
      details: { task: t.id },
      next: [cmd(`worktree add ${qualifiedRef(t)}`), cmd(`pr open ${qualifiedRef(t)} --branch <branch>`)],
    })
  }
  const git = store.git
  if (git === null) throw new FailureError('not inside a git repository: cannot push the branch')
  if (!(await localBranch(git, store.env, branch))) {
    throw new NotFoundError(`no branch ${branch} in this repository: nothing to push for ${qualifiedRef(t)}`, {
      details: { task: t.id, branch },
      next: [cmd(`worktree add ${qualifiedRef(t)}`), cmd(`pr open ${qualifiedRef(t)} --branch <branch>`)],
    })
  }
  const pushed = await pushBranch(git, store.env, 'origin', branch, store.remoteDeadline, dryRun)
  const trunk = opts.base ?? baseName((await trunkOf(git, store.env))?.name ?? 'main')
  const open: NewPull = {
    title: t.title,
    body: pullBody(t, store.config.id),
    head: branch,
    base: trunk,
    draft: opts.draft,
  }
  const pull = dryRun ? null : await s.client.createPull(repo, open)
  return { task: t, repo, action: 'opened', pushed, pull, open }
}

export interface Landed {
  task: TaskRecord
  repo: string
  diagnosed: Diagnosed
  /** The pull request as it stands after the merge. */
  pull: Pull
  merge: { method: MergeMethod; sha: string } | null
  change: Change
}

type LandOpts = { method: MergeMethod; arbitration?: Arbitration; notReady: (d: Diagnosed) => Record<string, unknown> }

/** What `pr land --dry-run` found `pr land` would do; nothing of it done. */
export interface LandPlan {
  task: TaskRecord
  repo: string
  diagnosed: Diagnosed
  pull: Pull
  /** merge: the pull request is ready and would be merged, then the task closed; close: it is merged already. */
  action: 'merge' | 'close'
  /** How it would be merged, on condition that its head is still `head_sha`; null when it is merged already. */
  merge: { method: MergeMethod; head_sha: string } | null
  /** The task's status afterwards: done, or as it is when the close would be a proposal (not the caller's task). */
  status: TaskRecord['status']
}

/**
 * The checks `pr land` makes before it writes anything: the diagnosis (anything but ready or merged: 3), then for a
 * ready one the close's own rules, another clone's live claim and work the head lacks. Throws the refusal.
 */
async function landable(ctx: GithubContext, ref: string, who: Identity, opts: LandOpts) {
  const store = await ctx.store()
  const t = await store.readTask(ref)
  const repo = await repoOf(ctx, t.project)
  const s = await connect(ctx, { requireToken: true })
  const d = await diagnoseWith(s, repo, t)
  const pull = d.located.pull
  if (pull === null || (d.diagnosis.code !== 'ready' && d.diagnosis.code !== 'merged')) {
    throw new RefusedError(
      'not_ready',
      `${qualifiedRef(t)}'s pull request is not ready to land: ${d.diagnosis.code} — do not retry unchanged`,
      { details: { diagnosis: opts.notReady(d) }, next: d.diagnosis.next_actions },
    )
  }
  const ready = d.diagnosis.code === 'ready'
  if (ready) {
    // The close's own rules first (criteria, a block): a refusal after the merge would leave it merged and open.
    const refusal = await closeRefusal(store, t, who)
    if (refusal !== null) throw refusal
    // So is another clone's live claim on the remote (5): a clone never lands work another clone is doing.
    await refuseClosingTheirs(opts.arbitration, t, who, ctx.now())
    // And work on the task's branch here that the pull request lacks: merged, it would be closed without it.
    await refuseUnpushed(store, t, pull)
  }
  return { store, t, repo, s, d, pull, ready }
}

/**
 * What `pr land` would do, found by the same reads and checks, with nothing merged or closed. For a pull request
 * merged already, the close's rules are asked too (the real run leaves them to `task done`, which asks the same).
 */
export async function planLand(ctx: GithubContext, ref: string, who: Identity, opts: LandOpts): Promise<LandPlan> {
  const { store, t, repo, d, pull, ready } = await landable(ctx, ref, who, opts)
  if (!ready) {
    const refusal = await closeRefusal(store, t, who)
    if (refusal !== null) throw refusal
    await refuseClosingTheirs(opts.arbitration, t, who, ctx.now())
    // The landing `task done` checks when it closes: on the merge commit, else the task's own branch on trunk.
    if (t.status !== 'done' && (await mayRewrite(store, t, who))) {
      const req = { ...(await mergeLanding(store, pull, pull.merge_commit_sha)), defer: true }
      const landing = await closeLanding(store, t, req)
      if (landing !== null && !landing.landed && !landing.overridden) throw unlandedRefusal(t, landing)
    }
  }
  return {
    task: t,
    repo,
    diagnosed: d,
    pull,
    action: ready ? 'merge' : 'close',
    merge: ready ? { method: opts.method, head_sha: pull.head.sha } : null,
    status: (await mayRewrite(store, t, who)) ? 'done' : t.status,
  }
}

export async function landPull(ctx: GithubContext, ref: string, who: Identity, opts: LandOpts): Promise<Landed> {
  const { store, t, repo, s, d, pull, ready } = await landable(ctx, ref, who, opts)
  let merge: Landed['merge'] = null
  let sha = pull.merge_commit_sha
  if (ready) {
    const m = await mergeLeased(s.client.mergePull.bind(s.client), repo, pull, opts.method, qualifiedRef(t))
    merge = { method: opts.method, sha: m.sha }
    sha = m.sha
  }
  // The close: `task done`'s rules, its landing checked on the merge commit as the base now has it.
  const change = await doneTask(store, qualifiedRef(t), who, {
    ...(await mergeLanding(store, pull, sha)),
    ...(opts.arbitration === undefined ? {} : { arbitration: opts.arbitration }),
  })
  const after = merge === null ? pull : { ...pull, state: 'closed' as const, merged: true, merge_commit_sha: merge.sha }
  return { task: change.task, repo, diagnosed: d, pull: after, merge, change }
}

/**
 * Where the close of a merged pull request checks its landing: the merge commit on the base fetched from origin,
 * when this clone has it; else nothing (the task's own branch is checked on trunk, as `task done` does).
 */
async function mergeLanding(store: Store, pull: Pull, sha: string | null): Promise<{ branch?: string; into?: string }> {
  const git = store.git
  if (git === null || sha === null) return {}
  const fetched = await fetchBranch(git, store.env, 'origin', pull.base.ref, store.remoteDeadline)
  return fetched !== null && (await hasCommit(git, store.env, sha))
    ? { branch: sha, into: `origin/${pull.base.ref}` }
    : {}
}

/** Does `branch` exist here as a branch (never a tag or another ref of that name)? */
const localBranch = async (git: GitInfo, env: Store['env'], branch: string) =>
  (await revParse(git, env, `refs/heads/${branch}`)) !== null

/**
 * Refuse (3, `unlanded`) to land a pull request whose head lacks commits of the task's branch here: the merge would
 * close the task with that work on no trunk. The head is fetched when this clone does not have it.
 */
async function refuseUnpushed(store: Store, t: TaskRecord, pull: Pull): Promise<void> {
  const git = store.git
  const branch = branchOf(t)
  if (git === null || branch === null) return
  const tip = await revParse(git, store.env, `refs/heads/${branch}`)
  if (tip === null || tip === pull.head.sha) return
  if (!(await hasCommit(git, store.env, pull.head.sha))) {
    await fetchBranch(git, store.env, 'origin', pull.head.ref, store.remoteDeadline)
    if (!(await hasCommit(git, store.env, pull.head.sha))) return // not reachable here: GitHub's head is all there is
  }
  const missing = await commitsNotOn(git, store.env, pull.head.sha, tip)
  if (missing.length === 0) return
  throw new RefusedError(
    'unlanded',
    `${qualifiedRef(t)}: ${missing.length} commit${missing.length === 1 ? '' : 's'} of ${branch} ${missing.length === 1 ? 'is' : 'are'} not in #${pull.number}'s head (${missing
      .slice(0, 3)
      .map((c) => `${c.sha.slice(0, 12)} ${c.subject}`)
      .join('; ')}): push them first — nothing was merged`,
    {
      details: { pr: pull.number, branch, head: pull.head.sha, missing },
      next: [cmd(`pr open ${qualifiedRef(t)}`), cmd(`pr land ${qualifiedRef(t)}`)],
    },
  )
}

async function mergeLeased(
  merge: (repo: string, n: number, o: { method: MergeMethod; sha: string }) => Promise<MergeResult>,
  repo: string,
  pull: Pull,
  method: MergeMethod,
  ref: string,
): Promise<MergeResult> {
  try {
    return await merge(repo, pull.number, { method, sha: pull.head.sha })
  } catch (e) {
    const status = (e as { details?: { status?: unknown } }).details?.status
    if (status === 409 || status === 405) {
      throw new ConflictError(
        status === 409
          ? `#${pull.number}'s head moved since it was diagnosed: nothing was merged`
          : `GitHub would not merge #${pull.number} (405): its state changed since it was diagnosed`,
        { details: { pr: pull.number, status }, next: [cmd(`pr diagnose ${ref}`)], cause: e },
      )
    }
    throw e
  }
}
