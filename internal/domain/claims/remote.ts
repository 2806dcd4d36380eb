// Claims arbitrated by a git remote: the ref
// `refs/dacli/claims/<task-id>` on the remote, moved only by lease-protected
// pushes through the system git, so a ref update on the remote is the
// compare-and-swap that picks exactly one winner across clones and machines.
//
//   take:      push <commit>:<ref> --force-with-lease=<ref>:        (only if absent)
//   take over: push <commit>:<ref> --force-with-lease=<ref>:<old>   (an expired claim, or this clone's own)
//   drop:      push :<ref>          --force-with-lease=<ref>:<ours>
//
// The claim commit has the empty tree, no parent, and a message that is a small
// YAML document {task, by, at, expires, workspace, host} (FORMAT.md). What was
// last seen of a remote's claims is kept under refs/dacli/remote-claims/<remote>/
// and, for offline readers, in the store's claim cache.

import { createHash } from 'node:crypto'
import { hostname } from 'node:os'
import { cloneId } from '../../adapters/git/clone.js'
import { knownRemote } from '../../adapters/git/config.js'
import type { GitInfo } from '../../adapters/git/discover.js'
import { parseCommit, readLoose, writeLoose } from '../../adapters/git/loose.js'
import { commitBody } from '../../adapters/git/objects.js'
import { compareAndSwapRef, readRef } from '../../adapters/git/refs.js'
import { remoteTimedOut, runGit } from '../../adapters/git/remote.js'
import { cmd } from '../../base/commands.js'
import { ConflictError, FailureError, NotFoundError } from '../../base/errors.js'
import { readFront } from '../../format/flat.js'
import type { Identity } from '../../format/model.js'
import { stamp } from '../../format/model.js'
import type { Store } from '../../store/store.js'
import { authorOf, committerAt } from '../record/author.js'
import type { ClaimArbiter, DropResult, RemoteClaim, TakeResult } from './arbiter.js'
import { expiredAt, updateClaimCache } from './arbiter.js'

type Env = Readonly<Record<string, string | undefined>>

const CLAIMS_PREFIX = 'refs/dacli/claims/'
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'
const TASK_ID = /^t-[0-9A-HJKMNP-TV-Z]{26}$/
const STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/
/** A time stamp of that shape that names a real moment (`2026-13-45T99:99:99Z` has the shape and no time). */
function isStamp(s: string): boolean {
  const t = STAMP.test(s) ? Date.parse(s) : Number.NaN
  return !Number.isNaN(t) && new Date(t).toISOString() === `${s.slice(0, -1)}.000Z`
}
const AGENT = /^a-[a-z0-9][a-z0-9-]*$/
const HOST = hostname()
/** A push the remote's own rules refused (git's porcelain reason), as opposed to a lease another writer won. */
const REFUSED = /\[remote rejected\] \((?:[^)]*hook declined|deletion prohibited|[^)]*denied|[^)]*deny)/i
/** Rounds of push, look, push again before a take gives up (each round another writer moved the ref). */
const ROUNDS = 6

const claimRef = (task: string) => `${CLAIMS_PREFIX}${task}`

/** Where a remote's claims are fetched to: `refs/dacli/remote-claims/<remote>/` (a URL gets a hashed name). */
function trackingPrefix(remote: string): string {
  const name =
    /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(remote) && !remote.endsWith('.lock') && !remote.includes('..')
      ? remote
      : `url-${createHash('sha1').update(remote).digest('hex').slice(0, 12)}`
  return `refs/dacli/remote-claims/${name}/`
}

/** The commit message of a claim: YAML whose strings are JSON-quoted where they could need it. */
function claimMessage(c: Omit<RemoteClaim, 'commit'>): string {
  return [
    `task: ${c.task}`,
    `by: ${c.by}`,
    `at: ${c.at}`,
    `expires: ${c.expires ?? 'null'}`,
    `workspace: ${JSON.stringify(c.workspace)}`,
    `host: ${JSON.stringify(c.host)}`,
    ...(c.clone === null ? [] : [`clone: ${c.clone}`]),
    '',
  ].join('\n')
}

/** A claim from a commit message, validated field by field (anything on a remote is hostile); null if not one. */
function parseClaimMessage(message: string, commit: string): RemoteClaim | null {
  const d = readFront(message.trim())
  if (d === null) return null
  const s = (v: unknown) => (typeof v === 'string' ? v : v instanceof Date ? stamp(v) : null)
  const task = s(d.task)
  const by = s(d.by)
  const at = s(d.at)
  const expires = d.expires === null || d.expires === undefined ? null : s(d.expires)
  const workspace = s(d.workspace)
  const host = s(d.host)
  if (task === null || !TASK_ID.test(task) || by === null || !AGENT.test(by)) return null
  if (at === null || !isStamp(at) || (expires !== null && !isStamp(expires))) return null
  if (d.expires !== null && d.expires !== undefined && expires === null) return null
  if (workspace === null || host === null || /[\u0000-\u001f]/.test(workspace + host)) return null
  const clone = d.clone === undefined || d.clone === null ? null : s(d.clone)
  if (clone !== null && !/^c-[0-9a-f]{16}$/.test(clone)) return null
  if (d.clone !== undefined && d.clone !== null && clone === null) return null
  return { task, by, at, expires, workspace, host, clone, commit }
}

const firstLines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('hint:'))
    .slice(0, 3)
    .join('; ')

class GitClaims implements ClaimArbiter {
  private readonly tracking: string

  constructor(
    private readonly repo: GitInfo,
    private readonly env: Env,
    readonly remote: string,
    private readonly store: Store,
  ) {
    this.tracking = trackingPrefix(remote)
  }

  mine(c: RemoteClaim, who: string): boolean {
    // The clone id tells apart clones that share host, path and identity (containers, copied VMs).
    return (
      c.by === who &&
      c.workspace === this.store.dir &&
      c.host === HOST &&
      ((c.clone ?? null) === null || c.clone === this.clone)
    )
  }

  /** This clone's id (adapters/git/clone.ts). */
  private get clone(): string | null {
    this.cloneMemo ??= { id: cloneId(this.repo.commonDir) }
    return this.cloneMemo.id
  }

  private cloneMemo: { id: string | null } | undefined

  /** What a git run that talks to the remote is given: the remote's name and `remote_timeout`. */
  private get remoteCall() {
    return { name: this.remote, deadline: this.store.remoteDeadline }
  }

  /** Fail closed. `next` replaces the second next action (--local exists only on the lifecycle commands). */
  private unreachable(what: string, stderr: string, code: number, next?: string, timedOut = false): FailureError {
    if (timedOut) {
      return remoteTimedOut(`could not ${what}`, this.remote, this.store.remoteDeadline, [
        'run the command again when the remote answers',
        next ?? 'add --local to act in this clone only (other clones will not see it)',
      ])
    }
    return new FailureError(
      `could not ${what} on the remote ${this.remote}: ${firstLines(stderr) || `git exit ${code}`}; nothing was changed`,
      {
        details: { remote: this.remote, git_exit_code: code },
        next: [
          'run the command again when the remote is reachable',
          next ?? 'add --local to act in this clone only (other clones will not see it)',
        ],
      },
    )
  }

  /** Push `next` (or a deletion, null) to the claim ref, only if the remote still has `expected` (null: absent). */
  private async push(task: string, expected: string | null, next: string | null): Promise<'ok' | 'rejected'> {
    const ref = claimRef(task)
    const r = await runGit(
      this.repo.workTree,
      this.env,
      ['push', '--porcelain', `--force-with-lease=${ref}:${expected ?? ''}`, '--', this.remote, `${next ?? ''}:${ref}`],
      'a remote claim',
      this.remoteCall,
    )
    if (r.timedOut)
      throw this.unreachable(next === null ? 'release the claim' : 'claim', r.stderr, r.code, undefined, true)
    const line = r.stdout.split('\n').find((l) => l.split('\t')[1]?.endsWith(`:${ref}`))
    const flag = line?.[0]
    if (r.code === 0 && line !== undefined && flag !== '!') return 'ok'
    // Refused by the remote's own rules (a hook, a deletion it forbids): no other writer holds the ref, so it is a
    // failure to report (exit 1), not a lost lease to try again and end in a conflict (exit 5). A ref another push
    // updated meanwhile ("cannot lock ref", "failed to update ref") is a lost lease like any other.
    if (flag === '!' && line !== undefined && REFUSED.test(line))
      throw this.unreachable(next === null ? 'release the claim' : 'claim', line, r.code)
    if (flag === '!') return 'rejected'
    throw this.unreachable(next === null ? 'release the claim' : 'claim', `${r.stderr}\n${line ?? ''}`, r.code)
  }

  private claimOf(commit: string, message: string): RemoteClaim | null {
    return parseClaimMessage(message, commit)
  }

  private async messageOf(commit: string): Promise<string | null> {
    const loose = readLoose(this.repo.commonDir, commit)
    if (loose?.type === 'commit') return parseCommit(loose.body).message
    const r = await runGit(this.repo.workTree, this.env, ['cat-file', 'commit', commit], 'a remote claim')
    if (r.code !== 0) return null
    const i = r.stdout.indexOf('\n\n')
    return i === -1 ? '' : r.stdout.slice(i + 2)
  }

  /** Fetch one task's claim ref (null: the remote has none). */
  async look(task: string): Promise<RemoteClaim | { unreadable: string } | null> {
    const tracking = `${this.tracking}${task}`
    const r = await runGit(
      this.repo.workTree,
      this.env,
      ['fetch', '--no-tags', '--quiet', '--no-write-fetch-head', '--', this.remote, `+${claimRef(task)}:${tracking}`],
      'a remote claim',
      this.remoteCall,
    )
    if (r.timedOut) throw this.unreachable('read the claim', r.stderr, r.code, undefined, true)
    if (r.code !== 0) {
      if (/couldn't find remote ref/i.test(r.stderr)) {
        await this.forget(task)
        return null
      }
      throw this.unreachable('read the claim', r.stderr, r.code)
    }
    const commit = readRef(this.repo.commonDir, this.repo.commonDir, tracking)
    if (commit === null) return null
    const message = await this.messageOf(commit)
    const parsed = message === null ? null : this.claimOf(commit, message)
    // A claim is read under its own task's ref only (a message naming another task is not a claim of this one).
    const claim = parsed !== null && parsed.task === task ? parsed : null
    await updateClaimCache(this.store, this.remote, { task, claim })
    return claim ?? { unreadable: commit }
  }

  /**
   * Fetch every claim ref of the remote (pruning the ones gone); unreadable refs are returned by commit.
   * `next`: what else to do when the remote cannot be reached (default: check its URL).
   */
  async fetchAll(
    now: Date,
    next = `git remote get-url ${this.remote}`,
  ): Promise<{ claims: RemoteClaim[]; unreadable: { task: string; commit: string }[] }> {
    const r = await runGit(
      this.repo.workTree,
      this.env,
      [
        'fetch',
        '--no-tags',
        '--quiet',
        '--prune',
        '--no-write-fetch-head',
        '--',
        this.remote,
        `+${CLAIMS_PREFIX}*:${this.tracking}*`,
      ],
      'claims list',
      this.remoteCall,
    )
    if (r.code !== 0) throw this.unreachable('list the claims', r.stderr, r.code, next, r.timedOut)
    const list = await runGit(
      this.repo.workTree,
      this.env,
      ['for-each-ref', '--format=%(objectname) %(refname)%00%(contents)%00', this.tracking],
      'claims list',
    )
    const claims: RemoteClaim[] = []
    const unreadable: { task: string; commit: string }[] = []
    const parts = list.stdout.split('\u0000')
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const head = (parts[i] as string).replace(/^\n/, '')
      const [commit, ref] = head.split(' ') as [string, string]
      const task = ref.slice(this.tracking.length)
      const c = this.claimOf(commit, parts[i + 1] as string)
      if (c !== null && c.task === task) claims.push(c)
      else unreadable.push({ task, commit })
    }
    await updateClaimCache(this.store, this.remote, { all: claims, at: stamp(now) })
    return { claims, unreadable }
  }

  private async remember(task: string, claim: RemoteClaim): Promise<void> {
    const tracking = `${this.tracking}${task}`
    for (let i = 0; i < 3; i++) {
      const cur = readRef(this.repo.commonDir, this.repo.commonDir, tracking)
      if (cur === claim.commit || (await compareAndSwapRef(this.repo.commonDir, tracking, cur, claim.commit))) break
    }
    await updateClaimCache(this.store, this.remote, { task, claim })
  }

  private async forget(task: string): Promise<void> {
    const tracking = `${this.tracking}${task}`
    if (readRef(this.repo.commonDir, this.repo.commonDir, tracking) !== null) {
      await runGit(this.repo.workTree, this.env, ['update-ref', '-d', tracking], 'a remote claim')
    }
    await updateClaimCache(this.store, this.remote, { task, claim: null })
  }

  private holderError(task: string, c: RemoteClaim | { unreadable: string }, label = task): ConflictError {
    if ('unreadable' in c) {
      return new ConflictError(
        `${claimRef(task)} on ${this.remote} points at ${c.unreadable}, which is not a dacli claim; not taking it`,
        { details: { remote: this.remote, commit: c.unreadable }, next: [cmd('claims list'), cmd('doctor')] },
      )
    }
    const where = `${c.workspace} on ${c.host}`
    return new ConflictError(
      `${label} is claimed on ${this.remote} by ${c.by} (${where})${c.expires ? ` until ${c.expires}` : ''}`,
      {
        details: {
          task,
          owner: c.by,
          claimed_at: c.at,
          expires: c.expires,
          remote: this.remote,
          holder: {
            by: c.by,
            at: c.at,
            expires: c.expires,
            workspace: c.workspace,
            host: c.host,
            clone: c.clone,
            commit: c.commit,
          },
        },
        next: [cmd('next'), cmd('claims list')],
      },
    )
  }

  async renew(task: string, who: Identity, expires: string | null, now: Date, label = task): Promise<TakeResult> {
    for (let round = 0; round < ROUNDS; round++) {
      const cur = await this.look(task)
      if (cur === null) {
        throw new ConflictError(
          `${label} has no claim on ${this.remote} any more (released or taken over and released since); claim it again`,
          { details: { task, remote: this.remote }, next: [cmd(`task claim ${label}`), cmd('claims list')] },
        )
      }
      if ('unreadable' in cur || !this.mine(cur, who.id)) throw this.holderError(task, cur, label)
      // A renewal moves only the lease: `at` stays when the claim was taken.
      const commit = this.claimCommit(task, who, expires, now, cur.at)
      if ((await this.push(task, cur.commit, commit.id)) === 'ok') {
        await this.remember(task, { ...commit.doc, commit: commit.id })
        return { outcome: 'renewed', previous: cur, commit: commit.id, at: commit.doc.at }
      }
    }
    throw new ConflictError(`${claimRef(task)} on ${this.remote} kept changing; the claim was not renewed`, {
      details: { remote: this.remote },
      next: ['run the command again'],
    })
  }

  /** A claim's commit for `task` (written as a loose object, not yet pushed). */
  private claimCommit(task: string, who: Identity, expires: string | null, now: Date, at = stamp(now)) {
    const doc = { task, by: who.id, at, expires, workspace: this.store.dir, host: HOST, clone: this.clone }
    writeLoose(this.repo.commonDir, 'tree', Buffer.alloc(0))
    const id = writeLoose(
      this.repo.commonDir,
      'commit',
      commitBody({
        tree: EMPTY_TREE,
        parents: [],
        author: authorOf(who, this.repo, this.env, now),
        committer: committerAt(now),
        message: claimMessage(doc),
      }),
    )
    return { doc, id }
  }

  async take(task: string, who: Identity, expires: string | null, now: Date, label?: string): Promise<TakeResult> {
    let expected: string | null = null
    let previous: RemoteClaim | null = null
    for (let round = 0; round < ROUNDS; round++) {
      // Renewing this clone's own claim moves only the lease: `at` stays when the claim was taken.
      const own = previous !== null && this.mine(previous, who.id) ? previous.at : undefined
      const { doc, id: commit } = this.claimCommit(task, who, expires, now, own)
      if ((await this.push(task, expected, commit)) === 'ok') {
        const claim = { ...doc, commit }
        await this.remember(task, claim)
        const outcome =
          expected === null ? 'created' : previous !== null && this.mine(previous, who.id) ? 'renewed' : 'taken-over'
        return { outcome, previous, commit, at: doc.at }
      }
      const cur = await this.look(task)
      if (cur === null) {
        expected = null
        previous = null
        continue
      }
      if ('unreadable' in cur || (!this.mine(cur, who.id) && !expiredAt(cur, now)))
        throw this.holderError(task, cur, label)
      expected = cur.commit
      previous = cur
    }
    throw new ConflictError(`${claimRef(task)} on ${this.remote} kept changing; the claim was not made`, {
      details: { remote: this.remote },
      next: ['run the command again'],
    })
  }

  async drop(task: string, who: Identity, now: Date, opts: { expired: boolean }): Promise<DropResult> {
    // The last value seen is a lease worth trying only when it is this clone's own claim.
    const seen = readRef(this.repo.commonDir, this.repo.commonDir, `${this.tracking}${task}`)
    const seenMessage = seen === null ? null : await this.messageOf(seen)
    const seenClaim = seen === null || seenMessage === null ? null : this.claimOf(seen, seenMessage)
    let expected = seenClaim !== null && seenClaim.task === task && this.mine(seenClaim, who.id) ? seen : null
    for (let round = 0; round < ROUNDS; round++) {
      if (expected !== null && (await this.push(task, expected, null)) === 'ok') {
        await this.forget(task)
        return { outcome: 'dropped', holder: null }
      }
      const cur = await this.look(task)
      if (cur === null) return { outcome: 'absent', holder: null }
      if ('unreadable' in cur) throw this.holderError(task, cur)
      if (!this.mine(cur, who.id) && !(opts.expired && expiredAt(cur, now))) return { outcome: 'held', holder: cur }
      expected = cur.commit
    }
    throw new ConflictError(`${claimRef(task)} on ${this.remote} kept changing; the claim was not released`, {
      details: { remote: this.remote },
      next: ['run the command again'],
    })
  }
}

/** The arbiter for a remote, for the store's lifecycle (loaded only by a command that arbitrates). */
export function openClaims(store: Store, env: Env, remote: string): GitClaims {
  if (store.git === null) {
    throw new FailureError('remote claims need a git repository: this workspace is not inside one', {
      next: ['run without --remote (or remove claims.remote from .dacli/config.yml)'],
    })
  }
  if (!knownRemote(store.git, env, remote)) {
    throw new NotFoundError(`no git remote "${remote}" to arbitrate claims`, {
      details: { remote },
      next: ['git remote -v', `git remote add ${remote} <url>`],
    })
  }
  return new GitClaims(store.git, env, remote, store)
}
