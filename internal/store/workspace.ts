// Finding the workspace (format.md: walk up to the nearest `.dacli/`, stopping at
// the git repository root; a linked worktree resolves to its main worktree) and
// reading `config.yml`.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { FailureError, NotFoundError } from './errors.js'
import { quickFront, readFront } from './flat.js'

export const WORKSPACE_DIR = '.dacli'
export const FORMAT_VERSION = 0

export interface GitInfo {
  /** The work tree root that holds `.git`. */
  workTree: string
  /** The git directory of this work tree (`.git`, or `.git/worktrees/<name>` for a linked worktree). */
  gitDir: string
  /** The common git directory (objects, refs) — the main repository's `.git`. */
  commonDir: string
  /** The main worktree's root (differs from workTree in a linked worktree). */
  mainWorkTree: string
  linked: boolean
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

/** Git facts for the work tree containing `dir`, without running git. */
export function gitInfoAt(dir: string): GitInfo | null {
  let cur = path.resolve(dir)
  for (;;) {
    const dotgit = path.join(cur, '.git')
    let st: fs.Stats | null = null
    try {
      st = fs.statSync(dotgit)
    } catch {
      st = null
    }
    if (st?.isDirectory()) {
      return { workTree: cur, gitDir: dotgit, commonDir: dotgit, mainWorkTree: cur, linked: false }
    }
    if (st?.isFile()) {
      const text = fs.readFileSync(dotgit, 'utf8')
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(text)
      if (m) {
        const gitDir = path.resolve(cur, m[1] as string)
        let commonDir = gitDir
        try {
          commonDir = path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim())
        } catch {
          // A submodule or a separate git dir: no common dir of its own.
        }
        const linked = commonDir !== gitDir
        const mainWorkTree = linked && path.basename(commonDir) === '.git' ? path.dirname(commonDir) : cur
        return { workTree: cur, gitDir, commonDir, mainWorkTree, linked }
      }
    }
    const up = path.dirname(cur)
    if (up === cur) return null
    cur = up
  }
}

export interface Located {
  /** The folder that holds `.dacli/` (the repository root inside git). */
  root: string
  dir: string
  git: GitInfo | null
}

function checkNotSymlink(p: string): void {
  try {
    if (fs.lstatSync(p).isSymbolicLink()) {
      throw new FailureError(`${p} is a symbolic link; dacli does not follow links out of the workspace`, {
        next: ['replace the link with the folder itself'],
      })
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
  }
}

/** Walk up from `cwd` to the nearest `.dacli/` (stopping at the repository root). */
export function locate(cwd: string): Located {
  const git = gitInfoAt(cwd)
  const stop = git?.workTree ?? null
  let cur = path.resolve(cwd)
  for (;;) {
    const candidate = path.join(cur, WORKSPACE_DIR)
    checkNotSymlink(candidate)
    if (isDir(candidate)) return { root: cur, dir: candidate, git }
    if (stop !== null && cur === stop) break
    const up = path.dirname(cur)
    if (up === cur) break
    cur = up
  }
  if (git?.linked) {
    const main = path.join(git.mainWorkTree, WORKSPACE_DIR)
    checkNotSymlink(main)
    if (isDir(main)) return { root: git.mainWorkTree, dir: main, git }
  }
  throw new NotFoundError('no dacli workspace found here or above (run `dacli init`)', {
    next: ['dacli init'],
  })
}

export interface Config {
  id: string
  name: string
  format: number
  record_branch: string
  autorecord: boolean
  /** Default claim lease in ms, or null for claims that never expire. */
  claim_lease_ms: number | null
  /** WIP capacity (active tasks), or null when unset. */
  wip_limit: number | null
  raw: Record<string, unknown>
}

export const DEFAULT_RECORD_BRANCH = 'dacli/record'

/** Parse config.yml; the flat reader covers what init writes, yaml covers hand edits. */
export async function readConfig(dir: string, parseDuration: (s: string) => number | null): Promise<Config> {
  const file = path.join(dir, 'config.yml')
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (e) {
    throw new FailureError(`cannot read ${file}`, { cause: e })
  }
  let raw: Record<string, unknown> | null = readFront(text.replace(/^---\r?\n/, '').replace(/\r?\n---\s*$/, ''))
  if (raw === null) {
    const { parse } = await import('yaml')
    try {
      const v = parse(quickFront(text)?.front ?? text)
      raw = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
    } catch (e) {
      throw new FailureError(`${file} is not valid YAML`, { cause: e })
    }
    if (raw === null) throw new FailureError(`${file} is not a YAML map`)
  }
  const format = raw.format === undefined ? 0 : Number(raw.format)
  if (!Number.isInteger(format) || format > FORMAT_VERSION) {
    throw new FailureError(
      `workspace format ${String(raw.format)} is newer than this dacli's format ${FORMAT_VERSION}; upgrade dacli`,
      { details: { workspace_format: raw.format, supported_format: FORMAT_VERSION } },
    )
  }
  const lease = raw.claim_lease
  const leaseMs =
    lease === undefined || lease === null || lease === 'none' || lease === false
      ? null
      : typeof lease === 'number'
        ? lease * 1000
        : parseDuration(String(lease))
  const wip = raw.wip_limit
  return {
    id: typeof raw.id === 'string' ? raw.id : '',
    name: typeof raw.name === 'string' ? raw.name : path.basename(path.dirname(dir)),
    format,
    record_branch:
      typeof raw.record_branch === 'string' && raw.record_branch !== '' ? raw.record_branch : DEFAULT_RECORD_BRANCH,
    autorecord: raw.autorecord === true,
    claim_lease_ms: leaseMs,
    wip_limit: typeof wip === 'number' && Number.isInteger(wip) && wip > 0 ? wip : null,
    raw,
  }
}
