// Refs in the common git directory, read and updated the way git itself does.
//
// isomorphic-git's writeRef overwrites a ref unconditionally. The record branch
// needs a compare-and-swap, so the update follows git's own protocol: create
// `<ref>.lock` exclusively (git and dacli exclude each other through it), check
// the current value against the expected one, write the new value into the lock
// file and rename it over the ref.

import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { isBranchName } from '../../base/branchname.js'
import { FailureError } from '../../base/errors.js'

const OID = /^[0-9a-f]{40}$/

/** The full ref name of a local branch. */
export const headRef = (branch: string) => `refs/heads/${branch}`

/** record_branch from config.yml, checked before any git command uses it. */
export function checkBranchName(branch: string): string {
  const bad = !isBranchName(branch)
  if (bad) {
    throw new FailureError(`"${branch}" is not a valid git branch name (record_branch in .dacli/config.yml)`, {
      details: { record_branch: branch },
      next: ['set record_branch in .dacli/config.yml to a valid branch name, e.g. dacli/record'],
    })
  }
  return branch
}

const refFile = (commonDir: string, ref: string) => path.join(commonDir, ...ref.split('/'))

/** The commit a ref points at (loose file first, then packed-refs), following `ref:` links. */
export function readRef(gitDir: string, commonDir: string, ref: string, depth = 0): string | null {
  if (depth > 5) return null
  // HEAD and other pseudo-refs live in the work tree's own git dir; everything else is shared.
  const base = ref.startsWith('refs/') ? commonDir : gitDir
  let text: string | null = null
  try {
    text = fs.readFileSync(refFile(base, ref), 'utf8').trim()
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EISDIR') throw e
  }
  if (text !== null) {
    if (text.startsWith('ref:')) return readRef(gitDir, commonDir, text.slice(4).trim(), depth + 1)
    return OID.test(text) ? text : null
  }
  return packedRef(commonDir, ref)
}

function packedRef(commonDir: string, ref: string): string | null {
  let text: string
  try {
    text = fs.readFileSync(path.join(commonDir, 'packed-refs'), 'utf8')
  } catch {
    return null
  }
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.startsWith('^')) continue
    const sp = line.indexOf(' ')
    if (sp === 40 && line.slice(41).trim() === ref) return line.slice(0, 40)
  }
  return null
}

/**
 * Every ref under `refs/remotes/<remote>/<branch>` (and `refs/dacli/fetched/<branch>`, where a fetch from a
 * URL keeps it), loose or packed, with the commit it names: what the remotes were last seen to hold of `branch`.
 */
export function trackingRefs(commonDir: string, branch: string): { ref: string; oid: string }[] {
  const found = new Map<string, string>()
  const want = (ref: string) => {
    if (ref === `refs/dacli/fetched/${branch}`) return true
    if (!ref.startsWith('refs/remotes/') || !ref.endsWith(`/${branch}`)) return false
    const remote = ref.slice('refs/remotes/'.length, -(branch.length + 1))
    return remote !== '' && !remote.includes('/')
  }
  try {
    for (const line of fs.readFileSync(path.join(commonDir, 'packed-refs'), 'utf8').split('\n')) {
      if (line.startsWith('#') || line.startsWith('^') || line.indexOf(' ') !== 40) continue
      const ref = line.slice(41).trim()
      if (want(ref) && OID.test(line.slice(0, 40))) found.set(ref, line.slice(0, 40))
    }
  } catch {
    // no packed refs
  }
  const walk = (rel: string) => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(refFile(commonDir, rel), { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries) {
      const ref = `${rel}/${e.name}`
      if (e.isDirectory()) walk(ref)
      else if (want(ref)) {
        const oid = readRef(commonDir, commonDir, ref)
        if (oid !== null) found.set(ref, oid)
      }
    }
  }
  walk('refs/remotes')
  walk('refs/dacli/fetched')
  return [...found].map(([ref, oid]) => ({ ref, oid })).sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0))
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/**
 * Point `ref` at `next` only if it still points at `expected` (null: does not exist).
 * Returns false when the ref moved (the caller re-reads and retries on the new tip).
 */
export async function compareAndSwapRef(
  commonDir: string,
  ref: string,
  expected: string | null,
  next: string,
): Promise<boolean> {
  if (!OID.test(next)) throw new FailureError(`refusing to point ${ref} at "${next}"`)
  const file = refFile(commonDir, ref)
  const lock = `${file}.lock`
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true })
  } catch (e) {
    throw new FailureError(`cannot create the ref ${ref}: a ref with a conflicting name exists`, { cause: e })
  }
  let fd: number | undefined
  for (let i = 0; fd === undefined; i++) {
    try {
      fd = fs.openSync(lock, 'wx', 0o644)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code !== 'EEXIST') throw new FailureError(`cannot lock ${ref}`, { cause: e })
      // git (or another dacli) is updating the ref right now; it holds the lock only for a moment. A lock
      // untouched for longer was left by a writer killed between taking and renaming it (kill -9 of a record
      // or a sync): nothing will ever finish it, so it is removed and the update goes on.
      if (abandonedLock(lock)) {
        fs.rmSync(lock, { force: true })
        continue
      }
      if (i >= 200) {
        throw new FailureError(`${lock} exists: another git process is updating ${ref}`, {
          next: [`if no git process is running, remove ${lock}`],
        })
      }
      await sleep(Math.min(5 + i * 2, 100))
    }
  }
  let renamed = false
  try {
    const current = readRef(commonDir, commonDir, ref)
    if (current !== expected) return false
    fs.writeSync(fd, `${next}\n`)
    fs.fsyncSync(fd)
    fs.closeSync(fd)
    fd = undefined
    fs.renameSync(lock, file)
    renamed = true
    return true
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
    if (!renamed) fs.rmSync(lock, { force: true })
  }
}

/**
 * Remove the lock file of `ref` when it was abandoned (see ABANDONED_REF_LOCK_MS); whether there was one to remove.
 */
export function removeAbandonedRefLock(commonDir: string, ref: string): boolean {
  const lock = `${refFile(commonDir, ref)}.lock`
  if (!abandonedLock(lock)) return false
  fs.rmSync(lock, { force: true })
  return true
}

/**
 * A ref lock older than this was abandoned: git holds one for the moment of a rename (it waits at most
 * `core.filesRefLockTimeout`, 100 ms by default, for another's), dacli for a write and an fsync.
 */
export const ABANDONED_REF_LOCK_MS = 10_000

export function abandonedLock(lock: string): boolean {
  try {
    return Date.now() - fs.lstatSync(lock).mtimeMs > ABANDONED_REF_LOCK_MS
  } catch {
    return false
  }
}

/** A unique suffix for temp names (48 random bits: unique among writers without naming one). */
export const tempTag = () => randomBytes(6).toString('hex')
