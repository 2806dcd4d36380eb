// Has a branch landed on trunk? Through the system `git` (as worktrees are): the
// commits of a branch that trunk does not hold, counting a commit trunk holds in
// another form (rebased or cherry-picked: the same patch) as landed, and a branch
// whose changes trunk holds together (squashed) as landed whole.

import type { GitInfo } from './discover.js'
import { runGit } from './remote.js'

type Env = Readonly<Record<string, string | undefined>>

const WHAT = 'the landing check'

export interface Commit {
  sha: string
  subject: string
}

/**
 * The commits reachable from `head` whose change trunk does not carry (`git cherry`): neither an ancestor of
 * trunk nor a patch trunk already has. Empty: everything landed — also when the commits' changes reached trunk
 * together rather than one by one (a squash merge, a rebase that reworded or joined them): then git's merge of
 * `head` into trunk is trunk's own tree, and merging would change nothing.
 */
export async function commitsNotOn(repo: GitInfo, env: Env, trunk: string, head: string): Promise<Commit[]> {
  const r = await runGit(repo.workTree, env, ['cherry', '-v', trunk, head], WHAT)
  if (r.code !== 0) throw new Error(`git cherry failed: ${r.stderr.trim() || `exit ${r.code}`}`)
  const missing = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('+ '))
    .map((l) => {
      const [, sha = '', ...subject] = l.split(' ')
      return { sha, subject: subject.join(' ') }
    })
  return missing.length > 0 && (await mergeAddsNothing(repo, env, trunk, head)) ? [] : missing
}

/**
 * Does trunk carry the branch's change whole? The branch changes something (its tree differs from the one it
 * forked from: an empty commit, or work and its revert, carries nothing to land and proves nothing), and git's
 * merge of `head` into `trunk` (`merge-tree --write-tree`: in the object store, no work tree touched) is trunk's own
 * tree. False on a conflict, and on a git older than 2.38, which has no such merge.
 */
async function mergeAddsNothing(repo: GitInfo, env: Env, trunk: string, head: string): Promise<boolean> {
  const base = (await runGit(repo.workTree, env, ['merge-base', trunk, head], WHAT)).stdout.trim()
  if (!/^[0-9a-f]{40,64}$/.test(base)) return false
  const trees = await runGit(
    repo.workTree,
    env,
    ['rev-parse', `${base}^{tree}`, `${head}^{tree}`, `${trunk}^{tree}`],
    WHAT,
  )
  const [forked, own, onTrunk] = trees.stdout.trim().split('\n')
  if (trees.code !== 0 || forked === undefined || forked === own) return false
  const merged = await runGit(repo.workTree, env, ['merge-tree', '--write-tree', '--no-messages', trunk, head], WHAT)
  const tree = merged.stdout.split('\n')[0]?.trim() ?? ''
  return merged.code === 0 && /^[0-9a-f]{40,64}$/.test(tree) && tree === onTrunk
}

const ere = (s: string) => s.replace(/[.[\]()*+?{}|^$\\]/g, '\\$&')

/** An extended regular expression for a merge message naming `branch` exactly. */
export const namingPattern = (branch: string) => `('${ere(branch)}'|from ([^ /]+/)?${ere(branch)}$)`

/**
 * Was a commit made on `branch` in this repository (its reflog's `commit…` lines: `commit:`, `commit (amend):`,
 * `commit (merge):`), one that is still part of it at `tip`? A branch only moved along trunk (fast-forwarded to
 * it, rebased onto it) has none; nor has one fetched rather than worked on here, or whose reflog expired.
 */
export async function workedOn(repo: GitInfo, env: Env, branch: string, tip: string): Promise<boolean> {
  const r = await runGit(repo.workTree, env, ['reflog', 'show', '--format=%H %gs', `refs/heads/${branch}`, '--'], WHAT)
  if (r.code !== 0) return false
  const made = r.stdout
    .split('\n')
    .filter((l) => /^[0-9a-f]{40} commit( \([a-z -]+\))?: /.test(l))
    .map((l) => l.slice(0, 40))
  for (const sha of [...new Set(made)].slice(0, 20)) {
    const a = await runGit(repo.workTree, env, ['merge-base', '--is-ancestor', sha, tip], WHAT)
    if (a.code === 0) return true
  }
  return false
}

/** The merge commit on trunk that names `branch` in its message (a merged branch since deleted), or null. */
export async function mergeNaming(repo: GitInfo, env: Env, trunk: string, branch: string): Promise<string | null> {
  const r = await runGit(
    repo.workTree,
    env,
    // The whole name as a merge writes it — git's `Merge branch 'NAME'`, GitHub's `from OWNER/NAME` ending its line
    // (the owner left out too) — never a substring (`login` is not named by a merge of `login-v2`).
    ['log', '-1', '--merges', '--format=%H', '--extended-regexp', `--grep=${namingPattern(branch)}`, trunk, '--'],
    WHAT,
  )
  const sha = r.stdout.trim()
  return r.code === 0 && /^[0-9a-f]{40}$/.test(sha) ? sha : null
}
