// One tool call: validate the arguments, build the argv, run it through the same
// invoke() the bin uses with a fresh buffered IO (nothing reaches the protocol
// stream), and map the outcome to an MCP result. Never throws.

import { RefusedError } from '../base/errors.js'
import { main } from '../cli/main.js'
import type { CommandEntry } from '../clikit/command.js'
import { matchCommand } from '../clikit/dispatch.js'
import { usage } from '../clikit/flags.js'
import { invoke, type Outcome, type Runtime } from '../clikit/invoke.js'
import { bufferIO } from '../clikit/io.js'
import { envelopeOf } from '../clikit/render.js'
import { argvOf, checkSchemaVersion, cliArgv } from './args.js'
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

/**
 * The flags a tool's parameters rename beyond the convention (`--so-that` → `so_that`): the seed's names
 * (`--archive` → `archive_classes`), flag → parameter.
 */
function renamedOf(params: readonly Param[]): ReadonlyMap<string, string> {
  const out = new Map<string, string>()
  for (const p of params) {
    if ('flag' in p.source && p.source.part !== 'value' && p.name !== p.source.flag.replace(/-/g, '_'))
      out.set(p.source.flag, p.name)
  }
  return out
}

/**
 * A failure's words as the tool's caller knows them: `--archive` named as `archive_classes`, in the message and in
 * `details` (a command line — `dacli …` up to a backtick, `; `, `. ` or a line's end — is left as the CLI reads it,
 * and so are next actions and suggestions, which are command lines).
 */
function inToolWords(out: Outcome, renamed: ReadonlyMap<string, string>): Outcome {
  if (renamed.size === 0 || (out.error === undefined && out.refusal === undefined)) return out
  const words = (text: string) =>
    text.replace(/dacli [^`;\n]*?(?=`|; |\. |\n|$)|(?<![\w-])--([a-z][a-z0-9-]*)/g, (m, f?: string) =>
      f === undefined ? m : (renamed.get(f) ?? m),
    )
  const deep = (v: unknown): unknown =>
    typeof v === 'string'
      ? words(v)
      : Array.isArray(v)
        ? v.map(deep)
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep(x)]))
          : v
  return {
    ...out,
    ...(out.error === undefined
      ? {}
      : {
          error: {
            ...out.error,
            message: words(out.error.message),
            details: deep(out.error.details) as Record<string, unknown>,
          },
        }),
    ...(out.refusal === undefined ? {} : { refusal: { ...out.refusal, reason: words(out.refusal.reason) } }),
  }
}

async function run(
  rt: CallRuntime,
  go: (rt: Runtime) => Promise<Outcome>,
  renamed: ReadonlyMap<string, string> = new Map(),
): Promise<ToolResult> {
  const io = bufferIO()
  // What the command printed, piece by piece: a document and its newline are taken as they are, not joined
  // (joining would copy a document of megabytes).
  const printed: string[] = []
  const out = await go({ ...rt, io: { ...io, stdout: { write: (t) => void printed.push(t) } } })
  const text = printed.length === 2 && printed[1] === '\n' ? (printed[0] as string) : printed.join('')
  return resultOf(inToolWords(out, renamed), text)
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
    return await run(rt, (r) => invoke(tool.entry, argv, r), renamedOf(tool.params))
  } catch (err) {
    return fail(err, ['call tools/list for the tools and their input schemas'])
  }
}
