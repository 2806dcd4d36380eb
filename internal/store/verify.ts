// `--verify CMD`: run a shell command from the caller's work tree with a timeout
// and keep evidence of what happened (command, exit code, duration, a digest of
// the combined output). Nothing is checked unless it exits 0.

import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { system } from '../base/system.js'

export interface Verification {
  command: string
  exit_code: number | null
  duration_ms: number
  output_digest: string
  timed_out: boolean
  /** The last few KiB of output, for the error message of a failed run. */
  output_tail: string
  /** The branch and commit checked out where it ran (filled in by the caller; null outside git). */
  branch: string | null
  commit: string | null
}

const TAIL = 4096
export const DEFAULT_VERIFY_TIMEOUT_MS = 10 * 60_000

export function runVerify(
  command: string,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs = DEFAULT_VERIFY_TIMEOUT_MS,
): Promise<Verification> {
  const started = performance.now()
  const hash = createHash('sha256')
  let tail = ''
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], {
      cwd,
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      try {
        system().killGroup(child.pid as number, 'SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }
    }, timeoutMs)
    const take = (chunk: Buffer) => {
      hash.update(chunk)
      tail = (tail + chunk.toString('utf8')).slice(-TAIL)
    }
    child.stdout.on('data', take)
    child.stderr.on('data', take)
    child.on('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({
        command,
        exit_code: timedOut ? null : code,
        duration_ms: Math.round(performance.now() - started),
        output_digest: `sha256:${hash.digest('hex')}`,
        timed_out: timedOut,
        output_tail: tail,
        branch: null,
        commit: null,
      })
    })
  })
}
