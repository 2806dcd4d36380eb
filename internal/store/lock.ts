// Scoped lock files under `.dacli/locks/` (FORMAT.md, Concurrency): created
// exclusively, holding the holder's pid, pid start time, host and a token.
// A lock whose holder is provably dead is taken over; a live one is waited for
// with backoff and, past the wait budget, the command fails with exit 5 naming
// the holder. Release removes only a lock that still carries our token.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { cmd } from '../base/commands.js'
import { randomHex } from '../base/entropy.js'
import { ConflictError, FailureError } from '../base/errors.js'
import type { Proc } from '../base/system.js'
import { linkOnPath, mkdirNoLinks, readText } from './fsio.js'

export interface LockHolder {
  pid: number
  started: string | null
  host: string
  token: string
  time: string
  scope: string
}

export interface Lock {
  readonly file: string
  readonly token: string
  /** True when this acquisition removed a dead holder's lock. */
  readonly tookOver: boolean
  release(): void
}

/** The kernel's start time of a process (Linux), to tell a live holder from a reused pid. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19] ?? null
  } catch {
    return null
  }
}

let selfStart: { pid: number; started: string | null } | null = null
/** This process's start time, read once per pid. */
const ownStart = (sys: Proc): string | null => {
  const pid = sys.pid
  if (selfStart?.pid !== pid) selfStart = { pid, started: startTimeOf(pid) }
  return selfStart.started
}

export function readHolder(file: string): LockHolder | null {
  try {
    const h = JSON.parse(readText(file)) as LockHolder // a FIFO or link here is refused, never waited on
    return typeof h.token === 'string' && typeof h.pid === 'number' ? h : null
  } catch {
    return null
  }
}

/** Dead for certain: same host and the pid is gone (or now belongs to a different process). */
function holderIsDead(sys: Proc, h: LockHolder | null, file: string, now = Date.now()): boolean {
  if (h === null) {
    // Unreadable or half-written: only a crash between create and write leaves that; give it a moment.
    try {
      return now - fs.statSync(file).mtimeMs > 2_000
    } catch {
      return false
    }
  }
  if (h.host !== sys.hostname) return now - Date.parse(h.time) > 10 * 60_000
  if (!sys.isAlive(h.pid)) return true
  const started = startTimeOf(h.pid)
  return h.started !== null && started !== null && started !== h.started
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

export interface LockOptions {
  /** The locking process (the holder it writes; whether another holder is alive). */
  system: Proc
  /** How long to wait for a live holder before giving up (exit 5). */
  waitMs?: number
}

const DEFAULT_LOCK_WAIT_MS = 10_000

/** What a lock scope may be: `task-t-<ULID>`, `seq-<slug>`, `agent-<id>`, `record` … */
const LOCK_SCOPE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$/

/** Is the lock of `scope` held now (its file exists; a dead holder's counts until someone takes it over)? */
export function lockHeld(dir: string, scope: string): boolean {
  return LOCK_SCOPE.test(scope) && fs.existsSync(path.join(dir, `${scope}.lock`))
}

/** Acquire the lock `<dir>/<scope>.lock`. */
export async function acquireLock(dir: string, scope: string, opts: LockOptions): Promise<Lock> {
  // A scope is built from ids; one that is not a plain name would put the lock file (and its removal) elsewhere.
  if (!LOCK_SCOPE.test(scope)) {
    throw new FailureError(`refusing the lock scope ${JSON.stringify(scope.slice(0, 120))}: not a plain name`, {
      details: { scope: scope.slice(0, 200) },
    })
  }
  mkdirNoLinks(dir)
  const file = path.join(dir, `${scope}.lock`)
  const token = randomHex(12)
  const holder: LockHolder = {
    pid: opts.system.pid,
    started: ownStart(opts.system),
    host: opts.system.hostname,
    token,
    time: new Date().toISOString(),
    scope,
  }
  const waitMs = opts.waitMs ?? DEFAULT_LOCK_WAIT_MS
  const deadline = Date.now() + waitMs
  let delay = 2
  let tookOver = false
  for (;;) {
    try {
      // Not synced to disk: a lock only orders processes that are running, and a crash that loses its text
      // leaves an empty file, which reads as unreadable and is taken over two seconds after it was made.
      const fd = fs.openSync(file, 'wx', 0o644)
      try {
        fs.writeSync(fd, `${JSON.stringify(holder)}\n`)
      } finally {
        fs.closeSync(fd)
      }
      sweepDeadLocks(opts.system, dir)
      return {
        file,
        token,
        tookOver,
        release() {
          const h = readHolder(file)
          if (h !== null && h.token === token) fs.rmSync(file, { force: true })
        },
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
    const h = readHolder(file)
    if (holderIsDead(opts.system, h, file) && takeOver(file, h)) {
      tookOver = true
      continue
    }
    if (Date.now() >= deadline) {
      const who = h === null ? 'an unknown holder' : `pid ${h.pid} on ${h.host} since ${h.time}`
      throw new ConflictError(`${scope} is locked by ${who}; waited ${waitMs} ms`, {
        details: { lock: scope, holder: h === null ? null : { pid: h.pid, host: h.host, since: h.time } },
        next: [
          `retry shortly; if the holder is gone, \`${cmd('doctor')}\` reports the stale lock and the next write takes it over`,
        ],
      })
    }
    await sleep(delay + Math.random() * delay)
    delay = Math.min(delay * 2, 100)
  }
}

/**
 * Remove a dead holder's lock. Takeovers are serialized by a `<lock>.steal` guard
 * so that two processes judging the same dead holder cannot remove a live
 * successor's lock: under the guard the file is re-read and removed only if it
 * still carries the judged token.
 */
function takeOver(file: string, judged: LockHolder | null): boolean {
  const guard = `${file}.steal`
  let fd: number
  try {
    fd = fs.openSync(guard, 'wx')
  } catch {
    // Another process is taking over; a guard left by a crashed stealer expires.
    try {
      if (Date.now() - fs.statSync(guard).mtimeMs > 5_000) fs.rmSync(guard, { force: true })
    } catch {
      // gone already
    }
    return false
  }
  fs.closeSync(fd)
  try {
    const now = readHolder(file)
    const same = judged === null ? now === null : now !== null && now.token === judged.token
    if (!same) return false
    fs.rmSync(file, { force: true })
    return true
  } finally {
    fs.rmSync(guard, { force: true })
  }
}

/** When this process last swept each folder: a command sweeps once; a server again after a minute. */
const swept = new Map<string, number>()
const SWEEP_EVERY_MS = 60_000

/**
 * The first write of a process that takes a lock in `dir` (a long-lived one's, again after a minute) removes every lock there whose holder is provably dead
 * (the rule a takeover uses: this host and the pid gone or reused; another host's after ten minutes; an unreadable
 * file after two seconds), each under the takeover guard and only if it still carries the token judged dead. A
 * killed `record pull` can leave hundreds; doctor reports them as `stale-lock` until then. Returns what it removed.
 */
export function sweepDeadLocks(sys: Proc, dir: string): string[] {
  const now = Date.now()
  if (now - (swept.get(dir) ?? Number.NEGATIVE_INFINITY) < SWEEP_EVERY_MS) return []
  swept.set(dir, now)
  const removed: string[] = []
  try {
    for (const l of listLocks(sys, dir)) {
      if (l.dead && takeOver(l.file, l.holder)) removed.push(l.file)
    }
  } catch {
    // a folder that went away or cannot be read: nothing to sweep; doctor says why
  }
  return removed
}

/** Lock files in a folder with their holders (doctor's `stale-lock`). */
export function listLocks(sys: Proc, dir: string): { file: string; holder: LockHolder | null; dead: boolean }[] {
  let names: string[]
  if (linkOnPath(dir) !== null) return [] // doctor reports the link itself
  try {
    names = fs.readdirSync(dir)
  } catch {
    return []
  }
  return names
    .filter((n) => n.endsWith('.lock'))
    .map((n) => {
      const file = path.join(dir, n)
      const holder = readHolder(file)
      return { file, holder, dead: holderIsDead(sys, holder, file) }
    })
}

/** Run `fn` while holding `scope`. */
export async function withLock<T>(
  dir: string,
  scope: string,
  fn: (lock: Lock) => Promise<T> | T,
  opts: LockOptions,
): Promise<T> {
  const lock = await acquireLock(dir, scope, opts)
  try {
    return await fn(lock)
  } finally {
    lock.release()
  }
}
