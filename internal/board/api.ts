// `GET /api/<command path>?<flags>` and the page's actions, through the same
// command table and invoke() as the CLI: the answer is exactly the document
// `dacli <command path> --json` prints (or its error/v1 envelope).

import { NotFoundError, type RefusedError, UsageError } from '../base/errors.js'
import type { CommandEntry } from '../clikit/command.js'
import { typedArgv } from '../clikit/didyoumean.js'
import { invoke, type Runtime } from '../clikit/invoke.js'
import { bufferIO } from '../clikit/io.js'
import { envelopeOf } from '../clikit/render.js'

/**
 * What the page may change, each through the command of the same name: create a task; edit its title, priority,
 * estimate and criteria; claim, release, block, unblock, reopen (the status moves of drag-and-drop and the
 * keyboard); tick a criterion; done; add a note; answer an open question.
 */
export const ACTIONS: ReadonlySet<string> = new Set([
  'task add',
  'task edit',
  'task claim',
  'task release',
  'task block',
  'task unblock',
  'task reopen',
  'task check',
  'task done',
  'note add',
  'answer',
])
/** Commands that never run through the API: servers. */
const NEVER: ReadonlySet<string> = new Set(['board', 'mcp serve'])

const STATUS_OF_EXIT: Record<number, number> = { 0: 200, 1: 500, 2: 400, 3: 403, 4: 404, 5: 409 }

export interface Answer {
  status: number
  /** The exit code the CLI would have given. */
  exit: number
  /** One JSON document (newline-terminated). */
  body: string
}

/** The error/v1 answer for a typed error, by the kernel's one mapping (envelopeOf: exit code, kind, details). */
export function errorAnswer(err: UsageError | RefusedError | NotFoundError, status: number): Answer {
  const env = envelopeOf(err, false)
  return { status, exit: env.exit_code, body: `${JSON.stringify(env)}\n` }
}

const CATALOG = 'GET /api/catalog lists the commands; read ones answer GET, the page’s actions answer POST'

/** A usage answer in the error/v1 shape, for requests that never reach a command. */
export function usageAnswer(message: string, status = 400, details: Record<string, unknown> = {}): Answer {
  return errorAnswer(new UsageError(message, { details, next: [CATALOG] }), status)
}

/** No command at an /api/ path: 404 and exit 4, as for anything else not found. */
export const noCommandAnswer = (path: string): Answer =>
  errorAnswer(
    new NotFoundError(`no command at ${path.slice(0, 200)}`, {
      details: { path: path.slice(0, 200) },
      next: [CATALOG],
    }),
    404,
  )

/** The command a path names (`task/list` → `task list`), exactly, or null. */
export function commandAt(table: readonly CommandEntry[], segments: readonly string[]): CommandEntry | null {
  if (segments.length === 0 || segments.length > 4) return null
  if (!segments.every((s) => /^[a-z][a-z0-9-]{0,40}$/.test(s))) return null
  const path = segments.join(' ')
  if (NEVER.has(path)) return null
  return table.find((c) => c.path === path) ?? null
}

export type Params = readonly (readonly [string, string])[]

const KEY = /^[a-z][a-z0-9-]{0,40}$/
const MAX_VALUE = 16_384

/**
 * argv for a command from named parameters: declared arguments become positionals, everything else flags (the
 * parser then refuses what the command does not declare); a value that starts with `-` is never read as a flag.
 */
export function argvOf(entry: CommandEntry, params: Params): { argv: string[] } | { problem: string } {
  const positional = new Map<string, string>()
  const flags: string[] = []
  for (const [key, value] of params) {
    if (!KEY.test(key)) return { problem: `"${key.slice(0, 60)}" is not a flag or argument name` }
    if (value.length > MAX_VALUE) return { problem: `the value of ${key} is longer than ${MAX_VALUE} characters` }
    if (key === 'json' || key === 'help' || key === 'quiet')
      return { problem: `--${key} is implied or not available here` }
    if (entry.args.some((a) => a.name === key)) {
      if (positional.has(key)) return { problem: `argument ${key} was given twice` }
      positional.set(key, value)
      continue
    }
    const spec = entry.flags[key]
    if (spec?.type === 'bool') flags.push(value === '' || value === 'true' ? `--${key}` : `--${key}=${value}`)
    else flags.push(`--${key}=${value}`)
  }
  const words: string[] = []
  for (const a of entry.args) {
    const v = positional.get(a.name)
    if (v === undefined) break
    words.push(v)
  }
  if (words.length < positional.size) return { problem: 'arguments must be given in order (an earlier one is missing)' }
  return { argv: typedArgv(entry.flags, flags, words) }
}

/**
 * The flags among `params` whose value is a command dacli would run (`--verify`), or an empty list. The board
 * never runs a program for whoever holds its token (SECURITY.md): such a call is refused whatever the command.
 */
export function executingFlags(entry: CommandEntry, params: Params): string[] {
  return [...new Set(params.map(([k]) => k).filter((k) => entry.flags[k]?.executes === true))].map((k) => `--${k}`)
}

/** Run one command as the CLI would with --json, in process, and answer with its document. */
export async function run(rt: Omit<Runtime, 'io'>, entry: CommandEntry, argv: readonly string[]): Promise<Answer> {
  const io = bufferIO()
  const out = await invoke(entry, argv, { ...rt, io })
  const stdout = io.out()
  const status = STATUS_OF_EXIT[out.exitCode] ?? 500
  // A verdict command (capabilities --require, doctor --strict) prints its report whatever the verdict: the HTTP
  // status still carries the exit code, as it does for an error envelope.
  if (stdout !== '') return { status, exit: out.exitCode, body: stdout }
  const err = io.err()
  const body = err.startsWith('{') ? err : `${JSON.stringify(out.error ?? { message: err })}\n`
  return { status, exit: out.exitCode, body }
}

/** Parameters from an action's JSON body: `{"args": {...}, "flags": {...}}` with strings, numbers, booleans or lists. */
export function paramsOfBody(body: unknown): Params | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null
  const out: [string, string][] = []
  const { args = {}, flags = {}, ...rest } = body as Record<string, unknown>
  if (Object.keys(rest).length > 0) return null
  for (const group of [args, flags]) {
    if (typeof group !== 'object' || group === null || Array.isArray(group)) return null
    for (const [k, v] of Object.entries(group)) {
      const values = Array.isArray(v) ? v : [v]
      for (const x of values) {
        if (typeof x === 'string' || typeof x === 'number') out.push([k, String(x)])
        else if (typeof x === 'boolean') out.push([k, String(x)])
        else return null
      }
    }
  }
  return out
}
