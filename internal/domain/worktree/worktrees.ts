// Task worktrees: `.dacli/worktrees/<project>-<NNN>-<slug>` on
// branch `dacli/<project>-<NNN>-<slug>`, recorded in the task as
// `worktree: {path, branch}`. Git does the checkout work (adapters/git/worktree.ts); this
// module decides names, reuse, what may be removed, and keeps the task in step.

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { GitInfo } from '../../adapters/git/discover.js'
import { commitsNotOn } from '../../adapters/git/landing.js'
import { headRef } from '../../adapters/git/refs.js'
import * as wt from '../../adapters/git/worktree.js'
import { isBranchName } from '../../base/branchname.js'
import { cmd } from '../../base/commands.js'
import { ConflictError, FailureError, NotFoundError, RefusedError, UsageError } from '../../base/errors.js'
import { type Identity, seqText, type TaskRecord, type TaskSummary } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { atomicWrite, LinkError, linkOnPath, mkdirNoLinks, readText } from '../../store/fsio.js'
import type { Store } from '../../store/store.js'
import { folderStatus } from '../../store/tombstones.js'
import { GITIGNORE } from '../../store/workspace.js'
import { mayRewrite, notOwner } from '../task/lifecycle.js'

type Env = Readonly<Record<string, string | undefined>>

export const worktreeName = (t: { project: string; seq: number; slug: string }) =>
  `${t.project}-${seqText(t.seq)}-${t.slug}`

/** A path as git reports it (real, absolute), for comparing worktree folders. */
export function real(p: string): string {
  try {
    return fs.realpathSync(p)
  } catch {
    const parent = path.dirname(p)
    return parent === p ? p : path.join(real(parent), path.basename(p))
  }
}

export function requireGit(store: Store): GitInfo {
  if (store.git === null) {
    throw new FailureError('not inside a git repository: task worktrees are git worktrees', {
      next: ['git init', 'run dacli from inside the repository that holds .dacli/'],
    })
  }
  return store.git
}

type WorktreeTask = Pick<TaskSummary, 'project' | 'seq' | 'slug' | 'worktree' | 'path'>

/**
 * Why a task's recorded `worktree` cannot be used, or null: its path must name one folder directly inside
 * `.dacli/worktrees/` — lexically and after every link is resolved — and its branch must be a plain branch
 * name. A task file is hostile until checked: a path elsewhere would let `remove` or `prune` delete a user's
 * own worktree, and `add` create one anywhere.
 */
export function worktreeProblem(store: Store, t: WorktreeTask): string | null {
  if (t.worktree === null) return null
  const value = t.worktree.path
  const home = path.join(store.dir, 'worktrees')
  const where = `${t.path}: field "worktree.path" is ${JSON.stringify(value)}`
  if (typeof value !== 'string' || value === '' || path.isAbsolute(value) || /[\0\\]/.test(value)) {
    return `${where}; expected a folder inside .dacli/worktrees/`
  }
  const abs = path.resolve(store.root, value)
  const rel = path.relative(home, abs)
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel) || rel.includes(path.sep)) {
    return `${where}, outside .dacli/worktrees/; dacli adds, removes and prunes worktrees only there`
  }
  if (linkOnPath(abs, store.dir) !== null || path.dirname(real(abs)) !== path.join(real(store.dir), 'worktrees')) {
    return `${where}, which resolves (through a link) outside .dacli/worktrees/`
  }
  const branch = t.worktree.branch
  if (typeof branch !== 'string' || !/^[A-Za-z0-9_][A-Za-z0-9._/-]*$/.test(branch) || branch.includes('..')) {
    return `${t.path}: field "worktree.branch" is ${JSON.stringify(branch)}; expected a plain branch name`
  }
  return null
}

/** The folder a task's worktree lives in: the one recorded in the task (checked), else the conventional one. */
function worktreePathOf(store: Store, t: WorktreeTask): string {
  const problem = worktreeProblem(store, t)
  if (problem !== null) {
    throw new FailureError(problem, {
      details: { path: t.path, field: 'worktree.path', code: 'invalid-field' },
      next: ['fix the worktree: line of the task file by hand (or remove it)', cmd('doctor')],
    })
  }
  return t.worktree !== null
    ? path.join(store.root, t.worktree.path)
    : path.join(store.dir, 'worktrees', worktreeName(t))
}

/** `.dacli/.gitignore` lists `worktrees/` (workspaces made before task worktrees existed get the line now); never through a link. */
function ensureIgnored(store: Store): void {
  const file = path.join(store.dir, '.gitignore')
  const st = fs.lstatSync(file, { throwIfNoEntry: false })
  if (st !== undefined && !st.isFile()) throw new LinkError(file)
  const text = st === undefined ? null : readText(file)
  if (text === null) {
    atomicWrite(store.system, file, GITIGNORE)
    return
  }
  if (/^\/?worktrees\/?\s*$/m.test(text)) return
  atomicWrite(store.system, file, `${text}${text.endsWith('\n') || text === '' ? '' : '\n'}worktrees/\n`)
}

export interface WorktreeOutcome {
  outcome: 'created' | 'reused' | 'removed' | 'unchanged'
  task: TaskRecord
  path: string
  branch: string
  head: string | null
  /** The revision a new branch started from (null when reused or when an existing branch was checked out). */
  base: string | null
  /** For remove: the branch was merged into trunk and deleted. */
  branch_deleted: boolean | null
}

/**
 * Record the task's worktree, or (null) forget it. Forgetting keeps `kept` — its branch, still there and not on
 * trunk — as `branch:`, so the close's landing check still applies to the work (domain/task/landing.ts).
 */
async function recordWorktree(
  store: Store,
  t: TaskRecord,
  who: Identity,
  value: { path: string; branch: string } | null,
  kept: string | null = null,
) {
  const same =
    value === null
      ? t.worktree === null && (kept === null || t.branch === kept)
      : t.worktree?.path === value.path && t.worktree.branch === value.branch && t.branch === null
  if (same) return t
  const target = (await store.resolve(t.id)) as Parameters<Store['editTask']>[0]
  const r = await store.editTask(target, who.id, (e) => {
    if (value === null) {
      e.delete('worktree')
      if (kept !== null) e.set('branch', kept)
      if (t.worktree !== null)
        e.log('worktree', `removed ${t.worktree.path}${kept === null ? '' : ` (kept branch ${kept})`}`)
    } else {
      e.setFlow('worktree', value)
      e.delete('branch')
      e.log('worktree', `${value.path} on branch ${value.branch}`)
    }
    return {}
  })
  return r.task
}

/**
 * The branch a forgotten worktree leaves behind for the landing check of a task not yet done: it still exists and
 * trunk lacks some of it (a done task's close logged its branch already).
 */
async function unlandedBranch(git: GitInfo, env: Env, t: TaskRecord, branch: string | null): Promise<string | null> {
  if (t.status === 'done' || branch === null || branch === '') return null
  const tip = await wt.revParse(git, env, headRef(branch))
  if (tip === null) return null
  const trunk = await wt.trunkOf(git, env)
  return trunk !== null && (await landedOn(git, env, tip, trunk.commit)) ? null : branch
}

/**
 * The commits of `tip` whose change trunk does not carry — as `task done` judges landing (`git cherry`): a commit
 * trunk holds in another form (a rebase, a cherry-pick, a one-commit squash) counts as landed. Null when git
 * cannot say.
 */
export async function unlandedCommits(
  git: GitInfo,
  env: Env,
  tip: string,
  trunk: string,
): Promise<{ sha: string; subject: string }[] | null> {
  if (await wt.isAncestor(git, env, tip, trunk)) return []
  try {
    return await commitsNotOn(git, env, trunk, tip)
  } catch {
    return null
  }
}

/** Has trunk every change of `tip` (an ancestor, or the same patches)? */
export const landedOn = async (git: GitInfo, env: Env, tip: string, trunk: string) =>
  (await unlandedCommits(git, env, tip, trunk))?.length === 0

/** Create (or find) the task's worktree and record it in the task. */
export async function addTaskWorktree(
  store: Store,
  env: Env,
  t: TaskRecord,
  who: Identity,
  opts: { base?: string; branch?: string } = {},
): Promise<WorktreeOutcome> {
  const git = requireGit(store)
  if (!(await mayRewrite(store, t, who))) throw notOwner(t, who, 'add a worktree for')
  if (opts.branch !== undefined && (!isBranchName(opts.branch) || !(await wt.validBranchName(git, env, opts.branch)))) {
    throw new UsageError(
      `--branch "${opts.branch}" is not a valid git branch name (give it short: no refs/heads/, not HEAD)`,
      {
        details: { branch: opts.branch },
      },
    )
  }
  const target = worktreePathOf(store, t)
  const existing = await wt.listWorktrees(git, env)
  const found = existing.find((w) => real(w.path) === real(target))
  if (found !== undefined && !found.prunable) {
    const branch = found.branch ?? t.worktree?.branch ?? `dacli/${worktreeName(t)}`
    if (opts.branch !== undefined && found.branch !== opts.branch) {
      throw new UsageError(
        `${qualifiedRef(t)} already has a worktree at ${target} on branch ${found.branch ?? '(detached)'}`,
        {
          details: { path: target, branch: found.branch },
          next: [cmd(`worktree remove ${qualifiedRef(t)}`), `cd ${target}`],
        },
      )
    }
    const task = await recordWorktree(store, t, who, { path: store.rel(target), branch })
    return { outcome: 'reused', task, path: target, branch, head: found.head, base: null, branch_deleted: null }
  }
  if (found?.prunable) await wt.pruneMissing(git, env)
  if (fs.existsSync(target)) {
    throw new ConflictError(`${target} exists and is not a worktree of this repository`, {
      details: { path: target },
      next: [`move ${target} out of the way`, cmd('worktree list')],
    })
  }
  // A kept `branch:` a person made unusable by hand is not passed to git: the conventional name is used instead.
  const kept = t.branch !== null && isBranchName(t.branch) ? t.branch : null
  const branch = opts.branch ?? t.worktree?.branch ?? kept ?? `dacli/${worktreeName(t)}`
  const elsewhere = existing.find((w) => w.branch === branch && !w.prunable)
  if (elsewhere !== undefined) {
    throw new ConflictError(`branch ${branch} is already checked out at ${elsewhere.path}`, {
      details: { branch, path: elsewhere.path },
      next: [cmd(`worktree add ${qualifiedRef(t)} --branch <another name>`)],
    })
  }
  const tip = await wt.revParse(git, env, headRef(branch))
  let base: string | null = null
  if (tip === null) {
    const trunk = opts.base === undefined ? await wt.trunkOf(git, env) : null
    base = opts.base ?? trunk?.name ?? null
    if (base === null) {
      throw new FailureError('no trunk to start the branch from (no origin/HEAD, main or master): pass --base REV', {
        next: [cmd(`worktree add ${qualifiedRef(t)} --base <revision>`)],
      })
    }
    if ((await wt.revParse(git, env, base)) === null) {
      throw new NotFoundError(`no revision "${base}" to start the branch from`, { details: { base } })
    }
  } else if (opts.base !== undefined) {
    throw new UsageError(`branch ${branch} exists already; --base applies only to a new branch`, {
      details: { branch, base: opts.base },
    })
  }
  ensureIgnored(store)
  mkdirNoLinks(path.dirname(target), store.dir)
  await wt.addWorktree(git, env, { path: target, branch, base })
  try {
    const task = await recordWorktree(store, t, who, { path: store.rel(target), branch })
    const head = await wt.revParse(git, env, headRef(branch))
    return { outcome: 'created', task, path: target, branch, head, base, branch_deleted: null }
  } catch (e) {
    // The task could not record it: leave no worktree (or new branch) behind.
    await wt.removeWorktree(git, env, target, true).catch(() => undefined)
    if (tip === null) {
      const made = await wt.revParse(git, env, headRef(branch))
      if (made !== null) await wt.deleteBranch(git, env, branch, made)
    }
    throw e
  }
}

/** Why a worktree may not be removed without --force (null: it may). */
async function removalBlockers(
  git: GitInfo,
  env: Env,
  w: wt.GitWorktree,
  trunk: wt.Trunk | null,
): Promise<{ policy: string; reason: string; details: Record<string, unknown> } | null> {
  if (w.locked) return { policy: 'locked-worktree', reason: 'it is locked (git worktree unlock)', details: {} }
  const changes = await wt.changesIn(git, env, w.path)
  if (changes.length > 0) {
    return {
      policy: 'dirty-worktree',
      reason: `${changes.length} uncommitted change${changes.length === 1 ? '' : 's'} (${changes
        .slice(0, 3)
        .map((c) => c.slice(3))
        .join(', ')}${changes.length > 3 ? ', …' : ''})`,
      details: { changes },
    }
  }
  if (w.head === null) return null
  let commits = await wt.unpushedUnmerged(git, env, w.head, trunk?.commit ?? w.head)
  if (commits.length > 0 && trunk !== null) {
    // A commit whose change trunk carries in another form (a squash or rebase merge) is not lost either.
    const missing = await unlandedCommits(git, env, w.head, trunk.commit)
    if (missing !== null) commits = commits.filter((c) => missing.some((m) => m.sha.startsWith(c.split(' ')[0] ?? c)))
  }
  if (commits.length > 0) {
    return {
      policy: 'unmerged-commits',
      reason: `${commits.length} commit${commits.length === 1 ? '' : 's'} neither on ${trunk?.name ?? 'trunk'} nor pushed (${commits.slice(0, 3).join('; ')}${commits.length > 3 ? '; …' : ''})`,
      details: { commits },
    }
  }
  return null
}

/** Commits of a detached worktree's HEAD that no branch, tag or remote holds and whose change trunk lacks. */
async function detachedWork(git: GitInfo, env: Env, w: wt.GitWorktree, trunk: wt.Trunk | null): Promise<string[]> {
  if (w.branch !== null || w.head === null) return []
  const commits = await wt.unreferenced(git, env, w.head)
  if (commits.length === 0 || trunk === null) return commits
  const missing = await unlandedCommits(git, env, w.head, trunk.commit)
  return missing === null ? commits : commits.filter((c) => missing.some((m) => m.sha.startsWith(c.split(' ')[0] ?? c)))
}

/** The branch dacli gave a task's worktree: the one recorded in the task, else the conventional one. */
export const taskBranchOf = (t: Pick<TaskSummary, 'project' | 'seq' | 'slug' | 'worktree'>) =>
  t.worktree?.branch ?? `dacli/${worktreeName(t)}`

/** May removing a task's worktree delete `branch`: the task's own, and neither trunk nor main or master? */
export const ownBranch = (branch: string | null, ours: string, trunk: wt.Trunk) =>
  branch === ours && ![trunk.name, 'main', 'master'].some((n) => n === branch || n.endsWith(`/${branch}`))

/**
 * Remove a worktree folder through git; delete its branch when it is the task's own (`ours`: never trunk or another
 * branch someone checked out there) and trunk has every commit of it.
 */
export async function dropWorktree(
  git: GitInfo,
  env: Env,
  w: wt.GitWorktree,
  trunk: wt.Trunk | null,
  force: boolean,
  ours: string,
): Promise<boolean> {
  await wt.removeWorktree(git, env, w.path, force)
  if (w.branch === null || w.head === null || trunk === null || !ownBranch(w.branch, ours, trunk)) return false
  if (!(await landedOn(git, env, w.head, trunk.commit))) return false
  return wt.deleteBranch(git, env, w.branch, w.head)
}

/** A removed task's worktree branch when it still exists (the remove kept it), else ''. */
const keptBranch = async (git: GitInfo, env: Env, b: string | undefined) =>
  b !== undefined && (await wt.revParse(git, env, headRef(b))) !== null ? b : ''

/** `worktree remove`: refuses dirty trees and commits that would exist nowhere else (3) unless forced. */
export async function removeTaskWorktree(
  store: Store,
  env: Env,
  t: TaskRecord,
  who: Identity,
  force: boolean,
): Promise<WorktreeOutcome> {
  const git = requireGit(store)
  if (!(await mayRewrite(store, t, who))) throw notOwner(t, who, 'remove the worktree of')
  // A removed task's tombstone still names its worktree; the worktree goes, the tombstone is never rewritten.
  const removed = folderStatus(t.path) === 'removed'
  const record: typeof recordWorktree = removed ? async (_s, task) => task : recordWorktree
  const target = worktreePathOf(store, t)
  const found = (await wt.listWorktrees(git, env)).find((w) => real(w.path) === real(target))
  if (found === undefined || found.prunable) {
    if (found === undefined && (t.worktree === null || removed)) {
      // A repeat of a remove that went through: nothing to do, and nothing written (contract §1, exit 0).
      const last = t.log.findLast((l) => l.verb === 'worktree')
      if (removed || last?.details.startsWith('removed ') === true)
        return {
          outcome: 'unchanged',
          task: t,
          path: target,
          branch: t.branch ?? (removed ? await keptBranch(git, env, t.worktree?.branch) : ''),
          head: null,
          base: null,
          branch_deleted: null,
        }
      throw new NotFoundError(`${qualifiedRef(t)} has no worktree`, {
        details: { path: target },
        next: [cmd('worktree list'), cmd(`worktree add ${qualifiedRef(t)}`)],
      })
    }
    // Its folder is gone already: forget it in git and in the task.
    if (found?.prunable) await wt.pruneMissing(git, env)
    const branch = t.worktree?.branch ?? found?.branch ?? ''
    const task = await record(store, t, who, null, await unlandedBranch(git, env, t, branch))
    return { outcome: 'removed', task, path: target, branch, head: null, base: null, branch_deleted: false }
  }
  if (found.main) throw new UsageError(`${target} is the main worktree; dacli never removes it`)
  // Removing the worktree a command runs in would pull the ground from under it (and its shell): as prune, refused.
  if (real(found.path) === real(git.workTree)) {
    throw new RefusedError(
      'current-worktree',
      `not removing the worktree of ${qualifiedRef(t)}: it is the worktree this command runs in`,
      {
        details: { path: target, branch: found.branch },
        next: [`cd ${store.root}`, cmd(`worktree remove ${qualifiedRef(t)}`)],
      },
    )
  }
  const trunk = await wt.trunkOf(git, env)
  if (!force) {
    const blocker = await removalBlockers(git, env, found, trunk)
    if (blocker !== null) {
      throw new RefusedError(blocker.policy, `not removing the worktree of ${qualifiedRef(t)}: ${blocker.reason}`, {
        details: { path: target, branch: found.branch, ...blocker.details },
        next: ['commit and push (or merge) the work first', cmd(`worktree remove ${qualifiedRef(t)} --force`)],
      })
    }
  }
  if (force) {
    // --force discards uncommitted changes only: commits on a detached HEAD that no ref reaches would be lost.
    const lost = await detachedWork(git, env, found, trunk)
    if (lost.length > 0) {
      throw new RefusedError(
        'detached-commits',
        `not removing the worktree of ${qualifiedRef(t)}, even with --force: ${lost.length} commit${lost.length === 1 ? '' : 's'} on its detached HEAD that no branch holds (${lost.slice(0, 3).join('; ')}${lost.length > 3 ? '; …' : ''})`,
        {
          details: { path: target, branch: null, head: found.head, commits: lost },
          next: [`git -C ${target} branch <name>`, cmd(`worktree remove ${qualifiedRef(t)} --force`)],
        },
      )
    }
  }
  const deleted = await dropWorktree(git, env, found, trunk, force, taskBranchOf(t))
  const branch = found.branch ?? t.worktree?.branch ?? ''
  const task = await record(store, t, who, null, deleted ? null : await unlandedBranch(git, env, t, branch))
  return {
    outcome: 'removed',
    task,
    path: target,
    branch,
    head: found.head,
    base: null,
    branch_deleted: deleted,
  }
}

/** Record a worktree put back (cleanup --restore) in its task when the caller may rewrite it; false when not. */
export async function rememberWorktree(
  store: Store,
  t: TaskRecord,
  who: Identity,
  value: { path: string; branch: string },
): Promise<boolean> {
  if (t.worktree !== null) return true
  if (!(await mayRewrite(store, t, who))) return false
  await recordWorktree(store, t, who, value)
  return true
}

/** Clear a removed worktree from its task when the caller may rewrite it (prune); false when it may not. */
export async function forgetWorktree(store: Store, env: Env, t: TaskRecord, who: Identity): Promise<boolean> {
  if (t.worktree === null || folderStatus(t.path) === 'removed') return true
  if (!(await mayRewrite(store, t, who))) return false
  await recordWorktree(store, t, who, null, await unlandedBranch(requireGit(store), env, t, t.worktree.branch))
  return true
}
