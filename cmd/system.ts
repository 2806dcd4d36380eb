// The real System (internal/base/system.ts): the one place below the bin's own
// file that reads the running process. The bin and the test setup install it.

import { hostname } from 'node:os'
import type { System } from '../internal/base/system.js'

let host: string | undefined

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
  heapUsed: () => process.memoryUsage().heapUsed,
}
