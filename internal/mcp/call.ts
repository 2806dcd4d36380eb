// One tool call: validate the arguments, build the argv, run it through the same
// invoke() the bin uses with a fresh buffered IO (nothing reaches the protocol
// stream), and map the outcome to an MCP result. Never throws.

import { RefusedError } from '../base/errors.js'
import { main } from '../cli/main.js'
import type { CommandEntry } from '../clikit/command.js'
import { matchCommand } from '../clikit/dispatch.js'
import { type InvalidValue, usage } from '../clikit/flags.js'
import { invoke, type Outcome, type Runtime } from '../clikit/invoke.js'
import { bufferIO } from '../clikit/io.js'
import { envelopeOf } from '../clikit/render.js'
import { argvOf, checkSchemaVersion, cliArgv, EXPECTED, type InvalidParam, sent } from './args.js'
import { resultOf, type ToolResult, thrownResult } from './results.js'
import { type BuiltTool, buildTool, type JSONSchema, type Param } from './schema.js'
import { CLI_TOOL, type Profile, TOOL_SCHEMA_VERSION, tier1Of } from './tools.js'

/** Everything a tool call needs except its IO, which is fresh for every call. */
export type CallRuntime = Omit<Runtime, 'io'>

export interface Toolset {
  readonly profile: Profile
  readonly tools: readonly BuiltTool[]
  /** tools/list: the Tier-1 definitions, then `cli`. */
  readonly definitions: readonly Record<string, unknown>[]
}

function cliDefinition(table: readonly CommandEntry[]) {
  const inputSchema: JSONSchema & { type: 'object' } = {
    type: 'object',
    properties: {
      schema_version: { const: TOOL_SCHEMA_VERSION },
      argv: {
        type: 'array',
        items: { type: 'string' },
        minItems: 1,
        description: 'the words after `dacli`',
      },
    },
    required: ['schema_version', 'argv'],
  }
  return {
    name: CLI_TOOL,
    description: `Any of the ${table.length - 1} dacli commands (["help","--all"] lists them): its --json document.`,
    inputSchema,
    // No annotations: MCP's defaults are what it is (it may write and remove, and a repeat may differ); written out,
    // they would cost every agent's context and say nothing more.
  }
}

export function buildToolset(table: readonly CommandEntry[], profile: Profile): Toolset {
  const tools = tier1Of(profile).map((d) => buildTool(d, table))
  return { profile, tools, definitions: [...tools.map((t) => t.definition), cliDefinition(table)] }
}

/** Whether the toolset serves a tool of this name (an unknown one is a protocol error, server.ts). */
export const serves = (set: Toolset, name: string): boolean =>
  name === CLI_TOOL || set.tools.some((t) => t.name === name)

const fail = (err: unknown, next: string[] = []): ToolResult => {
  const env = envelopeOf(err, false)
  // A refusal says what to do instead; the hint about input schemas is for a call that was malformed.
  return thrownResult(env.exit_code === 3 ? env : { ...env, next_actions: [...env.next_actions, ...next] })
}

/** Each flag the tool takes, by the parameter that carries it (`--so-that` is `so_that`, `--archive` is `archive_classes`). */
function paramNamesOf(params: readonly Param[]): ReadonlyMap<string, string> {
  const out = new Map<string, string>()
  for (const p of params) if ('flag' in p.source && p.source.part !== 'value') out.set(p.source.flag, p.name)
  return out
}

/** What a flag's bad value should have been, as `invalid_params` says it for a value of the wrong type. */
function expectedOf(v: InvalidValue): string {
  if (v.allowed !== undefined) return `one of ${v.allowed.join(', ')}`
  if (v.expected === 'integer') {
    if (v.min !== undefined && v.max !== undefined) return `an integer from ${v.min} to ${v.max}`
    if (v.min !== undefined) return `an integer of at least ${v.min}`
    if (v.max !== undefined) return `an integer of at most ${v.max}`
    return EXPECTED.integer
  }
  if (v.expected === 'duration') return EXPECTED.duration
  return v.expected === undefined ? 'another value' : `a value of type ${v.expected}`
}

/** The words of one tool call: each flag's parameter name, and the arguments as sent. */
interface CallWords {
  readonly names: ReadonlyMap<string, string>
  readonly args: Readonly<Record<string, unknown>>
}

/** What a tool call's caller reads instead of `dacli … --help`: its input schema. */
const SEE_SCHEMA = 'call tools/list for the tools and their input schemas'

/**
 * A failure's words as the tool's caller knows them: `--limit` named as `limit`, `--archive` as `archive_classes`,
 * in the message and in `details` (a command line — `dacli …` up to a backtick, `; `, `. ` or a line's end — is left
 * as the CLI reads it, and so are suggestions). A parameter whose value the command refused (out of range, not one
 * of an enum's values, not a duration) is listed in `details.invalid_params` as a value of the wrong type is —
 * field, what was expected, what was sent — and the next action is the tool's schema, not the command's help.
 */
function inToolWords(out: Outcome, call: CallWords | null): Outcome {
  if (call === null || (out.error === undefined && out.refusal === undefined)) return out
  const words = (text: string) =>
    text.replace(/dacli [^`;\n]*?(?=`|; |\. |\n|$)|(?<![\w-])--([a-z][a-z0-9-]*)/g, (m, f?: string) =>
      f === undefined ? m : (call.names.get(f) ?? m),
    )
  const deep = (v: unknown): unknown =>
    typeof v === 'string'
      ? words(v)
      : Array.isArray(v)
        ? v.map(deep)
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep(x)]))
          : v
  const refusal = out.refusal === undefined ? {} : { refusal: { ...out.refusal, reason: words(out.refusal.reason) } }
  if (out.error === undefined) return { ...out, ...refusal }
  const details = deep(out.error.details) as Record<string, unknown>
  const facts = out.error.details.invalid
  const invalid: InvalidParam[] = Array.isArray(facts)
    ? facts.map((fact: InvalidValue) => {
        const field = call.names.get(fact.flag.replace(/^--/, '')) ?? fact.flag
        // A list's bad item is named as the item (the flag was given once per item).
        const given = call.args[field]
        return {
          field,
          expected: expectedOf(fact),
          got: sent(given === undefined || Array.isArray(given) ? fact.value : given),
        }
      })
    : []
  return {
    ...out,
    ...refusal,
    error: {
      ...out.error,
      message: words(out.error.message),
      details: invalid.length === 0 ? details : { ...details, invalid_params: invalid },
      ...(invalid.length === 0 ? {} : { next_actions: [SEE_SCHEMA] }),
    },
  }
}

async function run(rt: CallRuntime, go: (rt: Runtime) => Promise<Outcome>, call: CallWords | null = null) {
  const io = bufferIO()
  // What the command printed, piece by piece: a document and its newline are taken as they are, not joined
  // (joining would copy a document of megabytes).
  const printed: string[] = []
  const out = await go({ ...rt, io: { ...io, stdout: { write: (t) => void printed.push(t) } } })
  const text = printed.length === 2 && printed[1] === '\n' ? (printed[0] as string) : printed.join('')
  return resultOf(inToolWords(out, call), text)
}

export async function callTool(
  set: Toolset,
  rt: CallRuntime,
  name: string,
  rawArgs: Record<string, unknown> | undefined,
): Promise<ToolResult> {
  const args = rawArgs ?? {}
  try {
    if (name === CLI_TOOL) {
      checkSchemaVersion(name, args)
      const argv = cliArgv(args)
      const path = matchCommand(rt.table, argv)?.command.path
      if (path === 'mcp serve' || path === 'board') {
        throw usage(`${path} cannot run through the cli tool: it serves until interrupted`, { tool: name })
      }
      if (path === 'trust accept') {
        // The trust anchor is a person's decision at a terminal, never an agent's (SECURITY.md).
        throw new RefusedError(
          'trust-root-only',
          'trust accept changes the trust anchor: run it yourself in a terminal',
          {
            details: { tool: name },
          },
        )
      }
      // The tool always answers a command's --json document: a --json of the caller's before any `--` is that
      // same switch (dropped), and --json=false asks for what the tool cannot give (a usage error saying so, not
      // "--json was given 2 times").
      const end = argv.indexOf('--')
      const own = (end === -1 ? argv : argv.slice(0, end)).filter((a) => a === '--json' || a.startsWith('--json='))
      if (own.some((a) => a !== '--json' && a !== '--json=true')) {
        throw usage('the cli tool always answers with the command’s --json document: --json=false cannot be honored', {
          tool: name,
          argv,
        })
      }
      const rest = argv.filter((a, i) => (end !== -1 && i >= end) || (a !== '--json' && a !== '--json=true'))
      // A leading --json is a global switch to main(); appended, it could land after a `--` and become a value.
      return await run(rt, (r) => main(['--json', ...rest], r))
    }
    const tool = set.tools.find((t) => t.name === name)
    if (tool === undefined) throw usage(`unknown tool: ${name}`, { tool: name })
    checkSchemaVersion(name, args)
    const argv = argvOf(name, tool.params, args)
    return await run(rt, (r) => invoke(tool.entry, argv, r), { names: paramNamesOf(tool.params), args })
  } catch (err) {
    return fail(err, [SEE_SCHEMA])
  }
}
