// `record`: commit the workspace onto the record branch with plumbing only —
// blobs, trees, a commit whose parent is the branch's tip, and a compare-and-swap
// of the ref. HEAD, the index and the working tree are never touched. Shared by
// the `record` command and autorecord (cmd/autorecord.ts).

import * as path from 'node:path'
import { checkedOutBranches } from '../../adapters/git/discover.js'
import type { FileChange, Git } from '../../adapters/git/index.js'
import { sweepObjectTemps } from '../../adapters/git/isofs.js'
import type { Signature } from '../../adapters/git/objects.js'
import { wrapIn } from '../../adapters/git/objects.js'
import { checkBranchName, headRef } from '../../adapters/git/refs.js'
import { cmd } from '../../base/commands.js'
import { ConflictError, FailureError, UsageError } from '../../base/errors.js'
import type { Identity } from '../../format/model.js'
import { snapshotDir } from '../../store/snapshot.js'
import type { Store } from '../../store/store.js'
import { authorOf, committerAt } from './author.js'
import { firstParent } from './base.js'

export interface RecordOptions {
  /** The message's subject (and optional body); trailers are added. */
  message: string
  /** What ran (the `Dacli-Command:` trailer). */
  command: string
  now: Date
  /** Record commits to search, besides the remotes' tracking refs, for a first record's start (a fetched tip). */
  tips?: readonly string[]
}

export interface RecordOutcome {
  outcome: 'recorded' | 'unchanged'
  /** The new commit, or null when nothing changed. */
  commit: string | null
  /** The branch tip the commit was made on (null: the branch was created). */
  parent: string | null
  branch: string
  changes: FileChange[]
  author: Signature
}

/** The workspace folder's path inside the repository, as tree path segments (`['.dacli']`). */
export function workspacePrefix(git: Git, dir: string): string[] {
  for (const top of [git.repo.workTree, git.repo.mainWorkTree]) {
    const rel = path.relative(top, dir)
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep)
  }
  throw new FailureError(`the workspace ${dir} is not inside the git work tree ${git.repo.workTree}`)
}

/** The record branch's name (checked), and its full ref name. */
export const recordBranch = (store: Store) => checkBranchName(store.config.record_branch)
export const branchRef = (store: Store) => headRef(recordBranch(store))

/** One line, no control characters, bounded (messages and trailers). */
export function oneLine(s: string, max = 200): string {
  const t = s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim()
  return t.length > max ? `${t.slice(0, max - 1)}…` : t
}

export function messageWith(subject: string, who: Identity, command: string): string {
  if (subject.includes('\0')) throw new UsageError('the message contains a NUL byte')
  const text = subject.replace(/\r\n/g, '\n').trim()
  if (text === '') throw new UsageError('the message is empty')
  return `${text}\n\nDacli-Agent: ${who.id}\nDacli-Command: ${oneLine(command)}\n`
}

const MAX_ATTEMPTS = 8

export async function recordWorkspace(
  store: Store,
  git: Git,
  who: Identity,
  opts: RecordOptions,
): Promise<RecordOutcome> {
  return store.withLock(RECORD_LOCK, () => recordLocked(store, git, who, opts))
}

/** The lock scope (`.dacli/locks/record.lock`) that serializes every writer of the record branch. */
export const RECORD_LOCK = 'record'

/**
 * Refuses (1) to move the record branch while a worktree of this clone has it checked out: the commit would slide
 * under that worktree, whose index and files would then undo the record. Reading the branch stays allowed.
 */
export function refuseCheckedOutRecord(store: Store, git: Git): void {
  const branch = recordBranch(store)
  const hit = checkedOutBranches(git.repo).find((c) => c.branch === branch)
  if (hit === undefined) return
  throw new FailureError(
    `the record branch ${branch} is checked out in the worktree at ${hit.path}: recording would move it under that worktree`,
    {
      details: { branch, worktree: hit.path },
      next: [`git -C ${hit.path} switch --detach (or git worktree remove ${hit.path}), then record again`],
    },
  )
}

/** `recordWorkspace` for a caller that already holds the record lock. */
export async function recordLocked(store: Store, git: Git, who: Identity, opts: RecordOptions): Promise<RecordOutcome> {
  refuseCheckedOutRecord(store, git)
  const ref = branchRef(store)
  const branch = recordBranch(store)
  const prefix = workspacePrefix(git, store.dir)
  const author = authorOf(who, git.repo, store.env, opts.now)
  const committer = committerAt(opts.now)
  const message = messageWith(opts.message, who, opts.command)
  const local = snapshotDir(store.dir, store.cacheTrust().key())
  if (local === null) throw new FailureError(`${store.dir} holds nothing to record`)
  const tree = wrapIn(local, prefix)
  // A clone's first record starts from what the record branch or the code branch already holds (base.ts).
  if ((await git.resolve(ref)) === null) {
    const start = await firstParent(git, { prefix, branch }, tree.oid, opts.tips ?? [])
    if (start !== null) await git.updateRef(ref, start, null)
  }
  // dacli processes are serialized by the lock; the compare-and-swap also guards
  // against anything else moving the ref (git itself, a fetch into the branch).
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const parent = await git.resolve(ref)
    const parentTree = parent === null ? null : (await git.readCommit(parent)).tree
    if (parentTree === tree.oid) return { outcome: 'unchanged', commit: null, parent, branch, changes: [], author }
    // A record killed while writing objects leaves temp files git calls corrupt: the next one removes them.
    if (attempt === 0) sweepObjectTemps(git.system, git.repo.commonDir)
    const changes = await git.writeSnapshot(tree, parentTree)
    const commit = await git.writeCommit({
      tree: tree.oid,
      parents: parent === null ? [] : [parent],
      author,
      committer,
      message,
    })
    if (await git.updateRef(ref, commit, parent)) {
      return { outcome: 'recorded', commit, parent, branch, changes, author }
    }
  }
  throw new ConflictError(`${ref} kept moving while recording; run the command again`, {
    next: [cmd('record')],
  })
}
