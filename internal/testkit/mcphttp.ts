// `dacli mcp serve --http` as a real process of the built bin on 127.0.0.1, for tests that speak HTTP to it.

import { type ChildProcess, spawn } from 'node:child_process'
import { BIN, baseEnv } from './ws.js'

export interface Served {
  readonly root: string
  readonly url: string
  readonly token: string
  readonly child: ChildProcess
  stderr(): string
  /** Resolves with the exit code once the process ended. */
  readonly exited: Promise<number | null>
}

/** Every server started, for a test file to kill in its afterAll (killServed). */
const running: Served[] = []

/** Start the built bin with `mcp serve --http 127.0.0.1:0 …` in `root`; resolves once its URL is printed. */
export async function serveHttp(root: string, args: string[] = [], as?: string): Promise<Served> {
  const env = { ...baseEnv(), ...(as === undefined ? {} : { DACLI_AGENT: as }) }
  const listen = args.includes('--http') ? [] : ['--http', '127.0.0.1:0']
  const child = spawn(process.execPath, [BIN, 'mcp', 'serve', ...listen, ...args], { cwd: root, env })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => {
    out += d
  })
  child.stderr.on('data', (d) => {
    err += d
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const deadline = Date.now() + 15_000
  const quiet = args.includes('--quiet')
  while (!(out.includes('\n') && (quiet || /shown once\): \w+\n/.test(err)))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start: ${err}`)
    await new Promise((r) => setTimeout(r, 25))
  }
  const s: Served = {
    root,
    url: out.trim(),
    token: /shown once\): (\w+)\n/.exec(err)?.[1] ?? '',
    child,
    stderr: () => err,
    exited,
  }
  running.push(s)
  return s
}

/** Kill every server serveHttp started (a test file's afterAll). */
export function killServed(): void {
  for (const s of running.splice(0)) s.child.kill('SIGKILL')
}
