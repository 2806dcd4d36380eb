// Worktrees through the system `git`: git
// owns the worktree bookkeeping (`.git/worktrees/`, locks, pruning), so dacli
// asks it rather than writing those files itself. Without git these refuse with
// the message runGit gives.

import { FailureError } from '../../base/errors.js'
import type { GitInfo } from './discover.js'
import { runGit } from './remote.js'

type Env = Readonly<Record<string, string | undefined>>

export interface GitWorktree {
  /** Absolute path of the work tree. */
  path: string
  /** The checked-out commit, or null (an unborn branch). */
  head: string | null
  /** The branch checked out (`dacli/alpha-001-x`), or null when detached. */
  branch: string | null
  /** The main worktree (the first one git lists). */
  main: boolean
  bare: boolean
  locked: boolean
  /** git would prune it: its folder is gone. */
  prunable: boolean
}

const WHAT = 'a task worktree'

async function gitOk(repo: GitInfo, env: Env, args: string[], cwd = repo.workTree): Promise<string> {
  const r = await runGit(cwd, env, args, WHAT)
  if (r.code !== 0) {
    const msg = r.stderr.trim().split('\n').filter(Boolean).slice(-2).join('; ')
    throw new FailureError(`git ${args[0]} failed: ${msg || `exit ${r.code}`}`, {
      details: { git_args: args, git_exit_code: r.code },
    })
  }
  return r.stdout
}

/** Every worktree git knows (`git worktree list --porcelain`), the main one first. */
export async function listWorktrees(repo: GitInfo, env: Env): Promise<GitWorktree[]> {
  const out = await gitOk(repo, env, ['worktree', 'list', '--porcelain'])
  const list: GitWorktree[] = []
  for (const block of out.split(/\n\n+/)) {
    const lines = block.split('\n').filter(Boolean)
    const first = lines[0]
    if (first === undefined || !first.startsWith('worktree ')) continue
    const get = (k: string) => lines.find((l) => l === k || l.startsWith(`${k} `))
    const head = get('HEAD')?.slice(5) ?? null
    const branch = get('branch')?.slice(7) ?? null
    list.push({
      path: first.slice('worktree '.length),
      head: head !== null && /^[0-9a-f]{40}$/.test(head) && !/^0+$/.test(head) ? head : null,
      branch: branch?.startsWith('refs/heads/') ? branch.slice('refs/heads/'.length) : null,
      main: list.length === 0,
      bare: get('bare') !== undefined,
      locked: get('locked') !== undefined,
      prunable: get('prunable') !== undefined,
    })
  }
  return list
}

/** The commit a revision names, or null. */
export async function revParse(repo: GitInfo, env: Env, rev: string): Promise<string | null> {
  if (rev.startsWith('-')) return null
  const r = await runGit(repo.workTree, env, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], WHAT)
  const oid = r.stdout.trim()
  return r.code === 0 && /^[0-9a-f]{40}$/.test(oid) ? oid : null
}

/** Is `name` a valid new branch name (git check-ref-format --branch)? */
export async function validBranchName(repo: GitInfo, env: Env, name: string): Promise<boolean> {
  if (name.startsWith('-') || name.trim() !== name || name === '') return false
  return (await runGit(repo.workTree, env, ['check-ref-format', '--branch', name], WHAT)).code === 0
}

export interface Trunk {
  /** What it was given as, or found as: `--into`, `origin/main`, `main` or `master`. */
  name: string
  commit: string
}

/**
 * Trunk: `--into`, else the remote's HEAD (`origin/HEAD` → `origin/main`), else `main`,
 * else `master`. Null when none exists (a repository with no commits, say).
 */
export async function trunkOf(repo: GitInfo, env: Env, into?: string): Promise<Trunk | null> {
  if (into !== undefined) {
    const commit = await revParse(repo, env, into)
    return commit === null ? null : { name: into, commit }
  }
  const r = await runGit(repo.workTree, env, ['symbolic-ref', '-q', '--short', 'refs/remotes/origin/HEAD'], WHAT)
  const candidates = [...(r.code === 0 && r.stdout.trim() !== '' ? [r.stdout.trim()] : []), 'main', 'master']
  for (const name of candidates) {
    const commit = await revParse(repo, env, name)
    if (commit !== null) return { name, commit }
  }
  return null
}

/** Uncommitted changes (tracked and untracked; ignored files too with `ignored`) in a work tree, as `git status --porcelain` lines. */
export async function changesIn(
  repo: GitInfo,
  env: Env,
  path: string,
  opts: { ignored?: boolean } = {},
): Promise<string[]> {
  const args = ['status', '--porcelain=v1', '--untracked-files=all', ...(opts.ignored === true ? ['--ignored'] : [])]
  const out = await gitOk(repo, env, args, path)
  return out.split('\n').filter((l) => l.trim() !== '')
}

/** Commits on `tip` that are neither in `trunk` nor on any remote-tracking branch: `<sha> <subject>`. */
export async function unpushedUnmerged(repo: GitInfo, env: Env, tip: string, trunk: string): Promise<string[]> {
  const out = await gitOk(repo, env, ['log', '--format=%h %s', tip, '--not', trunk, '--remotes', '--'])
  return out.split('\n').filter((l) => l.trim() !== '')
}

/** Commits on `tip` that no branch, tag or remote-tracking branch reaches (a detached HEAD's own work): `<sha> <subject>`. */
export async function unreferenced(repo: GitInfo, env: Env, tip: string): Promise<string[]> {
  const out = await gitOk(repo, env, ['log', '--format=%h %s', tip, '--not', '--branches', '--tags', '--remotes', '--'])
  return out.split('\n').filter((l) => l.trim() !== '')
}

/** `[ahead, behind]` of `tip` against `trunk`. */
export async function aheadBehind(repo: GitInfo, env: Env, tip: string, trunk: string): Promise<[number, number]> {
  const out = await gitOk(repo, env, ['rev-list', '--left-right', '--count', `${tip}...${trunk}`, '--'])
  const [a, b] = out.trim().split(/\s+/).map(Number)
  return [a ?? 0, b ?? 0]
}

export async function isAncestor(repo: GitInfo, env: Env, ancestor: string, of: string): Promise<boolean> {
  return (await runGit(repo.workTree, env, ['merge-base', '--is-ancestor', ancestor, of], WHAT)).code === 0
}

/** `git worktree add`: a new branch from `base`, or an existing branch checked out. */
export async function addWorktree(
  repo: GitInfo,
  env: Env,
  o: { path: string; branch: string; base: string | null },
): Promise<void> {
  const args =
    o.base === null
      ? ['worktree', 'add', '--quiet', o.path, o.branch]
      : ['worktree', 'add', '--quiet', '-b', o.branch, o.path, o.base]
  await gitOk(repo, env, args)
}

/** `git worktree remove` (forced: uncommitted changes and a lock are discarded too). */
export async function removeWorktree(repo: GitInfo, env: Env, path: string, force: boolean): Promise<void> {
  await gitOk(repo, env, ['worktree', 'remove', ...(force ? ['--force', '--force'] : []), path])
}

/** Forget worktrees whose folder is gone (`git worktree prune`). */
export async function pruneMissing(repo: GitInfo, env: Env): Promise<void> {
  await gitOk(repo, env, ['worktree', 'prune'])
}

/** Delete a branch only if it still points at `expected` (compare-and-swap through git). */
export async function deleteBranch(repo: GitInfo, env: Env, branch: string, expected: string): Promise<boolean> {
  const r = await runGit(repo.workTree, env, ['update-ref', '-d', `refs/heads/${branch}`, expected], WHAT)
  return r.code === 0
}

/**
 * The files a branch has changed since it left trunk (`git diff --name-only <merge base>`), and, when its work
 * tree is given, what is changed there and not yet committed. Null when git cannot say (no merge base).
 */
export async function changedSince(
  repo: GitInfo,
  env: Env,
  o: { trunk: string; branch: string; workTree: string | null },
): Promise<string[] | null> {
  if (o.trunk.startsWith('-') || o.branch.startsWith('-')) return null
  const base = await runGit(repo.workTree, env, ['merge-base', o.trunk, o.branch], WHAT)
  const oid = base.stdout.trim()
  if (base.code !== 0 || !/^[0-9a-f]{40}$/.test(oid)) return null
  const args = ['-c', 'core.quotePath=false', 'diff', '--name-only', '--no-renames', '-z']
  const r =
    o.workTree === null
      ? await runGit(repo.workTree, env, [...args, oid, o.branch, '--'], WHAT)
      : await runGit(o.workTree, env, [...args, oid, '--'], WHAT)
  if (r.code !== 0) return null
  const files = new Set(r.stdout.split('\u0000').filter((f) => f !== ''))
  if (o.workTree !== null) {
    const u = await runGit(o.workTree, env, ['ls-files', '-z', '--others', '--exclude-standard'], WHAT)
    if (u.code === 0) for (const f of u.stdout.split('\u0000')) if (f !== '') files.add(f)
  }
  return [...files]
}
