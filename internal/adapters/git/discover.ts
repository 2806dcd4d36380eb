// Finding the repository around a folder by reading `.git`, `commondir` and the
// ref files directly: no git program, no isomorphic-git. Workspace discovery runs
// on every command, so this module stays small and imports only node and refs.ts.
//
// Layouts: a main worktree has a `.git` folder; a linked worktree has a `.git`
// file (`gitdir: <common>/worktrees/<name>`) whose git dir holds `commondir`; a
// submodule or a `--separate-git-dir` checkout has a `.git` file without one.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { readRef } from './refs.js'

export interface GitInfo {
  /** The work tree root that holds `.git`. */
  workTree: string
  /** The git directory of this work tree (`.git`, or `.git/worktrees/<name>` for a linked worktree). */
  gitDir: string
  /** The common git directory (objects, refs) — the main repository's `.git`. */
  commonDir: string
  /** The main worktree's root: the parent of the common git directory (differs from workTree in a linked worktree). */
  mainWorkTree: string
  /** This work tree is a linked worktree (`git worktree add`) of another one. */
  linked: boolean
}

function statOrNull(p: string): fs.Stats | null {
  try {
    return fs.statSync(p)
  } catch {
    return null
  }
}

/** The git directory a `.git` file points at (`gitdir: <path>`), or null. */
function gitdirOfFile(dotgit: string): string | null {
  let text: string
  try {
    text = fs.readFileSync(dotgit, 'utf8')
  } catch {
    return null
  }
  const m = /^gitdir:[ \t]*(.+?)[ \t]*$/m.exec(text)
  return m ? path.resolve(path.dirname(dotgit), m[1] as string) : null
}

/** Git facts for the work tree containing `dir`, without running git. */
export function gitInfoAt(dir: string): GitInfo | null {
  let cur = path.resolve(dir)
  for (;;) {
    const dotgit = path.join(cur, '.git')
    const st = statOrNull(dotgit)
    if (st?.isDirectory()) {
      return { workTree: cur, gitDir: dotgit, commonDir: dotgit, mainWorkTree: cur, linked: false }
    }
    if (st?.isFile()) {
      const gitDir = gitdirOfFile(dotgit)
      if (gitDir !== null) {
        let commonDir = gitDir
        try {
          commonDir = path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim())
        } catch {
          // A submodule or a separate git dir: no common dir of its own.
        }
        const linked = commonDir !== gitDir
        // A bare common directory (worktrees of a bare clone) has no main worktree: each one stands alone.
        const mainWorkTree = linked && path.basename(commonDir) === '.git' ? path.dirname(commonDir) : cur
        return { workTree: cur, gitDir, commonDir, mainWorkTree, linked: linked && mainWorkTree !== cur }
      }
    }
    const up = path.dirname(cur)
    if (up === cur) return null
    cur = up
  }
}

export interface WorktreeHead {
  /** The branch checked out (`main`, `dacli/alpha-001-x`), or null when detached or unborn-unknown. */
  branch: string | null
  /** The commit HEAD points at, or null (unborn). */
  commit: string | null
}

/** What a work tree has checked out (its own HEAD, in its own git dir). */
export function headOf(info: GitInfo): WorktreeHead {
  const text = headText(info)
  if (text === null) return { branch: null, commit: null }
  return { branch: branchIn(text), commit: readRef(info.gitDir, info.commonDir, 'HEAD') }
}

/**
 * The branch a work tree has checked out, or null (a detached HEAD, an unreadable one): its HEAD file alone, no ref
 * read (what a check of the branch needs on every call of a server).
 */
export function headBranch(info: GitInfo): string | null {
  const text = headText(info)
  return text === null ? null : branchIn(text)
}

function headText(info: GitInfo): string | null {
  try {
    return fs.readFileSync(path.join(info.gitDir, 'HEAD'), 'utf8').trim()
  } catch {
    return null
  }
}

const branchIn = (head: string) => /^ref:\s*refs\/heads\/(.+)$/.exec(head)?.[1] ?? null

/**
 * The branch every work tree of the repository has checked out (null: detached or unreadable), with its folder:
 * the main one's HEAD (a bare repository has no checkout) and each linked one's, read from the common git dir.
 */
export function checkedOutBranches(info: GitInfo): { branch: string | null; path: string }[] {
  const read = (file: string) => {
    try {
      return branchIn(fs.readFileSync(file, 'utf8').trim())
    } catch {
      return null
    }
  }
  const out: { branch: string | null; path: string }[] = []
  if (path.basename(info.commonDir) === '.git')
    out.push({ branch: read(path.join(info.commonDir, 'HEAD')), path: path.dirname(info.commonDir) })
  const base = path.join(info.commonDir, 'worktrees')
  let names: string[] = []
  try {
    names = fs.readdirSync(base).sort()
  } catch {
    // No linked worktrees.
  }
  for (const n of names) {
    let where = path.join(base, n)
    try {
      where = path.dirname(path.resolve(base, n, fs.readFileSync(path.join(base, n, 'gitdir'), 'utf8').trim()))
    } catch {
      // Its folder is unknown: the git dir names it.
    }
    out.push({ branch: read(path.join(base, n, 'HEAD')), path: where })
  }
  // The current work tree's own HEAD, whatever the common dir says (a submodule, a separate git dir).
  out.push({ branch: headBranch(info), path: info.workTree })
  return out
}

/** The root folders of the linked worktrees git knows about (from `<common>/worktrees/*\/gitdir`). */
export function linkedWorktreeRoots(commonDir: string): string[] {
  const base = path.join(commonDir, 'worktrees')
  let names: string[]
  try {
    names = fs.readdirSync(base)
  } catch {
    return []
  }
  const out: string[] = []
  for (const n of names.sort()) {
    let target: string
    try {
      target = fs.readFileSync(path.join(base, n, 'gitdir'), 'utf8').trim()
    } catch {
      continue
    }
    if (target !== '') out.push(path.dirname(path.resolve(base, n, target)))
  }
  return out
}

/**
 * Remotes that have `branch` as a remote-tracking ref (`refs/remotes/<remote>/<branch>`), read from the
 * loose refs and packed-refs: what a fresh clone knows about the remote without asking it. `origin` first.
 */
/** The remotes this clone has fetched anything from (their remote-tracking refs, loose or packed), origin first. */
export function fetchedRemotes(commonDir: string): string[] {
  const found = new Set<string>()
  try {
    for (const r of fs.readdirSync(path.join(commonDir, 'refs', 'remotes'))) found.add(r)
  } catch {
    // none loose
  }
  let packed = ''
  try {
    packed = fs.readFileSync(path.join(commonDir, 'packed-refs'), 'utf8')
  } catch {
    packed = ''
  }
  for (const m of packed.matchAll(/^[0-9a-f]{40} refs\/remotes\/([^/\n]+)\//gm)) found.add(m[1] as string)
  return [...found].sort((a, b) => (a === 'origin' ? -1 : b === 'origin' ? 1 : a < b ? -1 : a > b ? 1 : 0))
}

export function remotesWithBranch(commonDir: string, branch: string): string[] {
  const found = new Set<string>()
  const base = path.join(commonDir, 'refs', 'remotes')
  let remotes: string[] = []
  try {
    remotes = fs.readdirSync(base)
  } catch {
    remotes = []
  }
  for (const r of remotes) {
    if (statOrNull(path.join(base, r, ...branch.split('/')))?.isFile()) found.add(r)
  }
  let packed = ''
  try {
    packed = fs.readFileSync(path.join(commonDir, 'packed-refs'), 'utf8')
  } catch {
    packed = ''
  }
  const suffix = `/${branch}`
  for (const line of packed.split('\n')) {
    const ref = line.slice(41).trim()
    if (line[40] !== ' ' || !ref.startsWith('refs/remotes/') || !ref.endsWith(suffix)) continue
    const remote = ref.slice('refs/remotes/'.length, ref.length - suffix.length)
    if (remote !== '' && !remote.includes('/')) found.add(remote)
  }
  return [...found].sort((a, b) => (a === 'origin' ? -1 : b === 'origin' ? 1 : a < b ? -1 : a > b ? 1 : 0))
}

/** A path segment git reserves for itself (a repository's own folder): never written into from a record. */
export const isGitDirName = (name: string): boolean => name.toLowerCase() === '.git'
