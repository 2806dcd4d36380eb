import { cmd } from '../../base/commands.js'
import { UsageError } from '../../base/errors.js'
import { byText } from '../../base/order.js'
import { BINARY_NAME, VERSION } from '../../base/version.js'
import { isFlagAlias } from '../../clikit/alias.js'
import { type CommandDecl, defineCommand, mayMutate } from '../../clikit/command.js'
import type { Context } from '../../clikit/context.js'
import { GLOBAL_FLAGS, str } from '../../clikit/flags.js'
import { usageOf } from '../../clikit/help.js'
import { BRIEF_PROMPT_VERSION } from '../../domain/plan/brief.js'
import type { CapabilitiesDocT } from './json.js'

/** The on-disk formats this binary reads and writes. */
const STATE_SCHEMAS = [
  { id: 'state.event', version: 1 },
  { id: 'state.workspace', version: 0 },
]

/** The prompts this binary writes for agents, with their layout versions. */
const PROMPT_SCHEMAS = [{ id: 'prompt.context-brief', version: BRIEF_PROMPT_VERSION }]

/**
 * Run-time capabilities, derived from the commands the build carries. Their presence
 * never claims that a provider is reachable or authenticated.
 */
const ADAPTERS: [string, string][] = [
  ['board.http', 'board'],
  ['git.record-branch', 'record'],
  ['git.remote-exchange', 'record push'],
  ['github.rest', 'github doctor'],
  ['mcp.http', 'mcp serve'],
  ['mcp.resources', 'mcp serve'],
  ['mcp.stdio', 'mcp serve'],
  ['verify.shell', 'task check'],
]

const commandId = (path: string) => `cli.command.${path.replace(/ /g, '.')}`

function commandEntry(c: CommandDecl): CapabilitiesDocT['commands'][number] {
  const id = commandId(c.path)
  const flags = Object.entries({ ...c.flags, ...GLOBAL_FLAGS })
    .filter(([name]) => name !== 'json' || c.json !== null)
    .map(([name, s]) => ({
      id: `${id}.flag.${name}`,
      name: `--${name}`,
      takes_value: s.type !== 'bool',
      repeatable: s.repeatable === true,
    }))
    .sort((a, b) => byText(a.id, b.id))
  return {
    id,
    path: c.path,
    summary: c.summary,
    usage: usageOf(c),
    json: c.json !== null,
    json_schema: c.json,
    mutates: mayMutate(c),
    schema_version: 1,
    aliases: (c.aliases ?? [])
      .map((a) => ({
        id: isFlagAlias(a) ? `${id}.flag.${a.old.slice(2)}` : commandId(a.old),
        name: a.old,
        replaced_by: a.now ?? c.path,
        removed_in: a.until,
        why: a.why,
      }))
      .sort((a, b) => byText(a.id, b.id)),
    flags,
  }
}

/** The capabilities document (without --require results): deterministic for one binary. */
export async function capabilitiesOf(ctx: Context): Promise<Omit<CapabilitiesDocT, 'required' | 'missing'>> {
  const docs = Object.keys((await ctx.documents()).jsonSchemas())
  const mcp = await ctx.mcpSurface()
  const paths = new Set(ctx.table.map((c) => c.path))
  return {
    schema: 'capabilities/v2',
    binary: { name: BINARY_NAME, version: VERSION, node: ctx.system.nodeVersion, platform: ctx.system.platform },
    state_schemas: STATE_SCHEMAS,
    prompt_schemas: PROMPT_SCHEMAS,
    commands: ctx.table.map(commandEntry).sort((a, b) => byText(a.id, b.id)),
    json_schemas: docs
      .map((id) => ({ id, version: Number(id.slice(id.lastIndexOf('/v') + 2)) }))
      .sort((a, b) => byText(a.id, b.id)),
    mcp: {
      protocol_version: mcp?.protocol_version ?? null,
      tool_schema_version: mcp?.tool_schema_version ?? null,
      tools: (mcp?.tools ?? [])
        .map((t) => ({ id: `mcp.tool.${t.name}`, name: t.name, schema_version: t.schema_version }))
        .sort((a, b) => byText(a.id, b.id)),
    },
    adapter_capabilities: ADAPTERS.filter(([, p]) => paths.has(p))
      .map(([id]) => ({ id }))
      .sort((a, b) => byText(a.id, b.id)),
  }
}

/** Every id a requirement may name, with its schema version. */
export function idVersions(c: Omit<CapabilitiesDocT, 'required' | 'missing'>): Map<string, number> {
  const m = new Map<string, number>()
  for (const s of c.state_schemas) m.set(s.id, s.version)
  for (const p of c.prompt_schemas) m.set(p.id, p.version)
  for (const cmd of c.commands) {
    m.set(cmd.id, cmd.schema_version)
    for (const f of cmd.flags) m.set(f.id, cmd.schema_version)
    // An old name is present until it goes away: a skill requiring it still runs in the window.
    for (const a of cmd.aliases) m.set(a.id, cmd.schema_version)
  }
  for (const j of c.json_schemas) m.set(j.id, j.version)
  for (const t of c.mcp.tools) m.set(t.id, t.schema_version)
  for (const a of c.adapter_capabilities) m.set(a.id, 1)
  return m
}

export const CAPABILITY_ID = /^[a-z0-9][a-z0-9._/-]*$/

export const capabilities = defineCommand({
  path: 'capabilities',
  summary: 'What this binary can do: commands, flags, documents, MCP tools — with stable ids',
  description:
    'The deterministic compatibility contract of the installed binary, generated from the command table and the MCP tool registry used for dispatch: every command (cli.command.task.check) and flag (cli.command.task.check.flag.verify), every JSON document id (task/v1), the on-disk format versions, the prompt layout versions (prompt.context-brief), the MCP tools (mcp.tool.claim_task) and run-time adapter capabilities (github.rest). Sorted and byte-identical for the same binary. --require ID is a side-effect-free preflight: exit 0 when every id is present, else exit 3 listing all missing ids (the report is printed either way).',
  args: [],
  flags: { require: str('an id this caller needs', { repeatable: true, valueName: 'ID' }) },
  json: 'capabilities/v2',
  mutates: false,
  standalone: true,
  examples: [
    'dacli capabilities --json',
    'dacli capabilities --require cli.command.task.check.flag.verify --require mcp.tool.claim_task',
  ],
  async run(ctx, input) {
    const required = [...(input.flags.require ?? [])]
    const bad = required.filter((r) => !CAPABILITY_ID.test(r))
    if (bad.length > 0) {
      throw new UsageError(
        `malformed capability id${bad.length > 1 ? 's' : ''}: ${bad.map((b) => JSON.stringify(b)).join(', ')}`,
        {
          details: { malformed: bad },
          next: [cmd('capabilities --json (the ids it lists are the ones to require)')],
        },
      )
    }
    const caps = await capabilitiesOf(ctx)
    const known = idVersions(caps)
    const missing = [...new Set(required.filter((r) => !known.has(r)))].sort()
    const data: CapabilitiesDocT = { ...caps, required, missing }
    return {
      data,
      verdict: missing.length > 0 ? 'refused' : null,
      ...(missing.length === 0
        ? {}
        : {
            refusal: {
              policy: 'missing-capability',
              reason: `this dacli ${VERSION} lacks ${missing.length} of the ${required.length} required capabilit${required.length === 1 ? 'y' : 'ies'}: ${missing.join(', ')}`,
              next: [
                cmd('capabilities --json (the ids this binary has)'),
                'upgrade dacli to a version that has them, or use the fallback your skill documents',
              ],
            },
          }),
      human(out) {
        if (required.length > 0) {
          out.line(
            missing.length === 0
              ? `all ${required.length} required capabilities are present`
              : `missing ${missing.length} of ${required.length}:`,
          )
          for (const m of missing) out.line(`  ${m}`)
          return
        }
        out.line(`${caps.binary.name} ${caps.binary.version} (node ${caps.binary.node}, ${caps.binary.platform})`)
        out.line(`formats: ${caps.state_schemas.map((s) => `${s.id} v${s.version}`).join(', ')}`)
        out.line(`prompts: ${caps.prompt_schemas.map((p) => `${p.id} v${p.version}`).join(', ')}`)
        out.line(
          `${caps.commands.length} commands, ${caps.json_schemas.length} JSON documents, ${caps.mcp.tools.length} MCP tools`,
        )
        out.line(`adapters: ${caps.adapter_capabilities.map((a) => a.id).join(', ') || 'none'}`)
        out.line(out.style('dim', 'every id: dacli capabilities --json'))
      },
    }
  },
})
