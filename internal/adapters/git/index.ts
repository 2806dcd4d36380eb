// The git adapter's one interface. Commands reach it through `ctx.git()`, which
// imports this module on first use, so isomorphic-git loads only in the commands
// that need it (record, record log/push/pull, task log, and autorecord).

import { FailureError } from '../../base/errors.js'
import type { Proc } from '../../base/system.js'
import { type GitInfo, gitInfoAt } from './discover.js'
import type { CommitFields, LocalDir, Signature, TreeItem } from './objects.js'
import type { Deadline, PushResult } from './remote.js'
import { Repo } from './repo.js'

export type { CommitFields, LocalDir, Signature, TreeItem } from './objects.js'
export type { Deadline, PushResult } from './remote.js'

export interface CommitInfo {
  id: string
  parents: string[]
  tree: string
  author: Signature
  committer: Signature
  message: string
  /** The `Dacli-Agent:` trailer, or null. */
  agent: string | null
  /** The `Dacli-Command:` trailer, or null. */
  command: string | null
}

export interface TreeFile {
  oid: string
  mode: string
}

export interface FileChange {
  /** Path inside the tree (repository layout: `.dacli/…`). */
  path: string
  change: 'added' | 'modified' | 'deleted'
  /** The blob after the change (null when deleted). */
  oid: string | null
  /** The blob before the change (null when added). */
  old_oid: string | null
}

export interface Git {
  readonly repo: GitInfo
  /** The running process, as the bin handed it down (temp-file names of the objects it writes). */
  readonly system: Proc
  /** A full ref name (`refs/heads/x`) or `HEAD` → commit id, or null. */
  resolve(ref: string): Promise<string | null>
  /** What the remotes were last seen to hold of `branch` (their tracking refs), by ref name. */
  remoteTips(branch: string): Promise<{ ref: string; oid: string }[]>
  /** The main worktree's HEAD commit, or null (unborn). */
  mainHead(): Promise<string | null>
  readCommit(oid: string): Promise<CommitInfo>
  readTree(oid: string): Promise<TreeItem[]>
  readBlob(oid: string): Promise<Buffer>
  /** The tree at a `/`-separated path inside a tree, or null. */
  subtree(tree: string | null, under: string): Promise<string | null>
  /** Every file below `under` in a tree, by full path. */
  listFiles(tree: string | null, under?: string): Promise<Map<string, TreeFile>>
  /** Files that differ between two trees (below `under`), sorted by path. */
  diff(from: string | null, to: string | null, under?: string): Promise<FileChange[]>
  /** Commits reachable from the tips, newest first (committer time), each once. */
  walk(tips: readonly string[]): AsyncGenerator<CommitInfo>
  isAncestor(ancestor: string, oid: string): Promise<boolean>
  mergeBase(a: string, b: string): Promise<string | null>
  writeBlob(content: Buffer): Promise<string>
  writeTree(items: readonly TreeItem[]): Promise<string>
  /** A tree holding exactly these files (full paths). */
  writeFiles(files: ReadonlyMap<string, TreeFile>): Promise<string>
  writeCommit(c: CommitFields): Promise<string>
  /** Write the objects of a local snapshot missing below `parentTree`; returns the file changes. */
  writeSnapshot(local: LocalDir, parentTree: string | null): Promise<FileChange[]>
  /** Compare-and-swap: point `ref` at `next` only if it is still at `expected`. */
  updateRef(ref: string, next: string, expected: string | null): Promise<boolean>
  /** Push a branch through the system git (no force). A rejected non-fast-forward is a ConflictError. */
  push(remote: string, branch: string, deadline: Deadline): Promise<PushResult>
  /** Fetch a remote's branch through the system git; returns the fetched commit. */
  fetch(remote: string, branch: string, deadline: Deadline): Promise<string>
}

/** The repository containing `cwd`; exit 1 when there is none. */
export function openGit(cwd: string, env: Readonly<Record<string, string | undefined>>, system: Proc): Git {
  const info = gitInfoAt(cwd)
  if (info === null) {
    throw new FailureError('not inside a git repository: the record lives on a git branch', {
      next: ['git init', 'run dacli from inside the repository that holds .dacli/'],
    })
  }
  return new Repo(info, env, system)
}
