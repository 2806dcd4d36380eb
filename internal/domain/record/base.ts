// Where a clone's first record starts, so that two records always share a merge
// base (FORMAT.md, "Merging records").
//
// A clone whose `.dacli/` came with the code (or from an earlier `init`) has no
// record branch of its own. Its first record is made on top of:
//   1. a commit of the record branch as a remote was last seen to hold it (its
//      tracking ref) whose tree is the workspace as it is, or as the code branch
//      commits it — the record branch knows these files;
//   2. otherwise, when the code branch (the main worktree's HEAD) commits a
//      `.dacli/`, a commit of exactly that tree: the code's workspace is the base.
//      That commit is made the same way by every clone (no author, time 0), so
//      two clones that start from the same code share it.
// A record pull whose two sides still share no commit (records made before this
// rule) merges against the code branch's `.dacli/` too.

import type { Git, TreeFile } from '../../adapters/git/index.js'
import { UNRECORDED } from '../../store/snapshot.js'

/** How far back a remote's record history is searched for the code's workspace. */
const SEARCH_DEPTH = 2_000

const BASE_MESSAGE = 'dacli: the workspace as the code branch commits it\n'
const NOBODY = { name: 'dacli', email: 'dacli@dacli.invalid', timestamp: 0, timezoneOffset: 0 }

/** The workspace as the code branch (the main worktree's HEAD) commits it, in the record's layout; null if it holds none. */
export async function codeFiles(git: Git, prefix: readonly string[]): Promise<Map<string, TreeFile> | null> {
  const head = await git.mainHead()
  if (head === null) return null
  const under = prefix.join('/')
  const all = await git.listFiles((await git.readCommit(head)).tree, under)
  const files = new Map<string, TreeFile>()
  for (const [p, f] of all) {
    const top = p.slice(under.length + 1).split('/')[0] ?? ''
    // Only what a record holds: regular files, none of the clone-local folders.
    if (UNRECORDED.has(top) || (f.mode !== '100644' && f.mode !== '100755')) continue
    files.set(p, f)
  }
  return files.size === 0 ? null : files
}

/** The record tree of the code branch's workspace, or null. */
export async function codeTree(git: Git, prefix: readonly string[]): Promise<string | null> {
  const files = await codeFiles(git, prefix)
  return files === null ? null : git.writeFiles(files)
}

/** The commit every clone makes alike for the code's workspace tree: no parent, no author, time 0. */
export function codeBaseCommit(git: Git, tree: string): Promise<string> {
  return git.writeCommit({ tree, parents: [], author: NOBODY, committer: NOBODY, message: BASE_MESSAGE })
}

/**
 * The commit a clone without a record branch bases its first record on (see the top of this file), or null
 * when there is none: the workspace neither is nor came from anything recorded or committed.
 */
export async function firstParent(
  git: Git,
  where: { prefix: readonly string[]; branch: string },
  workspaceTree: string,
  extraTips: readonly string[] = [],
): Promise<string | null> {
  const code = await codeTree(git, where.prefix)
  const tips = [...new Set([...extraTips, ...(await git.remoteTips(where.branch)).map((r) => r.oid)])]
  let codeMatch: string | null = null
  let n = 0
  for await (const c of git.walk(tips)) {
    if (c.tree === workspaceTree) return c.id
    if (codeMatch === null && c.tree === code) codeMatch = c.id
    if (++n >= SEARCH_DEPTH) break
  }
  if (codeMatch !== null) return codeMatch
  if (code === null || code === workspaceTree) return null
  return codeBaseCommit(git, code)
}
