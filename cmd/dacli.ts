// The bin: with cmd/system.ts, the only code that touches `process`. argv, env,
// cwd and the standard streams go in; an exit code comes out.

import { fstatSync, readFileSync, statSync, writeSync } from 'node:fs'
import { main } from '../internal/cli/main.js'
import { manifest } from '../internal/cli/manifest.gen.js'
import { afterMutation, services } from './services.js'

// Output goes to file descriptors 1 and 2 with write(2), as the text is ready: creating `process.stdout` builds a
// stream (and loads node:net and node:stream behind it), about a tenth of a short command's whole run. A
// descriptor that is non-blocking and full (a pipe its reader drains slowly) hands the rest, and every later
// write, to the stream, which waits for the reader without spinning.
const streams = new Map<number, NodeJS.WriteStream>()

function writeOut(fd: number, data: string | Uint8Array): void {
  const open = streams.get(fd)
  if (open !== undefined) {
    open.write(data)
    return
  }
  const text = typeof data === 'string' ? data : ''
  let buf: Uint8Array | null = typeof data === 'string' ? null : data
  let done = 0
  for (;;) {
    try {
      if (buf === null) {
        done = writeSync(fd, text)
        if (done >= Buffer.byteLength(text)) return // all of it at once: the common case
        buf = Buffer.from(text)
      } else {
        done += writeSync(fd, buf, done)
        if (done >= buf.length) return
      }
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      // A closed pipe (`dacli task list | head`) is not an error worth a stack trace.
      if (code === 'EPIPE') process.exit(process.exitCode ?? 0)
      if (code !== 'EAGAIN') throw e
      const stream = quiet(fd === 2 ? process.stderr : process.stdout)
      streams.set(fd, stream)
      stream.write(buf === null ? text : buf.subarray(done))
      return
    }
  }
}

/** A stream whose reader went away ends the process quietly, with its exit code. */
function quiet(s: NodeJS.WriteStream): NodeJS.WriteStream {
  s.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw e
  })
  return s
}

/**
 * Is `fd` a terminal? Only a character device can be one, and /dev/null (where a script sends what it does not
 * read) is not: node:tty (and node:net behind it) loads only for another device.
 */
async function terminal(fd: number): Promise<boolean> {
  try {
    const st = fstatSync(fd)
    if (!st.isCharacterDevice() || st.rdev === statSync('/dev/null', { throwIfNoEntry: false })?.rdev) return false
  } catch {
    return false
  }
  return (await import('node:tty')).isatty(fd)
}

/**
 * The arguments whose bytes are not UTF-8. Node hands them over already decoded, each bad byte replaced by U+FFFD;
 * the raw bytes are in /proc/self/cmdline (Linux), read only when an argument holds that character.
 */
function notUtf8(args: readonly string[]): Set<string> {
  const out = new Set<string>()
  if (!args.some((a) => a.includes('\uFFFD'))) return out
  let raw: Buffer
  try {
    raw = readFileSync('/proc/self/cmdline')
  } catch {
    return out
  }
  const parts: Buffer[] = []
  for (let at = 0; at < raw.length; ) {
    const end = raw.indexOf(0, at)
    parts.push(raw.subarray(at, end === -1 ? raw.length : end))
    at = end === -1 ? raw.length : end + 1
  }
  const tail = parts.slice(-args.length)
  if (tail.length !== args.length) return out
  const strict = new TextDecoder('utf-8', { fatal: true })
  tail.forEach((bytes, i) => {
    try {
      strict.decode(bytes)
    } catch {
      out.add(args[i] as string)
    }
  })
  return out
}

/**
 * A server's heap, set when `mcp serve` or `board` starts (Runtime.longLived). V8 sizes its heap for a short burst:
 * the young generation grows to 16 MB semi-spaces once much survives, and the old generation may grow to several
 * times what is live before it is collected. A server lives long and allocates a little per call, so its young
 * generation stays at its first size and its old one grows by half what is live (both flags are read at every
 * collection; the young generation's largest size is fixed at start-up and cannot be lowered here). Measured at
 * 10,000 tasks (bench/mcp-memory.mjs, bench/mcp-latency.mjs --after-edit): resident memory after the calls about
 * 100 MB where it was 130-156 MB, with no change in latency beyond the run-to-run noise.
 */
async function serverHeap(): Promise<void> {
  const v8 = await import('node:v8') // loaded here only: node:v8 loads the streams library (~3 ms of every start)
  v8.setFlagsFromString('--semi-space-growth-factor=1')
  v8.setFlagsFromString('--heap-growing-percent=50')
}

/** Run the command line (the bundle loads as CommonJS, which has no top-level await). */
async function start(): Promise<void> {
  const [stdoutIsTTY, stderrIsTTY] = [await terminal(1), await terminal(2)]
  // A terminal's stream is made (for its width); a closed one is no stack trace either.
  if (stdoutIsTTY) quiet(process.stdout)
  if (stderrIsTTY) quiet(process.stderr)

  const args = process.argv.slice(2)
  let cwd: string
  try {
    cwd = process.cwd()
  } catch {
    // Started in a folder that was deleted (a removed worktree, say): one line, exit 1.
    writeOut(2, 'dacli: the current directory no longer exists (it was deleted): cd to an existing directory\n')
    process.exitCode = 1
    return
  }
  const outcome = await main(args, {
    notUtf8: notUtf8(args),
    io: {
      stdout: { write: (t) => writeOut(1, t) },
      stderr: { write: (t) => writeOut(2, t) },
      stdoutIsTTY,
      stderrIsTTY,
      ...(stdoutIsTTY && process.stdout.columns ? { columns: process.stdout.columns } : {}),
      ...(stderrIsTTY && process.stderr.columns ? { stderrColumns: process.stderr.columns } : {}),
    },
    env: process.env,
    cwd,
    now: () => new Date(),
    services,
    table: manifest,
    ...(process.argv[1] ? { bin: process.argv[1] } : {}),
    afterMutation,
    // Made when `mcp serve` asks for them (a stream for stdin costs a few milliseconds more).
    stdio: {
      get stdin() {
        return process.stdin
      },
      get stdout() {
        return process.stdout
      },
    },
    longLived: serverHeap,
    // Ctrl-C stops a long-running server cleanly (exit 0); a second one ends the process at once.
    onInterrupt: (stop) => {
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    },
  })
  process.exitCode = outcome.exitCode
}

// What nothing else caught is a bug: one line saying so and exit 1, the stack only under DACLI_DEBUG=1.
process.on('uncaughtException', (e: unknown) => {
  const err = e instanceof Error ? e : new Error(String(e))
  const stack = process.env.DACLI_DEBUG === '1' && err.stack ? `${err.stack}\n` : ''
  try {
    writeSync(
      2,
      `dacli: internal error: ${err.message} (this is a bug in dacli; set DACLI_DEBUG=1 for the stack trace)\n${stack}`,
    )
  } catch {
    // stderr is gone too: the exit code still says it.
  }
  process.exit(1)
})

void start()
