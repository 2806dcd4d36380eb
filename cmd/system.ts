// The real System (internal/base/system.ts): the one place below the bin's own
// file that reads the running process. The bin and the test setup install it.

import { arch, hostname, platform } from 'node:os'
import type { System } from '../internal/base/system.js'

export const nodeSystem: System = {
  pid: process.pid,
  hostname: hostname(),
  nodeVersion: process.version,
  platform: `${platform()}-${arch()}`,
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
