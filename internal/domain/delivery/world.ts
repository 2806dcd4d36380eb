// What the store, git and GitHub say, read once for reconciliation and cleanup: the tasks, trunk, the task
// branches and worktrees, the claim refs on the claims remote, and (when a repository and a token are at hand)
// the pull requests. A source that cannot be read is reported, never read as empty.

import { createHash } from 'node:crypto'
import * as path from 'node:path'
import { hasRemote, localRefs, type RefTip, remoteRefs } from '../../adapters/git/branches.js'
import type { GitInfo } from '../../adapters/git/discover.js'
import { type GitWorktree, listWorktrees, type Trunk, trunkOf } from '../../adapters/git/worktree.js'
import type { Pull } from '../../adapters/github/client.js'
import { canonicalJSON } from '../../base/canonical.js'
import { cmd } from '../../base/commands.js'
import { ConflictError, UsageError } from '../../base/errors.js'
import type { TaskRecord } from '../../format/model.js'
import type { Store } from '../../store/store.js'
import { connect } from '../github/connect.js'
import type { GithubContext } from '../github/context.js'
import { real, worktreeName } from '../worktree/worktrees.js'
import { repoOf } from './pulls.js'

export const CLAIMS_PREFIX = 'refs/dacli/claims/'
export const TASK_BRANCH_PREFIX = 'refs/heads/dacli/'

export interface World {
  store: Store
  git: GitInfo | null
  /** Every task of the workspace (the "without a task" findings look across projects). */
  all: TaskRecord[]
  /** The tasks in scope (--project, else all). */
  tasks: TaskRecord[]
  project: string | null
  trunk: Trunk | null
  branches: RefTip[]
  worktrees: GitWorktree[]
  claimsRemote: string
  /** The claims remote's claim refs, or null when it could not be read. */
  remoteClaims: RefTip[] | null
  /**
   * Remotes this clone names that did not answer (the claims remote): what they hold is missing from the picture,
   * not absent, so a command reading the world ends 1 with its document printed (contract: an unreachable remote
   * is 1). A clone that names no such remote has nothing missing.
   */
  unreachable: string[]
  repo: string | null
  /** Every pull request of the repository, or null when GitHub was not read. */
  pulls: Pull[] | null
  /** Why a source was not read. */
  skipped: { source: string; reason: string }[]
}

export async function readWorld(ctx: GithubContext, project: string | null, opts: { github: boolean }): Promise<World> {
  const store = await ctx.store()
  const all = (await store.listRecords()).records
  if (project !== null) store.requireProject(project)
  const tasks = project === null ? all : all.filter((t) => t.project === project)
  const git = store.git
  const skipped: World['skipped'] = []
  const unreachable: string[] = []
  const claimsRemote = store.config.claims_remote ?? 'origin'
  let trunk: Trunk | null = null
  let branches: RefTip[] = []
  let worktrees: GitWorktree[] = []
  let remoteClaims: RefTip[] | null = null
  if (git === null) skipped.push({ source: 'git', reason: 'the workspace is not in a git repository' })
  else {
    trunk = await trunkOf(git, store.env)
    branches = await localRefs(git, store.env, TASK_BRANCH_PREFIX)
    worktrees = await listWorktrees(git, store.env)
    remoteClaims = await remoteRefs(git, store.env, claimsRemote, CLAIMS_PREFIX, store.remoteDeadline)
    // A remote that is there and does not answer is not read; one that is not there has nothing to read, and is
    // said (in skipped only) when config.yml names it as the claims remote.
    if (remoteClaims === null) {
      if (await hasRemote(git, store.env, claimsRemote)) {
        skipped.push({ source: 'claims', reason: `the remote "${claimsRemote}" could not be read` })
        unreachable.push(claimsRemote)
      } else if (store.config.claims_remote !== null)
        skipped.push({
          source: 'claims',
          reason: `no remote "${claimsRemote}" in this clone, though claims.remote names it`,
        })
    }
  }
  let repo: string | null = null
  let pulls: Pull[] | null = null
  if (opts.github) {
    try {
      // The projects, not the tasks' projects: a linked project whose tasks are all removed still has pull requests.
      const projects = project === null ? store.projectSlugs() : [project]
      const first = projects[0]
      repo = first === undefined ? null : await repoOf(ctx, first)
      if (repo !== null) {
        const s = await connect(ctx, { requireToken: false })
        pulls = await s.client.listPulls(repo, { state: 'all' })
      } else skipped.push({ source: 'github', reason: 'no project to find a repository for' })
    } catch (e) {
      skipped.push({ source: 'github', reason: (e as Error).message })
    }
  }
  return {
    store,
    git,
    all,
    tasks,
    project,
    trunk,
    branches,
    worktrees,
    claimsRemote,
    remoteClaims,
    unreachable,
    repo,
    pulls,
    skipped,
  }
}

/** The task a branch or worktree belongs to: the one recording it, else the one its name names. */
export function ownerOfBranch(all: readonly TaskRecord[], branch: string): TaskRecord | null {
  return (
    all.find((t) => t.worktree?.branch === branch || t.branch === branch) ??
    all.find((t) => `dacli/${worktreeName(t)}` === branch) ??
    null
  )
}

export function ownerOfWorktree(store: Store, all: readonly TaskRecord[], w: GitWorktree): TaskRecord | null {
  const p = real(w.path)
  return (
    all.find((t) => t.worktree !== null && real(path.join(store.root, t.worktree.path)) === p) ??
    all.find((t) => path.basename(w.path) === worktreeName(t)) ??
    null
  )
}

/**
 * The project a task worktree's folder or branch name (`<project>-<NNN>-<slug>`) names: the longest project slug
 * of the workspace it starts with, so project `a` never claims `a-b`'s names. Null when it names none.
 */
export function projectOfName(slugs: readonly string[], name: string): string | null {
  let best: string | null = null
  for (const p of slugs) {
    if (!name.startsWith(`${p}-`) || !/^[0-9]{3,}-/.test(name.slice(p.length + 1))) continue
    if (best === null || p.length > best.length) best = p
  }
  return best
}

/** Is this worktree one of dacli's (under `.dacli/worktrees/`)? */
export const isTaskWorktree = (store: Store, w: GitWorktree) =>
  real(w.path).startsWith(`${real(path.join(store.dir, 'worktrees'))}${path.sep}`)

/** A plan's id: a digest of what it would do and of the state it was computed from. */
export function planId(prefix: string, content: unknown): string {
  return `${prefix}-${createHash('sha256').update(canonicalJSON(content)).digest('hex').slice(0, 16)}`
}

/**
 * Apply only the plan that was reviewed: an id no preview of this kind prints is a usage error (2); one that
 * differs from the plan computed now (the world moved, or the preview was printed with other flags, which enter
 * the digest) is a conflict (5) whose next action is the preview with the flags given now. `preview`: that command
 * line without `dacli`; `what`: what may have changed; `nothing`: what was therefore not done.
 */
export function refuseOtherPlan(
  current: string,
  reviewed: string,
  o: { preview: string; what: string; nothing: string },
): void {
  if (reviewed === current) return
  const prefix = current.slice(0, current.indexOf('-') + 1)
  if (!reviewed.startsWith(prefix) || !/^[0-9a-f]{16}$/.test(reviewed.slice(prefix.length))) {
    throw new UsageError(`"${reviewed}" is not a plan id of ${o.preview.split(' --')[0]} (${prefix}<16 hex digits>)`, {
      details: { reviewed },
      next: [cmd(o.preview)],
    })
  }
  throw new ConflictError(
    `${o.what} changed since plan ${reviewed} was printed, or it was printed with other flags than these (it is now ${current}): ${o.nothing}`,
    { details: { reviewed, current }, next: [cmd(o.preview)] },
  )
}
