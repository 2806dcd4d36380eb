// Remotes go through the system `git` binary: it owns remote names, URLs, ssh,
// credential helpers and proxies, none of which dacli should reimplement.

import { cmd } from '../../base/commands.js'
import { ConflictError, FailureError, NotFoundError } from '../../base/errors.js'
import { knownRemote } from './config.js'
import type { GitInfo } from './discover.js'
import { readRef, removeAbandonedRefLock } from './refs.js'

type Env = Readonly<Record<string, string | undefined>>

interface Ran {
  code: number
  stdout: string
  stderr: string
  /** The remote did not answer within its deadline: the git process group was killed (code 124). */
  timedOut?: boolean
}

/**
 * How long one remote operation may take (`remote_timeout` in config.yml) and how to end it: the git program runs
 * in a process group of its own, and on expiry the whole group is killed (git, git-remote-http, ssh), so no
 * process outlives the command.
 */
export interface Deadline {
  readonly ms: number
  killGroup(pgid: number, signal: 'SIGKILL' | 'SIGTERM'): void
  /** Kill the group too if this process is interrupted before the git ends (the returned function lets go). */
  guardGroup(pgid: number): () => void
}

/** `20 s`, `1.5 s`, `500 ms`: a timeout as a message says it. */
export const timeoutText = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`)

export async function runGit(
  cwd: string,
  env: Env,
  args: readonly string[],
  what: string,
  remote?: { name: string; deadline: Deadline },
): Promise<Ran> {
  if (remote !== undefined) return runRemoteGit(cwd, env, args, what, remote.name, remote.deadline)
  // Loaded when git runs (node:child_process brings node:net and dgram): a chunk that holds this module but runs no
  // git starts without it.
  const { execFile } = await import('node:child_process')
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        cwd,
        // Never stop to ask for a password: agents run unattended. Credential helpers still work.
        env: { ...env, GIT_TERMINAL_PROMPT: '0' },
        maxBuffer: 16 * 1024 * 1024,
        timeout: 10 * 60_000,
      },
      (err, stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(gitMissing(what))
          return
        }
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1
        resolve({ code, stdout: String(stdout), stderr: String(stderr) })
      },
    )
  })
}

const gitMissing = (what: string) =>
  new FailureError(`${what} needs the git program, and none was found on PATH`, {
    next: ['install git (https://git-scm.com) and run the command again'],
  })

const MAX_OUTPUT = 16 * 1024 * 1024

/** A git that talks to a remote: its own process group, killed whole when the deadline passes. */
async function runRemoteGit(
  cwd: string,
  env: Env,
  args: readonly string[],
  what: string,
  remote: string,
  deadline: Deadline,
): Promise<Ran> {
  const { spawn } = await import('node:child_process')
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd,
      env: { ...env, GIT_TERMINAL_PROMPT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    // Detached, Ctrl-C no longer reaches the git: an interrupted dacli kills its group itself.
    const unguard = child.pid === undefined ? () => {} : deadline.guardGroup(child.pid)
    const out: Buffer[] = []
    const err: Buffer[] = []
    let size = 0
    let settled = false
    const take = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_OUTPUT) into.push(chunk)
    }
    child.stdout.on('data', take(out))
    child.stderr.on('data', take(err))
    const timer = setTimeout(() => {
      if (settled) return
      settled = true
      unguard()
      try {
        deadline.killGroup(child.pid as number, 'SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }
      // A helper that left the group may hold the pipes: let go of them rather than wait.
      child.stdout.destroy()
      child.stderr.destroy()
      resolve({
        code: 124,
        stdout: '',
        stderr: `${remote} did not answer within ${timeoutText(deadline.ms)} (remote_timeout in .dacli/config.yml)`,
        timedOut: true,
      })
    }, deadline.ms)
    child.on('error', (e) => {
      if (settled) return
      settled = true
      unguard()
      clearTimeout(timer)
      reject((e as NodeJS.ErrnoException).code === 'ENOENT' ? gitMissing(what) : e)
    })
    child.on('close', (code, signal) => {
      unguard()
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({
        code: code ?? (signal === null ? 1 : 128),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      })
    })
  })
}

/**
 * The error of a remote operation whose deadline passed: exit 1 naming the remote and the timeout. Nothing was
 * changed locally — the git process was killed before it could update a ref.
 */
export function remoteTimedOut(what: string, remote: string, deadline: Deadline, next: string[] = []): FailureError {
  return new FailureError(
    `${what}: the remote ${remote} did not answer within ${timeoutText(deadline.ms)} (remote_timeout); nothing was changed`,
    {
      details: { remote, timeout_ms: deadline.ms },
      next: [...next, `check the remote (git remote get-url ${remote}), or raise remote_timeout in .dacli/config.yml`],
    },
  )
}

const firstLines = (s: string, n = 4) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('hint:'))
    .slice(0, n)
    .join('; ')

/** Refuse (4) a remote name git does not know, before a command changes anything on its way to that remote. */
export function requireRemote(repo: { commonDir: string; workTree: string }, env: Env, remote: string): void {
  if (!knownRemote(repo, env, remote)) throw notARemote(remote, 'no such remote is configured')
}

function notARemote(remote: string, stderr: string): NotFoundError {
  return new NotFoundError(`no git remote "${remote}" (${firstLines(stderr, 2)})`, {
    details: { remote },
    next: ['git remote -v', `git remote add ${remote} <url>`],
  })
}

/** The ref a fetched record branch is kept under. */
function trackingRef(remote: string, branch: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(remote) && !remote.endsWith('.lock')
    ? `refs/remotes/${remote}/${branch}`
    : `refs/dacli/fetched/${branch}`
}

export interface PushResult {
  outcome: 'pushed' | 'up-to-date'
}

export async function pushRef(
  repo: GitInfo,
  env: Env,
  remote: string,
  branch: string,
  deadline: Deadline,
): Promise<PushResult> {
  const ref = `refs/heads/${branch}`
  const r = await runGit(repo.workTree, env, ['push', '--porcelain', '--', remote, `${ref}:${ref}`], 'record push', {
    name: remote,
    deadline,
  })
  if (r.timedOut) throw remoteTimedOut(`git push of ${branch}`, remote, deadline, [cmd(`record push ${remote}`)])
  const line = r.stdout.split('\n').find((l) => l.includes(`\t${ref}:${ref}\t`))
  const flag = line?.[0]
  if (r.code === 0 && (flag === '=' || flag === ' ' || flag === '*' || flag === '+')) {
    return { outcome: flag === '=' ? 'up-to-date' : 'pushed' }
  }
  const summary = line?.split('\t')[2] ?? ''
  if (
    flag === '!' &&
    /non-fast-forward|fetch first|stale info|rejected\]/.test(summary) &&
    !/remote rejected/.test(summary)
  ) {
    throw new ConflictError(
      `the remote's ${branch} has commits this record lacks: someone else recorded first (${summary.trim()})`,
      {
        details: { remote, branch, reason: summary.trim() },
        next: [cmd(`record pull ${remote}`), cmd(`record push ${remote}`)],
      },
    )
  }
  // Another push moved the branch between the remote's check and its update: the same race, lost a moment later.
  if (
    flag === '!' &&
    /failed to (?:update|lock) ref/.test(summary) &&
    /cannot lock ref|is at [0-9a-f]+ but expected/.test(r.stderr)
  ) {
    throw new ConflictError(
      `the remote's ${branch} moved while this push was landing: someone else recorded at the same moment`,
      {
        details: { remote, branch, reason: summary.trim() },
        next: [cmd(`record pull ${remote}`), cmd(`record push ${remote}`)],
      },
    )
  }
  // No remote of that name: not found. One this clone names but cannot reach (moved, gone, offline): a failure.
  if (!knownRemote(repo, env, remote)) throw notARemote(remote, r.stderr)
  throw new FailureError(`git push to ${remote} failed: ${firstLines(`${summary}\n${r.stderr}`) || `exit ${r.code}`}`, {
    details: { remote, branch, git_exit_code: r.code },
    next: [cmd(`record push ${remote}`)],
  })
}

/** Fetches of the record branch again after its tracking ref was busy (see fetchRef). */
const FETCH_RETRIES = 3

/** Whether git failed to update the tracking ref `tracking` because something else held or moved it. */
function lockedTracking(stderr: string, tracking: string): boolean {
  return (
    stderr.includes(tracking) &&
    /cannot lock ref|is at [0-9a-f]+ but expected|Unable to create .*\.lock': File exists/.test(stderr)
  )
}

/** Fetch the remote's record branch into its tracking ref; returns the fetched commit. */
export async function fetchRef(
  repo: GitInfo,
  env: Env,
  remote: string,
  branch: string,
  deadline: Deadline,
): Promise<string> {
  const tracking = trackingRef(remote, branch)
  const fetch = () =>
    runGit(
      repo.workTree,
      env,
      ['fetch', '--no-tags', '--quiet', '--', remote, `+refs/heads/${branch}:${tracking}`],
      'record pull',
      { name: remote, deadline },
    )
  let r = await fetch()
  // The tracking ref moved under the fetch (a push landing updates it too: another dacli's, or the `git push` of a
  // sync killed a moment ago, which outlives it), or a killed git left its lock: fetch again, a few times.
  for (
    let again = 1;
    !r.timedOut && r.code !== 0 && again <= FETCH_RETRIES && lockedTracking(r.stderr, tracking);
    again++
  ) {
    removeAbandonedRefLock(repo.commonDir, tracking)
    await new Promise((res) => setTimeout(res, 50 * again))
    r = await fetch()
  }
  if (r.timedOut) throw remoteTimedOut(`git fetch of ${branch}`, remote, deadline, [cmd(`record pull ${remote}`)])
  if (r.code !== 0) {
    if (/couldn't find remote ref/i.test(r.stderr)) {
      throw new NotFoundError(`the remote "${remote}" has no ${branch} branch yet`, {
        details: { remote, branch },
        next: [cmd(`record push ${remote} (from a machine that has a record)`)],
      })
    }
    if (!knownRemote(repo, env, remote)) throw notARemote(remote, r.stderr)
    throw new FailureError(`git fetch from ${remote} failed: ${firstLines(r.stderr) || `exit ${r.code}`}`, {
      details: { remote, branch, git_exit_code: r.code },
      next: [cmd(`record pull ${remote}`)],
    })
  }
  const oid = readRef(repo.gitDir, repo.commonDir, tracking)
  if (oid === null) throw new FailureError(`git fetch from ${remote} did not update ${tracking}`)
  return oid
}
