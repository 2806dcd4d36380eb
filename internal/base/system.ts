// The facts about the running process that code below the bin needs: its pid and
// host (lock holders, temp-file names), whether another pid is alive (dead-holder
// takeover), killing a process group (a --verify timeout), the Node version
// and platform (version, capabilities) and heap use (the MCP server's memory settling).
//
// Only `cmd/` touches `process` (ARCHITECTURE.md, rule "process"): the bin makes the one real implementation
// (`cmd/system.ts`) and hands it down — in the services a command's context carries, to the store it opens and
// to the git adapter — so nothing under internal/ reaches for a global.

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
  /**
   * Keep a child's own process group (a remote git, a --verify command) from outliving this process when it is
   * interrupted (SIGINT, SIGTERM): until the returned function is called, such a signal kills the group first.
   */
  guardGroup(pgid: number): () => void
  /** Bytes of V8 heap in use. */
  heapUsed(): number
  /**
   * The running Node's own lstat of `file`, as numbers in Node's order (undefined: no such file), where Node lends
   * one: a walk of every task file takes its stamps through it (store/lstat.ts checks it against fs.lstatSync).
   */
  readonly lstatNumbers?: (file: string) => ArrayLike<number> | undefined
}

/** What writing a file needs to know of the process: its id and host (temp-file names) and whether a writer lives. */
export type Proc = Pick<System, 'pid' | 'hostname' | 'isAlive'>
