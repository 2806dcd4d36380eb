// The facts about the running process that code below the bin needs: its pid and
// host (lock holders, temp-file names), whether another pid is alive (dead-holder
// takeover), killing a process group (a --verify timeout), the Node version
// and platform (version, capabilities) and heap use (the MCP server's memory settling).
//
// Only `cmd/` touches `process` (ARCHITECTURE.md rule 4): the bin installs the one
// real implementation (`cmd/system.ts`) before anything runs, and the test setup
// installs the same one, so nothing under internal/ reaches for the global.

export interface System {
  /** This process's id. */
  readonly pid: number
  /** This machine's host name. */
  readonly hostname: string
  /** The running Node.js version (`v20.19.0`). */
  readonly nodeVersion: string
  /** Operating system and CPU architecture (`linux-x64`). */
  readonly platform: string
  /** Is process `pid` alive on this host? (A process we may not signal is alive.) */
  isAlive(pid: number): boolean
  /** Send `signal` to every process in group `pgid`. Throws when there is no such group. */
  killGroup(pgid: number, signal: 'SIGKILL' | 'SIGTERM'): void
  /** Bytes of V8 heap in use. */
  heapUsed(): number
}

let installed: System | null = null

/** Install the process's System (the bin and the test setup, once, before anything runs). */
export function installSystem(s: System): void {
  installed = s
}

/** The installed System. */
export function system(): System {
  if (installed === null) {
    throw new Error('no System installed: cmd/dacli.ts (or the test setup) installs it before anything runs')
  }
  return installed
}
