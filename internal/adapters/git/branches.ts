// Branches and remote refs through the system `git`, for delivery: push a branch, fetch one, list the local
// branches and a remote's refs, delete a ref only while it still points where it was seen, and put one back.

import { FailureError } from '../../base/errors.js'
import type { GitInfo } from './discover.js'
import { type Deadline, remoteTimedOut, runGit } from './remote.js'

type Env = Readonly<Record<string, string | undefined>>

const WHAT = 'delivery'

/** A git run against `remote` under its deadline; an expired one is exit 1 naming the remote and the timeout. */
async function remoteGit(
  repo: GitInfo,
  env: Env,
  remote: string,
  deadline: Deadline,
  args: readonly string[],
  what: string,
) {
  const r = await runGit(repo.workTree, env, args, WHAT, { name: remote, deadline })
  if (r.timedOut) throw remoteTimedOut(what, remote, deadline)
  return r
}

const tail = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('hint:'))
    .slice(-3)
    .join('; ')

/** Push a local branch to the same name on a remote. */
export async function pushBranch(
  repo: GitInfo,
  env: Env,
  remote: string,
  branch: string,
  deadline: Deadline,
  /** Ask the remote what the push would do (`git push --dry-run`): nothing is sent, no ref moves here or there. */
  dryRun = false,
): Promise<'pushed' | 'up-to-date'> {
  const ref = `refs/heads/${branch}`
  const r = await remoteGit(
    repo,
    env,
    remote,
    deadline,
    ['push', '--porcelain', ...(dryRun ? ['--dry-run'] : []), '--', remote, `${ref}:${ref}`],
    `git push of ${branch}`,
  )
  const line = r.stdout.split('\n').find((l) => l.includes(`\t${ref}:${ref}\t`))
  if (r.code === 0) return line?.[0] === '=' ? 'up-to-date' : 'pushed'
  throw new FailureError(
    `git push of ${branch} to ${remote} failed: ${tail(`${line ?? ''}\n${r.stderr}`) || `exit ${r.code}`}`,
    {
      details: { remote, branch, git_exit_code: r.code },
    },
  )
}

/** Fetch a remote's branch into refs/remotes/<remote>/<branch>; the fetched commit, or null when it failed. */
export async function fetchBranch(
  repo: GitInfo,
  env: Env,
  remote: string,
  branch: string,
  deadline: Deadline,
): Promise<string | null> {
  const tracking = `refs/remotes/${remote}/${branch}`
  const r = await remoteGit(
    repo,
    env,
    remote,
    deadline,
    ['fetch', '--no-tags', '--quiet', '--', remote, `+refs/heads/${branch}:${tracking}`],
    `git fetch of ${branch}`,
  )
  if (r.code !== 0) return null
  const sha = await runGit(repo.workTree, env, ['rev-parse', '--verify', '--quiet', tracking], WHAT)
  return sha.code === 0 ? sha.stdout.trim() : null
}

export interface RefTip {
  ref: string
  sha: string
}

/** Local refs under a prefix (`refs/heads/`, `refs/dacli/claims/`) with their commits. */
export async function localRefs(repo: GitInfo, env: Env, prefix: string): Promise<RefTip[]> {
  const r = await runGit(repo.workTree, env, ['for-each-ref', '--format=%(objectname) %(refname)', prefix], WHAT)
  if (r.code !== 0) return []
  return r.stdout
    .split('\n')
    .filter((l) => /^[0-9a-f]{40} /.test(l))
    .map((l) => ({ sha: l.slice(0, 40), ref: l.slice(41) }))
}

/** A remote's refs under a prefix (`git ls-remote`); null when the remote cannot be read. */
export async function remoteRefs(
  repo: GitInfo,
  env: Env,
  remote: string,
  prefix: string,
  deadline: Deadline,
): Promise<RefTip[] | null> {
  const r = await remoteGit(repo, env, remote, deadline, ['ls-remote', '--', remote, `${prefix}*`], 'git ls-remote')
  if (r.code !== 0) return null
  return r.stdout
    .split('\n')
    .filter((l) => /^[0-9a-f]{40}\t/.test(l))
    .map((l) => ({ sha: l.slice(0, 40), ref: l.slice(41) }))
}

/** Delete a local ref only if it still points at `expected`. */
export async function deleteLocalRef(repo: GitInfo, env: Env, ref: string, expected: string): Promise<boolean> {
  return (await runGit(repo.workTree, env, ['update-ref', '-d', ref, expected], WHAT)).code === 0
}

/** Create a local ref that does not exist (a ref that exists meanwhile is left alone: false). */
export async function setLocalRef(repo: GitInfo, env: Env, ref: string, sha: string): Promise<boolean> {
  return (await runGit(repo.workTree, env, ['update-ref', ref, sha, ''], WHAT)).code === 0
}

/** Delete a remote ref with a lease on the commit it was seen at. */
export async function deleteRemoteRef(
  repo: GitInfo,
  env: Env,
  remote: string,
  ref: string,
  expected: string,
  deadline: Deadline,
): Promise<boolean> {
  const r = await remoteGit(
    repo,
    env,
    remote,
    deadline,
    ['push', '--porcelain', `--force-with-lease=${ref}:${expected}`, '--', remote, `:${ref}`],
    `git push deleting ${ref}`,
  )
  return r.code === 0
}

/** Put a remote ref back at a commit this clone has (only if the remote has no such ref now). */
export async function restoreRemoteRef(
  repo: GitInfo,
  env: Env,
  remote: string,
  ref: string,
  sha: string,
  deadline: Deadline,
): Promise<boolean> {
  const r = await remoteGit(
    repo,
    env,
    remote,
    deadline,
    ['push', '--porcelain', `--force-with-lease=${ref}:`, '--', remote, `${sha}:${ref}`],
    `git push restoring ${ref}`,
  )
  return r.code === 0
}

/** Does this clone have the commit? */
export async function hasCommit(repo: GitInfo, env: Env, sha: string): Promise<boolean> {
  return (await runGit(repo.workTree, env, ['cat-file', '-e', `${sha}^{commit}`], WHAT)).code === 0
}

/** Is `remote` a remote this clone names (`git remote get-url`)? */
export async function hasRemote(repo: GitInfo, env: Env, remote: string): Promise<boolean> {
  return (await runGit(repo.workTree, env, ['remote', 'get-url', '--', remote], WHAT)).code === 0
}
