// The real System (internal/base/system.ts): the one place below the bin's own
// file that reads the running process. The bin and the test setup install it.

import { hostname } from 'node:os'
import { toNamespacedPath } from 'node:path'
import type { System } from '../internal/base/system.js'

let host: string | undefined

/** The newest Node major known to deprecate `process.binding` in documentation only (it warns under a flag alone). */
const QUIET_BINDING_UNTIL = 24

/** Process groups of children that must not outlive an interrupted dacli (System.guardGroup). */
const guarded = new Set<number>()
const SIGNALS = ['SIGINT', 'SIGTERM'] as const

/**
 * Ctrl-C or SIGTERM while a guarded child runs: its group is killed at once (a remote git, a --verify command never
 * outlives the reason it ran). A command with a handler of its own (a server's or a watch's clean stop) then ends
 * itself — the killed child's operation fails, and the stopping command does not start another. Otherwise the signal
 * would end this process: raise it again so the process ends as it always did.
 */
function onSignal(signal: (typeof SIGNALS)[number]): void {
  const handled = process.listenerCount(signal) > 1
  for (const pgid of guarded) {
    try {
      process.kill(-pgid, 'SIGKILL')
    } catch {
      // gone already
    }
  }
  guarded.clear()
  unlisten()
  if (!handled) process.kill(process.pid, signal)
}
const listeners = new Map(SIGNALS.map((s) => [s, () => onSignal(s)]))
function unlisten(): void {
  for (const [s, l] of listeners) process.removeListener(s, l)
}

export const nodeSystem: System = {
  pid: process.pid,
  // Asked for only by lock holders and claims: node:os loads then, not on every start-up.
  get hostname() {
    host ??= hostname()
    return host
  },
  nodeVersion: process.version,
  platform: `${process.platform}-${process.arch}`,
  isAlive(pid) {
    if (!Number.isInteger(pid) || pid <= 0) return false
    try {
      process.kill(pid, 0)
      return true
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EPERM'
    }
  },
  killGroup(pgid, signal) {
    process.kill(-pgid, signal)
  },
  guardGroup(pgid) {
    // First in line: a command's own handler registered with once() is removed as its signal is emitted, so a
    // listener running after it would no longer see it and would end the process under a clean stop.
    if (guarded.size === 0) for (const [s, l] of listeners) process.prependListener(s, l)
    guarded.add(pgid)
    return () => {
      if (guarded.delete(pgid) && guarded.size === 0) unlisten()
    }
  },
  heapUsed: () => process.memoryUsage().heapUsed,
  ...lstatNumbers(),
}

/**
 * Node's own lstat, which returns the numbers fs.lstatSync makes a Stats object of (store/lstat.ts says why and
 * checks it on first use). Taken only on a Node where asking for it is silent: a major known to warn only under
 * `--pending-deprecation`, without that flag (a later Node, which may warn on every command, keeps fs.lstatSync
 * until it is measured); nor where this Node has none of that shape.
 */
function lstatNumbers(): Pick<System, 'lstatNumbers'> {
  const flags = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`
  if (Number(process.versions.node.split('.')[0]) > QUIET_BINDING_UNTIL) return {}
  if (/--pending-deprecation|--throw-deprecation/.test(flags)) return {}
  try {
    const own = (process as unknown as { binding(name: string): { lstat?: unknown } }).binding('fs')
    const lstat = own.lstat
    if (typeof lstat !== 'function') return {}
    // (path, numbers as BigInts: no, a request: none (synchronous), throw when the file is missing: no)
    return { lstatNumbers: (file) => lstat.call(own, toNamespacedPath(file), false, undefined, false) }
  } catch {
    return {}
  }
}
