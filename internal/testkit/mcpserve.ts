// `dacli mcp serve` driven line by line in process: main() runs the real command
// (identity binding, banner, the stdio transport) on in-memory streams.

import { PassThrough } from 'node:stream'
import { afterMutation, services } from '../../cmd/services.js'
import { main } from '../cli/main.js'
import { bufferIO } from '../clikit/io.js'
import { baseEnv, table as eagerTable } from './ws.js'

/** `dacli mcp serve …` run by main() in process, its stdio on in-memory streams, spoken to line by line. */
export interface Served {
  /** Write one line to the server's stdin (an object is serialized). */
  send(message: unknown): void
  /** The response with this id (waits for it). */
  response(id: string | number | null): Promise<any>
  /** Every line the server wrote on its stdout so far. */
  lines(): string[]
  /** Close stdin; resolves with main()'s outcome. */
  end(): Promise<{ exitCode: number; stderr: string; stdout: string }>
  /** main()'s outcome when it returns on its own (a refused launch). */
  readonly done: Promise<{ exitCode: number; stderr: string; stdout: string }>
  /** Whether anything is listening on stdin. */
  listening(): boolean
}

export function serveInProcess(
  root: string,
  argv: readonly string[] = [],
  opts: { as?: string; onInterrupt?: (stop: () => void) => void; env?: Record<string, string | undefined> } = {},
): Served {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const io = bufferIO()
  const env = baseEnv()
  if (opts.as !== undefined) env.DACLI_AGENT = opts.as
  Object.assign(env, opts.env ?? {})
  let text = ''
  const waiters: (() => void)[] = []
  stdout.on('data', (d: Buffer) => {
    text += d.toString('utf8')
    for (const w of waiters.splice(0)) w()
  })
  const done = main(['mcp', 'serve', ...argv], {
    io,
    env,
    cwd: root,
    now: () => new Date(),
    services,
    table: eagerTable,
    afterMutation,
    stdio: { stdin, stdout },
    ...(opts.onInterrupt === undefined ? {} : { onInterrupt: opts.onInterrupt }),
  }).then((o) => ({ exitCode: o.exitCode, stderr: io.err(), stdout: io.out() }))
  const lines = () => text.split('\n').filter((l) => l !== '')
  const find = (id: string | number | null) =>
    lines()
      .map((l) => JSON.parse(l))
      .find((m) => m.id === id)
  return {
    send: (m) => stdin.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`),
    async response(id) {
      for (;;) {
        const hit = find(id)
        if (hit !== undefined) return hit
        await new Promise<void>((resolve) => waiters.push(resolve))
      }
    },
    lines,
    end() {
      stdin.end()
      return done
    },
    done,
    listening: () => stdin.listenerCount('data') > 0,
  }
}

/** The initialize handshake, as a client sends it. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'line-client', version: '0' } },
}

export const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
})
