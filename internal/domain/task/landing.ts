// Landed, not just done: a task with a branch — its worktree's (or the one
// kept in `branch:` when its worktree was removed), or one named with --branch — closes only when every commit of that branch is on
// trunk (`--into`, else the remote's HEAD, else main, else master). Otherwise
// the close is refused (3, policy `unlanded`) naming the missing commits, unless
// --allow-unlanded, which is logged. Without a branch nothing changes.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { commitsNotOn, mergeNaming } from '../../adapters/git/landing.js'
import { headRef } from '../../adapters/git/refs.js'
import { listWorktrees, revParse, trunkOf } from '../../adapters/git/worktree.js'
import { cmd } from '../../base/commands.js'
import { FailureError, NotFoundError, RefusedError, UsageError } from '../../base/errors.js'
import type { TaskRecord } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import type { Store } from '../../store/store.js'
import { unlandedRefusal } from './unlanded.js'

export interface LandingRequest {
  /** `--branch`: the branch (or any revision) holding the task's work; default: the task's worktree branch. */
  branch?: string
  /** `--into`: trunk. */
  into?: string
  /** `--allow-unlanded`: close anyway (logged). */
  allowUnlanded?: boolean
  /** Return an unlanded branch (landed and overridden false) instead of refusing, for the close to report. */
  defer?: boolean
}

export interface Landing {
  branch: string
  source: 'worktree' | 'flag'
  trunk: string
  trunk_commit: string
  /** The branch's tip, or null when the branch is gone. */
  head: string | null
  landed: boolean
  /** Commits of the branch trunk does not carry, oldest last (as git lists them). */
  missing: { sha: string; subject: string }[]
  /** When the branch is gone: the merge commit on trunk that names it. */
  merged_as: string | null
  /** The close went ahead with --allow-unlanded. */
  overridden: boolean
  /** The task log line the close writes: `landed <sha> …`, or `unlanded …` for an override. */
  log: { verb: 'landed' | 'unlanded'; details: string }
}

/** The landing state of a task's branch, or null when it has none. Refuses (3) an unlanded close unless allowed. */
export async function checkLanding(store: Store, t: TaskRecord, req: LandingRequest): Promise<Landing | null> {
  let branch = req.branch ?? t.worktree?.branch ?? t.branch ?? null
  if (branch === null) {
    if (req.into !== undefined) {
      throw new UsageError(`--into applies to a task with a branch, and ${qualifiedRef(t)} has none`, {
        next: [
          cmd(`task done ${qualifiedRef(t)} --branch <branch> --into ${req.into}`),
          cmd(`task done ${qualifiedRef(t)}`),
        ],
      })
    }
    return null
  }
  if (branch.startsWith('-') || /[\s\u0000-\u001f]/.test(branch))
    throw new UsageError(`"${branch}" is not a branch name`)
  const repo = store.git
  if (repo === null) {
    throw new FailureError(`not inside a git repository: cannot tell whether ${branch} landed`, {
      next: [cmd(`task done ${qualifiedRef(t)} --allow-unlanded (deliberately; logged)`)],
    })
  }
  const trunk = await trunkOf(repo, store.env, req.into)
  if (trunk === null) {
    if (req.into !== undefined) {
      throw new NotFoundError(`--into ${req.into} names no branch or commit`, { details: { into: req.into } })
    }
    throw new RefusedError('unlanded', `there is no trunk to land ${branch} on (no origin/HEAD, main or master)`, {
      details: { branch, trunk: null },
      next: [`name trunk: --into <branch>`, 'or close it deliberately with --allow-unlanded (logged)'],
    })
  }
  // The task's own branch is a branch: a tag (or any other ref) of the same name never stands in for it.
  let head = await revParse(repo, store.env, req.branch !== undefined ? branch : headRef(branch))
  if (head === null && req.branch === undefined && t.worktree !== null && t.worktree.path !== '') {
    // Renamed by git (`git branch -m`) in the task's worktree: the branch checked out there is the worktree's now.
    const where = real(path.join(store.root, t.worktree.path))
    const w = (await listWorktrees(repo, store.env)).find((x) => !x.main && x.branch !== null && real(x.path) === where)
    if (w?.branch != null) {
      branch = w.branch
      head = await revParse(repo, store.env, headRef(branch))
    }
  }
  if (head === null && req.branch !== undefined) {
    throw new NotFoundError(`--branch ${branch} names no branch or commit`, { details: { branch } })
  }
  const base = {
    branch,
    source: req.branch !== undefined ? ('flag' as const) : ('worktree' as const),
    trunk: trunk.name,
    trunk_commit: trunk.commit,
    head,
    overridden: false,
  }
  let found: Omit<Landing, 'log'>
  if (head === null) {
    // The worktree's branch was deleted: landed if trunk has a merge naming it, else unprovable.
    const merged = await mergeNaming(repo, store.env, trunk.commit, branch)
    found = { ...base, landed: merged !== null, missing: [], merged_as: merged }
  } else {
    const missing = await commitsNotOn(repo, store.env, trunk.commit, head)
    found = { ...base, landed: missing.length === 0, missing, merged_as: null }
  }
  if (!found.landed && !req.allowUnlanded) {
    // Deferred: the close names it among every other blocker (domain/task/lifecycle.ts closeBlockers).
    if (req.defer === true) return { ...found, log: logLine(found) }
    throw unlandedRefusal(t, found)
  }
  const landing = { ...found, overridden: !found.landed }
  return { ...landing, log: logLine(landing) }
}

/** `landed <sha> (<branch> in <trunk>)`, or `unlanded <branch>: … (--allow-unlanded)`. */
function logLine(l: Omit<Landing, 'log'>): Landing['log'] {
  if (l.landed) {
    const sha = l.head ?? l.merged_as ?? ''
    const how = l.head === null ? `, merged as ${l.merged_as}` : ''
    return { verb: 'landed', details: `${sha} (${l.branch} in ${l.trunk}${how})` }
  }
  const why =
    l.head === null
      ? 'branch gone, no merge names it'
      : `${l.missing.length} commit${l.missing.length === 1 ? '' : 's'} not on ${l.trunk}`
  return { verb: 'unlanded', details: `${l.branch}: ${why} (--allow-unlanded)` }
}

/** Does closing this task need the landing check (a worktree branch, or --branch / --into given)? */
export const landingApplies = (t: Pick<TaskRecord, 'worktree' | 'branch'>, req: LandingRequest) =>
  t.worktree !== null || t.branch !== null || req.branch !== undefined || req.into !== undefined

/** A path with its links resolved (as git lists worktrees), or as given when it does not exist. */
function real(p: string): string {
  try {
    return fs.realpathSync(p)
  } catch {
    return p
  }
}
