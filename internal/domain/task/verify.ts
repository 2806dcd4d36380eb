// `--verify CMD`: run a shell command from the caller's work tree with a timeout
// and keep evidence of what happened (command, exit code, duration, a digest of
// the combined output). Nothing is checked unless it exits 0.

import { createHash } from 'node:crypto'
import { redact } from '../../adapters/github/redact.js'
import { timerDelay } from '../../base/duration.js'
import type { System } from '../../base/system.js'

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
const DEFAULT_VERIFY_TIMEOUT_MS = 10 * 60_000

/**
 * Environment variables that hold secrets dacli knows about. They are not handed to the command (it
 * verifies the code, it needs no GitHub token or agent identity), and their values are masked in the
 * output kept for the caller, as is anything shaped like a GitHub token.
 */
const SECRET_ENV = ['GH_TOKEN', 'GITHUB_TOKEN', 'DACLI_AGENT'] as const

const MASK = '[redacted]'

/** Credential shapes a command line may carry: GitHub, GitLab, Slack, AWS access keys, OpenAI-style keys. */
const CREDENTIAL_SHAPES =
  /\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|glpat-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16})\b|\bsk-[A-Za-z0-9_-]{16,}/g
/** An environment variable whose name says it holds a secret. */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL/i

/**
 * A `--verify` command's text as dacli may store and print it: credential-shaped strings, the values of
 * environment variables whose names say they are secret, and values assigned to such names in the command
 * itself (`API_TOKEN=… make test`) are masked. The command still runs as written.
 */
export function redactCommand(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
): { text: string; redacted: boolean } {
  let out = command.replace(CREDENTIAL_SHAPES, MASK)
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && v.length >= 8 && SECRET_NAME.test(k)) out = out.split(v).join(MASK)
  }
  out = out.replace(/\b([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|[^\s;&|]+)/g, (all, name: string, value: string) =>
    SECRET_NAME.test(name) && value !== MASK ? `${name}=${MASK}` : all,
  )
  return { text: out, redacted: out !== command }
}

/** After the command exits, how long its output may still drain before the pipes are let go. */
const DRAIN_MS = 250

export async function runVerify(
  sys: Pick<System, 'killGroup' | 'guardGroup'>,
  command: string,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs = DEFAULT_VERIFY_TIMEOUT_MS,
  signal?: AbortSignal,
): Promise<Verification> {
  // Loaded when a command runs (node:child_process brings node:net and dgram), not by every command whose chunk
  // holds this module.
  const { spawn } = await import('node:child_process')
  const started = performance.now()
  const hash = createHash('sha256')
  let tail = ''
  const childEnv: Record<string, string | undefined> = { ...env }
  for (const k of SECRET_ENV) delete childEnv[k]
  const secrets = [
    ...SECRET_ENV.map((k) => env[k]),
    ...Object.entries(env).flatMap(([k, v]) => (SECRET_NAME.test(k) && v !== undefined ? [v] : [])),
  ]
  signal?.throwIfAborted()
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], {
      cwd,
      env: childEnv as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    // Detached, Ctrl-C no longer reaches the command: an interrupted dacli kills its group itself.
    const unguard = child.pid === undefined ? () => {} : sys.guardGroup(child.pid)
    let timedOut = false
    let exitCode: number | null = null
    let settled = false
    let drain: NodeJS.Timeout | undefined
    const kill = () => {
      try {
        sys.killGroup(child.pid as number, 'SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }
    }
    /** Whether this call settles the promise (once): the timers, the listener and the pipes are let go of. */
    const settle = (): boolean => {
      unguard()
      if (settled) return false
      settled = true
      clearTimeout(timer)
      clearTimeout(drain)
      signal?.removeEventListener('abort', cancelled)
      // A process that left the group (setsid, a daemon) may hold the pipes open forever: let go of them.
      child.stdout.destroy()
      child.stderr.destroy()
      return true
    }
    // The caller gave up (an MCP tool call cancelled): the command's group is killed, and no result is reported —
    // the close or check it guards fails, nothing written.
    const cancelled = () => {
      kill()
      if (settle()) reject(new Error('the caller cancelled it; the command was killed'))
    }
    signal?.addEventListener('abort', cancelled, { once: true })
    const finish = () => {
      if (!settle()) return
      resolve({
        command: redactCommand(command, env).text,
        exit_code: timedOut ? null : exitCode,
        duration_ms: Math.round(performance.now() - started),
        output_digest: `sha256:${hash.digest('hex')}`,
        timed_out: timedOut,
        output_tail: redact(tail, secrets),
        branch: null,
        commit: null,
      })
    }
    const timer = setTimeout(() => {
      timedOut = true
      kill()
      // Reported when the shell is gone (at once, after SIGKILL), without waiting on inherited pipes.
      drain ??= setTimeout(finish, DRAIN_MS)
    }, timerDelay(timeoutMs))
    const take = (chunk: Buffer) => {
      hash.update(chunk)
      tail = (tail + chunk.toString('utf8')).slice(-TAIL)
    }
    child.stdout.on('data', take)
    child.stderr.on('data', take)
    child.on('error', (e) => {
      if (settle()) reject(e)
    })
    child.on('exit', (code) => {
      exitCode = code
      // The command is done: its output gets a moment to drain, then the result is reported.
      if (!timedOut) clearTimeout(timer)
      drain = setTimeout(finish, DRAIN_MS)
    })
    child.on('close', finish)
  })
}
