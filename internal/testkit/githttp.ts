// Smart HTTP for tests: `git http-backend` (a CGI program that ships with git)
// behind a loopback HTTP server, so remote claims are exercised over the
// transport real remotes use. The server runs in a child
// process (githttp-server.mjs): tests call git synchronously, which would
// otherwise block a server living in the test's own event loop.

import { type ChildProcess, spawn } from 'node:child_process'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>/<name>` for a bare repository `<root>/<name>`. */
  url(name: string): string
  /** Stop the server (the remote becomes unreachable). */
  close(): Promise<void>
}

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'githttp-server.mjs')

/** Serve the bare repositories under `root` over smart HTTP on 127.0.0.1 (a random free port). */
export async function gitHttpServer(root: string): Promise<GitHttpServer> {
  const child: ChildProcess = spawn(process.execPath, [SCRIPT, root], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise<number>((resolve, reject) => {
    let text = ''
    child.stdout?.on('data', (d: Buffer) => {
      text += d.toString()
      const m = /^(\d+)\n/.exec(text)
      if (m) resolve(Number(m[1]))
    })
    child.on('exit', (code) => reject(new Error(`the git HTTP server exited (${code})`)))
  })
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}
