// Finding the workspace (FORMAT.md: walk up to the nearest `.dacli/`, stopping at
// the git repository root; a linked worktree always resolves to its main
// worktree's store) and reading `config.yml`. The git layout is read by
// internal/adapters/git/discover.ts, which knows `.git` files and `commondir`.

import * as fs from 'node:fs'
import * as path from 'node:path'
import {
  fetchedRemotes,
  type GitInfo,
  gitInfoAt,
  headBranch,
  linkedWorktreeRoots,
  remotesWithBranch,
} from '../adapters/git/discover.js'
import type { Deadline } from '../adapters/git/remote.js'
import { isBranchName } from '../base/branchname.js'
import { cmd } from '../base/commands.js'
import { MAX_DURATION_MS } from '../base/duration.js'
import { FailureError, NotFoundError, UsageError } from '../base/errors.js'
import type { System } from '../base/system.js'
import { frontOf, readFront } from '../format/flat.js'
import { StampMemo, stampOf } from './filecache.js'
import { assertNoLinks, readText } from './fsio.js'

export const WORKSPACE_DIR = '.dacli'
export const FORMAT_VERSION = 0

/** `.dacli/.gitignore`: what is transient (locks, caches), local (the change journal) or not the workspace's own (task worktrees). */
export const GITIGNORE =
  '# transient, regenerable, local or checkouts of their own; never committed\nlocks/\ncache/\njournal/\nworktrees/\n'

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

export interface Located {
  /** The folder that holds `.dacli/` (the repository root inside git). */
  root: string
  dir: string
  git: GitInfo | null
  /**
   * In a linked worktree: its own checked-out copy of the store, which dacli ignores in favour of the main
   * worktree's; null otherwise.
   */
  shadowed: string | null
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

/** The nearest `.dacli/` from `from` up to `stop` (inclusive; null: the file system root). */
function walkUp(from: string, stop: string | null): { root: string; dir: string } | null {
  let cur = path.resolve(from)
  for (;;) {
    const candidate = path.join(cur, WORKSPACE_DIR)
    checkNotSymlink(candidate)
    if (isDir(candidate)) return { root: cur, dir: candidate }
    if (stop !== null && cur === stop) return null
    const up = path.dirname(cur)
    if (up === cur) return null
    cur = up
  }
}

/**
 * Walk up from `cwd` to the nearest `.dacli/` (stopping at the repository root). Inside a linked worktree
 * the walk happens in the main worktree instead, at the same relative place: every worktree of a clone
 * shares the main worktree's store, even when it has a checked-out copy of its own.
 */
export function locate(cwd: string): Located {
  const git = gitInfoAt(cwd)
  if (git?.linked) {
    const rel = path.relative(git.workTree, path.resolve(cwd))
    const found = walkUp(path.join(git.mainWorkTree, rel), git.mainWorkTree)
    const copyOf = (root: string) => path.join(git.workTree, path.relative(git.mainWorkTree, root), WORKSPACE_DIR)
    if (found !== null) {
      const copy = copyOf(found.root)
      return { ...found, git, shadowed: copy !== found.dir && isDir(copy) ? copy : null }
    }
    throw noWorkspace(git, walkUp(cwd, git.workTree)?.dir ?? null)
  }
  const found = walkUp(cwd, git?.workTree ?? null)
  if (found !== null) return { ...found, git, shadowed: null }
  throw noWorkspace(git, null)
}

/** Checked-out copies of the store in the clone's linked worktrees (each ignored; doctor reports them). */
export function shadowedCopies(root: string, git: GitInfo | null): string[] {
  if (git === null) return []
  const rel = path.relative(git.mainWorkTree, root)
  if (rel.startsWith('..') || path.isAbsolute(rel)) return []
  const out: string[] = []
  for (const wt of linkedWorktreeRoots(git.commonDir)) {
    const copy = path.join(wt, rel, WORKSPACE_DIR)
    try {
      if (fs.lstatSync(copy).isDirectory()) out.push(copy)
    } catch {
      // no copy in that worktree
    }
  }
  return out
}

/** The remote (origin first) whose record branch this clone has seen, or null. */
export function remoteWithRecord(git: GitInfo | null): string | null {
  return git === null ? null : (remotesWithBranch(git.commonDir, DEFAULT_RECORD_BRANCH)[0] ?? null)
}

export const pullCommand = (remote: string) => (remote === 'origin' ? cmd('record pull') : cmd(`record pull ${remote}`))

/** Exit 4, with the way forward: `record pull` when a remote has the record, else `init`. */
function noWorkspace(git: GitInfo | null, ownCopy: string | null): NotFoundError {
  const remote = remoteWithRecord(git)
  const details: Record<string, unknown> = {}
  const next: string[] = []
  let message = 'no dacli workspace found here or above'
  if (remote !== null) {
    message += `, but the remote \`${remote}\` has a dacli record branch: run \`${pullCommand(remote)}\``
    details.remote = remote
    details.record_branch = DEFAULT_RECORD_BRANCH
    next.push(pullCommand(remote))
  }
  if (git?.linked && ownCopy !== null) {
    message += `; this linked worktree's own copy (${ownCopy}) is not used: every worktree of a clone shares the main worktree's store (${path.join(git.mainWorkTree, WORKSPACE_DIR)})`
    details.shadowed = ownCopy
    next.push(`check out the branch that holds .dacli/ in the main worktree (${git.mainWorkTree})`)
  }
  if (remote === null) {
    // A clone that fetched only its code branch (`git pull origin main`) has not seen a record branch the remote may
    // hold: dacli does not ask the remote (no network on every command), so it says how to look.
    const fetched = git === null ? [] : fetchedRemotes(git.commonDir)
    const other = fetched[0]
    message += ` (run \`${cmd('init')}\`${other === undefined ? '' : `; or, if \`${other}\` holds a dacli workspace, \`git fetch ${other}\` then \`${pullCommand(other)}\``})`
    next.push(cmd('init'))
    if (other !== undefined) next.push(`git fetch ${other}`, pullCommand(other))
  }
  return new NotFoundError(message, { details, next })
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
  /** `claims: {remote: R}`: the git remote that arbitrates claims, or null (claims stay in the clone). */
  claims_remote: string | null
  /** `remote_timeout`: how long one remote operation (a git fetch, push or ls-remote; a GitHub request) may take, ms. */
  remote_timeout_ms: number
  raw: Record<string, unknown>
}

/**
 * `record_branch` from config.yml, checked at load (exit 1, as every value of config.yml dacli will not use: the
 * file's, not the caller's, mistake): a branch name git accepts, given short (not
 * `refs/heads/…`, not `HEAD`), and not a branch checked out in this clone — records are commits made with
 * plumbing, and one onto a checked-out branch would move it under the user's feet.
 */
export function checkRecordBranch(branch: string, file: string, git: GitInfo | null): string {
  // This worktree's branch, and the main worktree's when this one is linked.
  const main = git?.linked ? git.mainWorkTree : null
  const mainInfo = main === null ? null : gitInfoAt(main)
  const checkedOut = git === null ? [] : [headBranch(git), mainInfo === null ? null : headBranch(mainInfo)]
  if (!isBranchName(branch)) {
    throw new FailureError(
      `${file}: record_branch is ${JSON.stringify(branch)}; expected a short branch name such as ${DEFAULT_RECORD_BRANCH} (not HEAD, not refs/…, no spaces, .., ~ ^ : ? * [ or \\)`,
      {
        details: { path: file, field: 'record_branch', value: branch },
        next: [`fix record_branch in ${file} by hand`],
      },
    )
  }
  if (main !== null && checkedOut[0] === branch) {
    // A linked worktree of the record branch (a copy to read with git and an editor): the config is right.
    throw new FailureError(
      `this worktree has the record branch ${branch} checked out (a copy of the record to read): dacli does not run here, since a record would move that branch under it; run dacli from the main worktree`,
      {
        details: { path: file, field: 'record_branch', value: branch, main },
        next: [`cd ${main}`, 'git switch --detach (to run dacli in this worktree)'],
      },
    )
  }
  if (checkedOut.includes(branch)) {
    throw new FailureError(
      `${file}: record_branch is ${JSON.stringify(branch)}, the branch checked out here; dacli records onto a branch of its own (e.g. ${DEFAULT_RECORD_BRANCH})`,
      {
        details: { path: file, field: 'record_branch', value: branch },
        next: [`fix record_branch in ${file} by hand`],
      },
    )
  }
  return branch
}

/** A git remote as dacli accepts it from config or a flag: a name or a URL, never an option, no spaces or controls. */
export function checkRemote(remote: string, where: string): string {
  if (remote === '' || remote.startsWith('-') || /[\s\u0000-\u001f\u007f]/.test(remote)) {
    throw new UsageError(`${where}: "${remote}" is not a git remote name or URL`, { details: { remote } })
  }
  return remote
}

function claimsRemote(raw: Record<string, unknown>, file: string): string | null {
  const c = raw.claims
  if (c === undefined || c === null) return null
  // Another shape (`claims: origin`, a list, a misspelt key) would turn the arbiter off without a word: refused.
  const keys = typeof c === 'object' && !Array.isArray(c) ? Object.keys(c) : null
  if (keys === null || keys.some((k) => k !== 'remote')) {
    throw new FailureError(
      `claims in ${file} must be a map with one key, remote (claims: {remote: origin}); got ${JSON.stringify(c)}`,
      { next: ['set `claims: {remote: origin}` in .dacli/config.yml, or remove it'] },
    )
  }
  const remote = (c as Record<string, unknown>).remote
  if (remote === undefined || remote === null || remote === false) return null
  if (typeof remote !== 'string') {
    throw new FailureError(`claims.remote in ${file} must be a git remote name (e.g. origin)`, {
      next: ['set `claims: {remote: origin}` in .dacli/config.yml, or remove it'],
    })
  }
  try {
    return checkRemote(remote, `claims.remote in ${file}`)
  } catch (e) {
    throw new FailureError((e as Error).message, { next: ['set `claims: {remote: origin}` in .dacli/config.yml'] })
  }
}

export const DEFAULT_RECORD_BRANCH = 'dacli/record'

/** A workspace id as config.yml may hold it (init writes a ULID), as a pattern's text: issue markers hold one too. */
export const WORKSPACE_ID_TEXT = '[0-9A-Za-z][0-9A-Za-z._-]{0,63}'
/** A workspace id as config.yml may hold it. */
export const WORKSPACE_ID = new RegExp(`^${WORKSPACE_ID_TEXT}$`)

/** `remote_timeout` when config.yml does not set it: 20 seconds. */
export const DEFAULT_REMOTE_TIMEOUT_MS = 20_000

/** A remote operation's deadline: `ms` (default `remote_timeout`'s 20 s), ended by killing git's process group. */
export function remoteDeadline(
  system: Pick<System, 'killGroup' | 'guardGroup'>,
  ms = DEFAULT_REMOTE_TIMEOUT_MS,
): Deadline {
  return { ms, killGroup: (pgid, signal) => system.killGroup(pgid, signal), guardGroup: (g) => system.guardGroup(g) }
}
/** The longest `remote_timeout` dacli takes: an hour (a deadline is a promise to give up; a day is none). */
const MAX_REMOTE_TIMEOUT_MS = 3_600_000

/**
 * `remote_timeout` from config.yml, checked at load (exit 1 naming the file and field): a positive duration
 * (`20s`, `2m`, `500ms`, or a number of seconds) up to an hour. There is no "never": every remote operation has a
 * deadline.
 */
export function remoteTimeoutOf(
  raw: Record<string, unknown>,
  file: string,
  parseDuration: (s: string) => number | null,
): number {
  const v = raw.remote_timeout
  if (v === undefined || v === null) return DEFAULT_REMOTE_TIMEOUT_MS
  const ms =
    typeof v === 'number'
      ? v > 0 && Number.isFinite(v)
        ? Math.round(v * 1000)
        : null
      : typeof v === 'string'
        ? parseDuration(v.trim())
        : null
  if (ms === null || ms < 1 || ms > MAX_REMOTE_TIMEOUT_MS) {
    throw new FailureError(
      `${file}: remote_timeout is ${JSON.stringify(v)}; expected a duration from 1ms to 1h such as 20s or 2m (a number is seconds)`,
      { details: { path: file, field: 'remote_timeout', value: v }, next: [`fix remote_timeout in ${file} by hand`] },
    )
  }
  return ms
}

/**
 * config.yml as this process last parsed it, by its stamp: a server (`mcp serve`, `board`) opens a store for every
 * call, and reads the file again only when it changed. What is kept is frozen, to the last nested value: one call
 * cannot change what the next is given.
 */
const configs = new StampMemo<Config>(16)

/** Parse config.yml; the flat reader covers what init writes, yaml covers hand edits. */
export async function readConfig(dir: string, parseDuration: (s: string) => number | null): Promise<Config> {
  const file = path.join(dir, 'config.yml')
  let text: string
  assertNoLinks(file, dir)
  // Taken before the read: a write after it changes the stamp, so what was read is never kept under a later one.
  const stamp = stampOf(file)
  const kept = stamp === null ? undefined : configs.get(file, stamp)
  if (kept !== undefined) return kept
  try {
    text = readText(file)
  } catch (e) {
    throw new FailureError(`cannot read ${file}: ${(e as Error).message}`, { cause: e })
  }
  const config = frozen(await parseConfig(dir, text, parseDuration))
  if (stamp !== null) configs.set(file, stamp, config)
  return config
}

function frozen<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const x of Object.values(v)) frozen(x)
  }
  return v
}

async function parseConfig(dir: string, text: string, parseDuration: (s: string) => number | null): Promise<Config> {
  const file = path.join(dir, 'config.yml')
  const rel = `${path.basename(dir)}/config.yml`
  // config.yml is plain YAML; one written between `---` lines, like an object file's frontmatter, reads the same.
  const yaml = frontOf(text) ?? text
  let raw: Record<string, unknown> | null = readFront(yaml)
  if (raw === null) {
    const { parseYamlMap } = await import('../format/frontmatter.js')
    try {
      raw = parseYamlMap(yaml) ?? {}
    } catch (e) {
      throw new FailureError(`${rel} is ${(e as Error).message}`, { cause: e, details: { path: rel } })
    }
  }
  /** A value of config.yml that dacli will not guess about: exit 1 naming the key, the value and what it takes. */
  const bad = (key: string, want: string): never => {
    // A number JSON cannot hold (1e400 reads as Infinity) is shown as it reads, never as null.
    const v = raw?.[key]
    const shown = typeof v === 'number' && !Number.isFinite(v) ? String(v) : v
    throw new FailureError(`${rel}: ${key} is ${JSON.stringify(shown)}; expected ${want}`, {
      details: { path: rel, field: key, value: shown ?? null },
      next: [`fix ${key} in ${rel} by hand`],
    })
  }
  const format = raw.format === undefined || raw.format === null ? 0 : raw.format
  if (typeof format !== 'number' || !Number.isInteger(format) || format < 0)
    bad('format', `a format version (${FORMAT_VERSION})`)
  if ((format as number) > FORMAT_VERSION) {
    throw new FailureError(
      `workspace format ${String(raw.format)} is newer than this dacli's format ${FORMAT_VERSION}; upgrade dacli`,
      { details: { workspace_format: raw.format, supported_format: FORMAT_VERSION } },
    )
  }
  const lease = raw.claim_lease
  let leaseMs: number | null = null
  if (!(lease === undefined || lease === null || lease === 'none' || lease === false)) {
    const ms =
      typeof lease === 'number'
        ? lease > 0 && lease * 1000 <= MAX_DURATION_MS
          ? lease * 1000
          : null
        : parseDuration(String(lease))
    if (ms === null) bad('claim_lease', 'a positive duration such as 2h, 30m or 1d, or none')
    leaseMs = ms
  }
  const wip = raw.wip_limit
  if (!(wip === undefined || wip === null || (typeof wip === 'number' && Number.isInteger(wip) && wip > 0))) {
    bad('wip_limit', 'a whole number of tasks above 0')
  }
  if (!(raw.autorecord === undefined || raw.autorecord === null || typeof raw.autorecord === 'boolean')) {
    bad('autorecord', 'true or false')
  }
  for (const key of ['id', 'name', 'record_branch']) {
    const v = raw[key]
    if (!(v === undefined || v === null || typeof v === 'string')) bad(key, 'a string')
  }
  // The workspace id names the user's trust file and goes into every pull request and issue marker
  // (`<!-- dacli:t-… ws:<id> -->`): a word, never a path, a space or an end of comment.
  if (typeof raw.id === 'string' && raw.id !== '' && !WORKSPACE_ID.test(raw.id))
    bad('id', 'the workspace id init wrote (letters and digits, at most 64; `.`, `_` and `-` inside)')
  return {
    id: typeof raw.id === 'string' ? raw.id : '',
    name: typeof raw.name === 'string' ? raw.name : path.basename(path.dirname(dir)),
    format: format as number,
    record_branch:
      typeof raw.record_branch === 'string' && raw.record_branch !== '' ? raw.record_branch : DEFAULT_RECORD_BRANCH,
    autorecord: raw.autorecord === true,
    claim_lease_ms: leaseMs,
    wip_limit: typeof wip === 'number' ? wip : null,
    claims_remote: claimsRemote(raw, file),
    remote_timeout_ms: remoteTimeoutOf(raw, rel, parseDuration),
    raw,
  }
}
