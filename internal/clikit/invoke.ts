// invoke(): the one dispatcher behind the CLI, the MCP server and the tests
// (COMPATIBILITY.md). Order: --help → parse and reject unknown flags → refuse an
// undeclared --json → other usage problems → grant gate → run → render.

import { FailureError, RefusedError, UsageError } from '../base/errors.js'
import type { TokenVia } from '../domain/identity/identity.js'
import type { Identity } from '../format/model.js'
import type { Store } from '../store/store.js'
import { deprecationWarning, flagRenames } from './alias.js'
import { type Command, type CommandEntry, callMutates, type Input, type Refusal } from './command.js'
import type { BoardHandle, Context, Env, McpHttpHandle, Services, Stdio } from './context.js'
import { closestOf, correctedCommands } from './didyoumean.js'
import { codeOfKind, exitCodeOf } from './exit.js'
import { GLOBAL_FLAGS, nearest, parseArgv } from './flags.js'
import { commandHelp, familyHelp, helpWidth, usageOf } from './help.js'
import { bufferIO, colorEnabled, type IO, makeNotes, type Out, terminalWidth } from './io.js'
import { envelopeOf, renderJSON, writeHumanError, writeJSON } from './render.js'
import { guide } from './suggest.js'
import { textGate } from './text.js'

export interface Runtime {
  readonly io: IO
  readonly env: Env
  readonly cwd: string
  readonly now: () => Date
  readonly services: Services
  readonly table: readonly CommandEntry[]
  /** A pre-bound identity (the MCP server binds it once at launch). */
  readonly identity?: Identity
  /**
   * How the identity's token arrived, named in an identity refusal with what its sender can do: DACLI_AGENT when
   * absent; the bearer token for the calls of an HTTP session (`mcp serve --http`).
   */
  readonly tokenVia?: TokenVia
  /** The raw standard streams (only `mcp serve` uses them; the bin passes them). */
  readonly stdio?: Stdio
  /**
   * The arguments whose bytes were not UTF-8 (the bin reads them from the raw command line; Node's decoding put
   * U+FFFD in their place): refused, never stored replaced.
   */
  readonly notUtf8?: ReadonlySet<string>
  /** The path of the executing bin (for reports that name it), when known. */
  readonly bin?: string
  /** Stops a running command as Ctrl-C would (tests and embedders); the bin wires `onInterrupt` instead. */
  readonly signal?: AbortSignal
  /**
   * Aborts when the caller gave up on this one invocation (an MCP client's `notifications/cancelled`, its session
   * closing): the work it waits on stops (ctx.cancel). Unlike `signal`, it lets no command run unbounded.
   */
  readonly cancel?: AbortSignal
  /** Called after a successful mutating command (autorecord). */
  readonly afterMutation?: (ctx: Context, command: CommandEntry, input: Input, data: unknown) => Promise<void>
  /**
   * Run `stop` when the user interrupts the process (Ctrl-C, SIGTERM): long-running servers (`board`) register
   * here and the bin wires it to the signals. Absent, no long-running server may start.
   */
  readonly onInterrupt?: (stop: () => void) => void
  /**
   * Called when this process starts a long-running server (`mcp serve`, over stdio or HTTP, and `board`), before it
   * serves: the bin tunes the process for a long life (cmd/dacli.ts, a smaller heap). Absent in tests and embedders.
   */
  readonly longLived?: () => Promise<void>
}

export interface Outcome {
  exitCode: number
  /** The document a successful command produced (also what MCP returns). */
  data?: unknown
  /** The error/v1 envelope of a failed command. */
  error?: ReturnType<typeof envelopeOf>
  /** What a `refused` verdict said beyond its report (exit 3 with the report in `data`). */
  refusal?: Refusal
}

function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined
  return () => {
    p ??= f()
    return p
  }
}

/** A required argument not given: exit 2, pointing at the command's help (as a missing flag does). */
const missingArgument = (entry: CommandEntry, name: string) =>
  new UsageError(`missing argument <${name}>`, { details: { missing: [name] }, next: [`dacli ${entry.path} --help`] })

/** Bind positional tokens to the declared arguments. */
function bindArgs(
  entry: CommandEntry,
  positionals: readonly string[],
  argv: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {}
  let i = 0
  for (const a of entry.args) {
    if (a.rest) {
      const words = positionals.slice(i)
      i = positionals.length
      const spaced = a.list === true ? words.find((w) => /\s/.test(w)) : undefined
      if (spaced !== undefined) {
        throw new UsageError(
          `<${a.name}> is one reference per argument, and ${JSON.stringify(spaced.slice(0, 120))} holds whitespace (a reference has none)`,
          { details: { argument: a.name, value: spaced.slice(0, 200) }, next: [`dacli ${entry.path} --help`] },
        )
      }
      if (words.length > 0) out[a.name] = words.join(' ')
      else if (a.required) throw missingArgument(entry, a.name)
      continue
    }
    const v = positionals[i]
    if (v === undefined) {
      if (a.required) throw missingArgument(entry, a.name)
      continue
    }
    out[a.name] = v
    i++
  }
  if (i < positionals.length) {
    const extra = positionals.slice(i)
    // dacli has one short flag (-h): a `-m` here was most likely meant as a long flag.
    const known = Object.keys(entry.flags)
    const hints = extra
      .filter((e) => /^-[A-Za-z]/.test(e))
      .map((e) => [e, longFlagFor(e, known)] as const)
      .filter((x): x is readonly [string, string] => x[1] !== null)
    const why = extra.some((e) => /^-[A-Za-z]/.test(e))
      ? ` (dacli has no one-letter flags${hints.map(([e, h]) => `; ${e} is perhaps --${h}`).join('')}; text that starts with - goes after --)`
      : ''
    throw new UsageError(
      `unexpected argument${extra.length > 1 ? 's' : ''}: ${extra.map((e) => JSON.stringify(e)).join(' ')}${why}`,
      {
        details: { unexpected: extra },
        ...(hints.length > 0 ? { suggestions: [fixedShort(entry, argv, hints)] } : {}),
      },
    )
  }
  return out
}

/** Run one command; `via` is the old path it was called by (a declared alias, alias.ts). */
export async function invoke(
  entry: CommandEntry,
  argv: readonly string[],
  rt: Runtime,
  via?: string,
): Promise<Outcome> {
  const parsed = parseArgv(argv, entry.flags, flagRenames(entry), entry.params !== undefined)
  const json = parsed.json
  const quiet = parsed.flags.quiet === true
  const color = colorEnabled(rt.io.stdoutIsTTY, rt.env)
  const errColor = colorEnabled(rt.io.stderrIsTTY, rt.env)

  if (parsed.help) {
    // Under --json, help is a document too: the one `help <path> --json` prints (catalog/v1), as every answer is.
    const helpEntry = json ? rt.table.find((c) => c.path === 'help') : undefined
    if (helpEntry !== undefined && helpEntry !== entry)
      return invoke(helpEntry, [...entry.path.split(' '), '--json'], rt)
    // The table may carry only what dispatch needs; the module has the long help texts.
    rt.io.stdout.write(commandHelp(await entry.load(), helpWidth(rt.io, rt.env)))
    return { exitCode: 0, data: null }
  }

  let opened: Promise<Store> | undefined
  const store = () => {
    opened ??= rt.services.store(rt.cwd, rt.env, rt.now)
    return opened
  }
  // A server (mcp serve) binds its identity at launch; every call still re-resolves it, so an identity
  // retired meanwhile (or one whose ancestor was) is refused from its next call on.
  const bound = rt.identity
  const identity = once(async () => {
    const { identityOf, VIA_ENV } = await import('../domain/identity/identity.js')
    const via = rt.tokenVia ?? VIA_ENV
    const who = await identityOf(await store(), via)
    if (bound !== undefined && who.id !== bound.id) {
      throw new RefusedError(
        'identity',
        `this server was started as ${bound.id}, but its token now resolves to ${who.id}`,
        {
          details: { bound: bound.id, resolved: who.id },
          next: [via.rebind],
        },
      )
    }
    return who
  })
  // A long-running server's shared memory of the workspace (Services.sharedStore), once the process is set up for a
  // long life (Runtime.longLived).
  const serverStores = async () => {
    await rt.longLived?.()
    return rt.services.sharedStore?.()
  }
  // A streaming command's lines: JSON with its --jsonl, people's lines otherwise, nothing under --json.
  const jsonl = entry.streams !== undefined && parsed.flags.jsonl === true
  let streamOut: Out | null = null
  let interrupted: AbortController | null = null
  // Under --json a failure's stderr is its one error envelope (contract §4): a command's notes and warnings wait for
  // its outcome, written after the document when it succeeds, dropped when it fails. A streaming command's are not
  // held (it may run for hours).
  const held: string[] | null = json && entry.streams === undefined ? [] : null
  const notes = makeNotes(held === null ? rt.io.stderr : { write: (t: string) => void held.push(t) }, {
    quiet,
    json,
    color: errColor,
    tty: rt.io.stderrIsTTY,
    width: terminalWidth(rt.io.stderrIsTTY, rt.io.stderrColumns ?? rt.io.columns, rt.env),
  })
  // An old name (alias.ts): one warning line each on stderr; under --json only once the command succeeded, so a
  // failure's stderr stays the one error envelope.
  const deprecated = (entry.aliases ?? [])
    .filter((a) => a.old === via || (a.old.startsWith('--') && parsed.renamed.includes(a.old.slice(2))))
    .map((a) => deprecationWarning(entry, a))
  const warnDeprecated = () => {
    for (const w of deprecated) notes.warn(w)
  }
  if (!json) warnDeprecated()
  const ctx: Context = {
    width: helpWidth(rt.io, rt.env),
    emit(doc, human) {
      if (json) {
        if (entry.jsonStreams === true) rt.io.stdout.write(renderJSON(doc))
        return
      }
      if (jsonl) rt.io.stdout.write(renderJSON(doc))
      else if (streamOut !== null) human(streamOut)
    },
    async dispatch(path, args) {
      const target = rt.table.find((c) => c.path === path)
      if (target === undefined) throw new FailureError(`no command "${path}" in the table`)
      const io = bufferIO()
      const out = await invoke(target, args, { ...rt, io })
      return { exitCode: out.exitCode, data: out.data, error: out.error ?? null, stdout: io.out(), stderr: io.err() }
    },
    interrupt() {
      if (rt.signal !== undefined) return rt.signal
      if (rt.onInterrupt === undefined) return null
      if (interrupted === null) {
        const ac = new AbortController()
        interrupted = ac
        rt.onInterrupt(() => ac.abort())
      }
      return interrupted.signal
    },
    notes,
    cancel: rt.cancel ?? null,
    cwd: rt.cwd,
    env: rt.env,
    now: rt.now,
    system: rt.services.system,
    json,
    identity,
    store,
    documents: once(() => rt.services.documents()),
    mcpSurface: once(async () => (rt.services.mcpTools ? rt.services.mcpTools() : null)),
    git: once(async () => {
      if (rt.services.git === undefined) throw new FailureError('git support is not wired into this runtime')
      return rt.services.git(rt.cwd, rt.env)
    }),
    table: rt.table,
    commandPath: entry.path,
    bin: rt.bin ?? null,
    mcpServe: async (opts) => {
      if (rt.stdio === undefined || rt.services.mcpServe === undefined) {
        throw new FailureError('mcp serve needs the standard streams and the MCP server; run it from the bin')
      }
      // A tool call is not the bin's own run: Ctrl-C of the server must not become its interrupt, or a command
      // that runs until interrupted (watch, record sync --watch) would hold the call forever instead of refusing.
      const { io: _io, stdio, onInterrupt, signal: _signal, ...runtime } = rt
      const log = (line: string) => rt.io.stderr.write(`${line}\n`)
      const shared = await serverStores()
      const services = shared === undefined ? rt.services : { ...rt.services, store: shared.open }
      try {
        return await rt.services.mcpServe({
          ...opts,
          stdio,
          log,
          ...(onInterrupt === undefined ? {} : { onStop: onInterrupt }),
          runtime: { ...runtime, services, identity: await identity() },
        })
      } finally {
        shared?.release()
      }
    },
    mcpServeHttp: async (opts) => {
      if (rt.onInterrupt === undefined || rt.services.mcpServeHttp === undefined) {
        throw new FailureError(`${entry.path} --http serves until interrupted; run it from the dacli bin`)
      }
      const { io: _io, stdio: _stdio, onInterrupt, identity: _bound, ...runtime } = rt
      const log = (line: string) => rt.io.stderr.write(`${line}\n`)
      // Every session's calls share one memory of the workspace (Services.sharedStore), as the board's do.
      const shared = await serverStores()
      const services = shared === undefined ? rt.services : { ...rt.services, store: shared.open }
      const { identityOf, VIA_BEARER } = await import('../domain/identity/identity.js')
      const { launch, ...served } = opts
      // A bearer token is resolved as DACLI_AGENT is: the launch token stands for the launching identity (the
      // server's own env), any other is an agent's token and the call runs with DACLI_AGENT set to it.
      const authenticate = async (token: string) => {
        // Either way the caller sent a header: a refusal of a later call names the bearer token, not DACLI_AGENT.
        if (launch.accepts(token)) return { identity: launch.identity, env: rt.env, via: VIA_BEARER }
        const env = { ...rt.env, DACLI_AGENT: token }
        return {
          identity: await identityOf(await services.store(rt.cwd, env, rt.now), VIA_BEARER),
          env,
          via: VIA_BEARER,
        }
      }
      let handle: McpHttpHandle
      try {
        handle = await rt.services.mcpServeHttp({
          ...served,
          log,
          authenticate,
          warmAs: { identity: launch.identity, env: rt.env },
          runtime: { ...runtime, services },
        })
      } catch (e) {
        shared?.release()
        throw e
      }
      const close = handle.close.bind(handle)
      const stopped: McpHttpHandle = {
        ...handle,
        close: async () => {
          await close()
          shared?.release()
        },
      }
      onInterrupt(() => void stopped.close())
      return stopped
    },
    boardServe: async (opts) => {
      if (rt.onInterrupt === undefined || rt.services.boardServe === undefined) {
        throw new FailureError(`${entry.path} serves until interrupted; run it from the dacli bin in a terminal`)
      }
      const { io: _io, stdio: _stdio, onInterrupt, ...runtime } = rt
      const log = (line: string) => rt.io.stderr.write(`${line}\n`)
      // Every API call and action of the board shares one memory of the workspace (Services.sharedStore).
      const shared = await serverStores()
      const services = shared === undefined ? rt.services : { ...rt.services, store: shared.open }
      let handle: BoardHandle
      try {
        handle = await rt.services.boardServe({ ...opts, log, runtime: { ...runtime, services } })
      } catch (e) {
        shared?.release()
        throw e
      }
      const close = handle.close.bind(handle)
      const served: BoardHandle = {
        ...handle,
        close: async () => {
          await close()
          shared?.release()
        },
      }
      onInterrupt(() => void served.close())
      return served
    },
  }

  try {
    const garbled = argv.find((a) => rt.notUtf8?.has(a) === true)
    if (garbled !== undefined) {
      throw new UsageError(
        `an argument is not valid UTF-8 (its bad bytes show as \uFFFD): "${garbled.slice(0, 80)}"; dacli never stores replaced bytes`,
        { details: { argument: garbled.slice(0, 200) }, next: [`dacli ${entry.path} --help`] },
      )
    }
    if (parsed.unknown.length > 0) {
      const known = [...Object.keys(entry.flags), ...Object.keys(GLOBAL_FLAGS)]
      const hints = parsed.unknown
        .map((u) => [u, nearest(u.slice(2), known)] as const)
        .filter((x): x is readonly [string, string] => x[1] !== null)
      const msg = `unknown flag${parsed.unknown.length === 1 ? '' : 's'}: ${parsed.unknown.join(', ')}${hints.map(([, h]) => ` (did you mean --${h}?)`).join('')}`
      throw new UsageError(msg, {
        details: { unknown_flags: parsed.unknown },
        suggestions: hints.length > 0 ? [fixedCommand(entry, argv, hints)] : [],
        next: [`dacli ${entry.path} --help`],
      })
    }
    if (json && entry.json === null) {
      const honoring = rt.table
        .filter((c) => c.json !== null)
        .map((c) => c.path)
        .sort()
      throw new UsageError(`${entry.path} does not support --json`, {
        details: { json_commands: honoring },
        next: [`dacli ${entry.path} (without --json)`],
      })
    }
    if (parsed.problems.length > 0) {
      // The first bad value's facts at the top (`details.allowed` for an enum), every one under `invalid`.
      const [first] = parsed.invalid
      throw new UsageError(parsed.problems.join('; '), {
        details: first === undefined ? {} : { ...first, invalid: parsed.invalid },
        next: [`dacli ${entry.path} --help`],
      })
    }
    if (json && jsonl) {
      throw new UsageError(
        '--json and --jsonl exclude each other: --jsonl streams one line per item, --json prints one document at the end',
        {
          next: [`dacli ${entry.path} --jsonl`, `dacli ${entry.path} --json --timeout <DUR>`],
        },
      )
    }
    const args = bindArgs(entry, parsed.positionals, argv)
    const missing = Object.entries(entry.flags)
      .filter(([n, s]) => s.required && parsed.flags[n] === undefined)
      .map(([n]) => `--${n}`)
    if (missing.length > 0) {
      throw new UsageError(`missing required flag${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`, {
        details: { missing_flags: missing },
        next: [`dacli ${entry.path} --help`],
      })
    }
    const input: Input = Object.freeze({
      args: Object.freeze(args),
      flags: Object.freeze(parsed.flags),
      argv,
      params: Object.freeze(parsed.params),
    })

    if (!entry.standalone) {
      const who = await identity()
      if (callMutates(entry, parsed.flags) && !entry.proposes && !entry.anyGrant && who.grant !== 'rw') {
        throw new RefusedError('grant', `${entry.path} needs a read-write grant (${who.id} has ${who.grant})`, {
          details: { identity: who.id, grant: who.grant, required: 'rw' },
          next: [
            'ask an identity with a read-write grant to do this',
            'record what you found instead: dacli note add finding "<title>" --project <p>',
          ],
        })
      }
    }

    const command: Command = await entry.load()
    if (entry.streams !== undefined && !json && !jsonl) {
      const { makeOut } = await import('./out.js')
      streamOut = makeOut(rt.io.stdout, { color, width: terminalWidth(rt.io.stdoutIsTTY, rt.io.columns, rt.env) })
    }
    const result = await command.run(ctx, input)
    if (callMutates(entry, parsed.flags) && rt.afterMutation) await rt.afterMutation(ctx, entry, input, result.data)
    if (json) {
      // The newline on its own: a document of megabytes is never copied to add it (an MCP answer uses the text).
      writeJSON(result.data, (t) => rt.io.stdout.write(t))
      rt.io.stdout.write('\n')
      warnDeprecated()
      for (const t of held ?? []) rt.io.stderr.write(t)
    } else if (result.human || result.text !== undefined) {
      const width = terminalWidth(rt.io.stdoutIsTTY, rt.io.columns, rt.env)
      const text = result.text
      if (result.human === undefined && text !== undefined && width === null) {
        // Plain lines to a pipe: written as out.line writes them, without loading the table renderer.
        const { style, prepare, emit } = textGate(color)
        rt.io.stdout.write(`${emit(prepare(typeof text === 'function' ? text(style) : text))}\n`)
      } else {
        // The table renderer (and its Unicode width tables) loads only for human output.
        const { makeOut } = await import('./out.js')
        const out = makeOut(rt.io.stdout, { color, width })
        if (result.human) result.human(out)
        else if (text !== undefined) out.line(typeof text === 'function' ? text(out.style) : text)
      }
    }
    await flush(opened)
    // A refusal's way forward goes where every refusal's goes (stderr), so people see it the same way.
    if (!json && result.refusal !== undefined && result.refusal.next.length > 0)
      rt.io.stderr.write(`Next actions:\n${result.refusal.next.map((x) => `  ${x}\n`).join('')}`)
    return {
      exitCode: result.verdict ? codeOfKind(result.verdict) : 0,
      data: result.data,
      ...(result.refusal === undefined ? {} : { refusal: result.refusal }),
    }
  } catch (err) {
    await flush(opened)
    return reportError(rt, err, { json, usage: usageOf(entry), command: { path: entry.path, argv } })
  }
}

/** Write what the command's reads taught the store's caches: once per invocation, after its work. */
async function flush(opened: Promise<Store> | undefined): Promise<void> {
  if (opened === undefined) return
  const s = await opened.catch(() => null)
  s?.flush()
}

/** argv matches no command: a usage error (exit 2) with the nearest commands as suggestions; nothing runs. */
export function refuseUnknownCommand(rt: Runtime, argv: readonly string[]): Outcome {
  const g = guide(rt.table, argv)
  const err = new UsageError(g.message, {
    suggestions: g.suggestions,
    next: g.next,
    details: g.family === null ? {} : { family: g.family },
  })
  return reportError(rt, err, {
    json: argv.includes('--json'),
    usage: 'dacli <command> [arguments] [flags]  (dacli help)',
    ...(g.family === null
      ? {}
      : {
          before: `${familyHelp(g.family, rt.table, helpWidth(rt.io, rt.env))}\n`,
        }),
    // The family help printed first already lists what `suggestions` would.
    humanSuggestions: !g.listing,
  })
}

/**
 * The one way a failure reaches the user: the error/v1 envelope on stderr under `--json`, otherwise
 * `dacli: <message>` with suggestions, next actions and (on a usage error) the usage line; the exit code
 * comes from exitCodeOf. `before` is human text printed first (a family's command list).
 */
function reportError(
  rt: Pick<Runtime, 'io' | 'env'>,
  err: unknown,
  opts: {
    json: boolean
    usage: string
    before?: string
    /** The command that failed: a refused value with close known ones is answered with corrected commands. */
    command?: { path: string; argv: readonly string[] }
    /** false: human output leaves the suggestions out (printed another way); the envelope keeps them. */
    humanSuggestions?: boolean
  },
): Outcome {
  const debug = rt.env.DACLI_DEBUG === '1'
  const env = envelopeOf(err, debug)
  const near = closestOf(env.details)
  if (opts.command !== undefined && near !== null && env.suggestions.length === 0) {
    env.suggestions = correctedCommands(
      opts.command.path,
      opts.command.argv,
      near.given,
      near.closest.map((c) => c.value),
    )
  }
  if (opts.json) rt.io.stderr.write(renderJSON(env))
  else {
    if (opts.before !== undefined) rt.io.stderr.write(opts.before)
    const stack = debug && err instanceof Error ? err.stack : undefined
    const shown = opts.humanSuggestions === false ? { ...env, suggestions: [] } : env
    writeHumanError(
      rt.io.stderr,
      shown,
      opts.usage,
      colorEnabled(rt.io.stderrIsTTY, rt.env),
      stack,
      terminalWidth(rt.io.stderrIsTTY, rt.io.stderrColumns ?? rt.io.columns, rt.env),
    )
  }
  return { exitCode: exitCodeOf(err), error: env }
}

/** The long flag a short one stands for: the one declared flag starting with its letter, else none. */
function longFlagFor(short: string, known: readonly string[]): string | null {
  const letter = short.slice(1, 2)
  const hits = known.filter((k) => k.startsWith(letter) && !k.startsWith('no-'))
  return hits.length === 1 ? (hits[0] as string) : null
}

/** The caller's command line with each `-m` of `hints` written as the long flag it probably meant. */
function fixedShort(
  entry: CommandEntry,
  argv: readonly string[],
  hints: readonly (readonly [string, string])[],
): string {
  const fix = new Map(hints.map(([e, h]) => [e, `--${h}`]))
  const quote = (s: string) => (/^[\w./:@=,-]+$/.test(s) ? s : JSON.stringify(s))
  return ['dacli', ...entry.path.split(' '), ...argv.map((t) => fix.get(t) ?? quote(t))].join(' ')
}

/** The caller's command line with each near-miss flag replaced by the flag it probably meant. */
function fixedCommand(
  entry: CommandEntry,
  argv: readonly string[],
  hints: readonly (readonly [string, string])[],
): string {
  const fix = new Map(hints.map(([u, h]) => [u, `--${h}`]))
  const fixed = argv.map((t) => {
    if (!t.startsWith('--')) return t
    const eq = t.indexOf('=')
    const name = eq === -1 ? t : t.slice(0, eq)
    const f = fix.get(name)
    return f === undefined ? t : f + (eq === -1 ? '' : t.slice(eq))
  })
  const quote = (s: string) => (/^[\w./:@=,-]+$/.test(s) ? s : JSON.stringify(s))
  return ['dacli', ...entry.path.split(' '), ...fixed.map(quote)].join(' ')
}
