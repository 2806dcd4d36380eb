// The real System (internal/base/system.ts): the one place below the bin's own
// file that reads the running process. The bin and the test setup install it.

import { hostname } from 'node:os'
import type { System } from '../internal/base/system.js'

let host: string | undefined

/** Process groups of children that must not outlive an interrupted dacli (System.guardGroup). */
const guarded = new Set<number>()
const SIGNALS = ['SIGINT', 'SIGTERM'] as const

/**
 * Ctrl-C or SIGTERM while a guarded child runs. A command with a handler of its own (a server's or a watch's clean
 * stop) ends itself and lets its child finish, within the child's own deadline. Otherwise the signal would end this
 * process at once: kill the children's groups first, then raise the signal again so the process ends as it always
 * did.
 */
function onSignal(signal: (typeof SIGNALS)[number]): void {
  if (process.listenerCount(signal) > 1) return
  for (const pgid of guarded) {
    try {
      process.kill(-pgid, 'SIGKILL')
    } catch {
      // gone already
    }
  }
  guarded.clear()
  unlisten()
  process.kill(process.pid, signal)
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
    if (guarded.size === 0) for (const [s, l] of listeners) process.on(s, l)
    guarded.add(pgid)
    return () => {
      if (guarded.delete(pgid) && guarded.size === 0) unlisten()
    }
  },
  heapUsed: () => process.memoryUsage().heapUsed,
}
