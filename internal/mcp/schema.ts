// Tool definitions derived from the command table: one parameter per declared
// positional (`<ref>` → `ref`) and flag (`--so-that` → `so_that`), typed from the
// flag declaration, described by it, required where the declaration requires it.
// Nothing here is hand-written per tool except the description in tools.ts.

import type { ArgSpec, CommandEntry } from '../clikit/command.js'
import { mayMutate } from '../clikit/command.js'
import type { FlagSpec } from '../clikit/flags.js'
import { isPageFlag, pages } from '../clikit/pageflags.js'
import { TERSE } from './terse.js'
import { TOOL_SCHEMA_VERSION, type ToolDef } from './tools.js'

export type JSONSchema = Record<string, unknown>

/** How one tool parameter reaches argv. */
export interface Param {
  /** The property name in the tool's arguments. */
  readonly name: string
  /**
   * A positional argument, a flag (by its declared name), or the free `--NAME VALUE` parameters of a command that
   * takes them (`run`), as one object of strings. A flag the seed splits in two (ToolDef `split`) is two
   * parameters: its `switch` (a boolean) and its `value` (a string), given together.
   */
  readonly source:
    | { readonly arg: ArgSpec }
    | { readonly flag: string; readonly spec: FlagSpec; readonly part?: 'switch' | 'value'; readonly pair?: string }
    | { readonly free: string }
  readonly required: boolean
  /** Sent when the call names no value (a list-like tool's page size). */
  readonly fallback?: string
}

export interface BuiltTool {
  readonly name: string
  readonly entry: CommandEntry
  readonly params: readonly Param[]
  /** What tools/list publishes. */
  readonly definition: {
    name: string
    description: string
    inputSchema: JSONSchema & { type: 'object' }
    /** Absent where every hint is MCP's default (the cli tool). */
    annotations?: Record<string, boolean>
  }
}

const propName = (declared: string): string => declared.replace(/-/g, '_')

/** An integer bound at or past this guards against nonsense rather than describing the parameter. */
const SANITY_MAX = 1_000

/**
 * The parameters of a tool: the command's positionals, then every flag it declares — parity by construction: a
 * refusal or next action of the command can name no flag the tool lacks (parity.test.ts).
 */
function paramsOf(entry: CommandEntry, def: ToolDef): Param[] {
  const out: Param[] = entry.args.map((a) => ({ name: propName(a.name), source: { arg: a }, required: a.required }))
  for (const [flag, spec] of Object.entries(entry.flags)) {
    const given = def.defaults?.[flag]
    const fallback = given === undefined ? {} : { fallback: String(given) }
    const name = def.names?.[flag] ?? propName(flag)
    const value = def.split?.[flag]
    if (value !== undefined) {
      if (spec.type === 'bool' || spec.repeatable || spec.required)
        throw new Error(`tool ${def.name}: --${flag} cannot be split (a single optional value flag can)`)
      out.push({ name, source: { flag, spec, part: 'switch', pair: value }, required: false })
      out.push({ name: value, source: { flag, spec, part: 'value', pair: name }, required: false })
      continue
    }
    out.push({ name, source: { flag, spec }, required: spec.required === true, ...fallback })
  }
  for (const f of [...Object.keys(def.names ?? {}), ...Object.keys(def.split ?? {})]) {
    if (entry.flags[f] === undefined) throw new Error(`tool ${def.name}: a name for --${f}, which ${entry.path} lacks`)
  }
  if (entry.params !== undefined)
    out.push({ name: 'params', source: { free: entry.params.description }, required: false })
  // Bounded results: a command that pages has a default page size here, and only such a command.
  const paged = pages(entry.flags)
  if (paged !== (def.defaults?.limit !== undefined)) {
    throw new Error(`tool ${def.name}: ${paged ? 'a list-like tool needs a default limit' : 'limit without paging'}`)
  }
  for (const f of Object.keys(def.defaults ?? {})) {
    if (entry.flags[f] === undefined)
      throw new Error(`tool ${def.name}: a default for --${f}, which ${entry.path} lacks`)
  }
  const names = out.map((p) => p.name)
  const clash = names.find((n, i) => names.indexOf(n) !== i || n === 'schema_version')
  if (clash !== undefined) throw new Error(`tool ${def.name}: two parameters would be named ${clash}`)
  return out
}

/** A declaration's description, with `--flag` mentions renamed to the parameters agents see. */
function describe(text: string, entry: CommandEntry, def: ToolDef): string {
  return text.replace(/--([a-z][a-z0-9-]*)/g, (m, f: string) =>
    entry.flags[f] === undefined ? m : (def.names?.[f] ?? propName(f)),
  )
}

function scalarSchema(spec: FlagSpec): JSONSchema {
  switch (spec.type) {
    case 'bool':
      return { type: 'boolean' }
    case 'int':
      // A bound only there to refuse nonsense (a page of 100,000, 10⁹ tokens) is not published: it costs every
      // agent's context and guides no call; a call past it is still refused, naming the bound (args.ts).
      return {
        type: 'integer',
        ...(spec.min === undefined ? {} : { minimum: spec.min }),
        ...(spec.max === undefined || spec.max >= SANITY_MAX ? {} : { maximum: spec.max }),
      }
    case 'enum':
      return { type: 'string', enum: [...(spec.values ?? [])] }
    case 'duration':
    case 'string':
      return { type: 'string' }
  }
}

function flagDescription(spec: FlagSpec, entry: CommandEntry, def: ToolDef): string {
  let text = describe(spec.description, entry, def)
  // A value grammar worth showing (`REF[:FS|SS|FF|SF]`), not a plain placeholder (`TEXT`, `REF`).
  if (spec.type === 'string' && spec.valueName !== undefined && /[[|]/.test(spec.valueName))
    text += `: ${spec.valueName}`
  if (spec.type === 'duration') text += ' (e.g. "2h")'
  return text
}

/**
 * A flag's description, unless it says no more than the parameter's name (`only this project`), or in fewer words
 * (terse.ts). Every byte of tools/list is paid in every agent's context (golden.test.ts holds it under 4,000 tokens).
 */
function described(p: Param, text: string): { description?: string } {
  if (text === `only this ${p.name.replace(/_/g, ' ')}`) return {}
  const terse = TERSE[text]
  if (terse !== undefined) return terse === null ? {} : { description: terse }
  // `limit` and `cursor` of a page say what they are; the result's next_cursor is what a cursor takes.
  if ('flag' in p.source && isPageFlag(p.source.flag, { [p.source.flag]: p.source.spec })) return {}
  return { description: text }
}

/** A positional is a string named as in the synopsis (`ref`, `title`, `question_id`): its name says what it is. */
function propertySchema(p: Param, entry: CommandEntry, def: ToolDef): JSONSchema {
  if ('arg' in p.source) return { type: 'string' }
  if ('free' in p.source)
    return { type: 'object', additionalProperties: { type: 'string' }, description: p.source.free }
  const { spec } = p.source
  if (p.source.part === 'switch') return { type: 'boolean', ...described(p, describe(spec.description, entry, def)) }
  if (p.source.part === 'value') return { type: 'string', description: `with ${p.source.pair}` }
  const description = described(p, flagDescription(spec, entry, def))
  const fallback = p.fallback === undefined ? {} : { default: Number(p.fallback) }
  if (!spec.repeatable) return { ...scalarSchema(spec), ...fallback, ...description }
  return { type: 'array', items: scalarSchema(spec), ...(p.required ? { minItems: 1 } : {}), ...description }
}

function inputSchemaOf(entry: CommandEntry, def: ToolDef, params: readonly Param[]): JSONSchema & { type: 'object' } {
  const properties: Record<string, JSONSchema> = { schema_version: { const: TOOL_SCHEMA_VERSION } }
  for (const p of params) properties[p.name] = propertySchema(p, entry, def)
  // No `additionalProperties: false`: every byte here is paid in every agent's context; an undeclared argument
  // is still refused when called (args.ts), like an unknown flag.
  return {
    type: 'object',
    properties,
    required: ['schema_version', ...params.filter((p) => p.required).map((p) => p.name)],
  }
}

/**
 * readOnlyHint from the declaration; the other hints mean something only for a tool that writes. Only what
 * differs from MCP's defaults is written (readOnlyHint false, destructiveHint true, idempotentHint false): every
 * byte is paid in every agent's context, so a write that removes nothing says destructiveHint false. A hint
 * describes the tool whoever calls it: a command that proposes (a read-only caller's claim, a non-owner's done)
 * records a new event on every repeat, so it is idempotent only for the owner, and its tool is not marked so.
 */
function annotationsOf(entry: CommandEntry): Record<string, boolean> {
  if (!mayMutate(entry)) return { readOnlyHint: true }
  const hints = entry.destructive === true ? {} : { destructiveHint: false }
  return entry.idempotent === true && entry.proposes !== true ? { ...hints, idempotentHint: true } : hints
}

export function buildTool(def: ToolDef, table: readonly CommandEntry[]): BuiltTool {
  const entry = table.find((c) => c.path === def.path)
  if (entry === undefined) throw new Error(`tool ${def.name} wraps "${def.path}", which is not in the command table`)
  if (entry.json === null) throw new Error(`tool ${def.name} wraps "${def.path}", which emits no JSON document`)
  const params = paramsOf(entry, def)
  return {
    name: def.name,
    entry,
    params,
    definition: {
      name: def.name,
      description: def.description,
      inputSchema: inputSchemaOf(entry, def, params),
      annotations: annotationsOf(entry),
    },
  }
}
