// Tool arguments → the argv the command table's own parser reads. Only the JSON
// types are checked here (and the few stringified scalars clients commonly send);
// ranges, enum members, durations and every other rule are left to invoke(), so
// a tool call is validated exactly like the command line it becomes.

import { nearest, usage } from '../clikit/flags.js'
import type { Param } from './schema.js'
import { TOOL_SCHEMA_VERSION } from './tools.js'

type Args = Readonly<Record<string, unknown>>

/** Missing, malformed or unsupported `schema_version` is refused before anything else is looked at. */
export function checkSchemaVersion(tool: string, args: Args): void {
  const v = args.schema_version
  if (v === undefined || v === null) {
    throw usage(`missing required argument schema_version (send ${TOOL_SCHEMA_VERSION})`, {
      tool,
      missing: ['schema_version'],
    })
  }
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    throw usage(`schema_version must be the integer ${TOOL_SCHEMA_VERSION}, got ${JSON.stringify(v)}`, { tool })
  }
  if (n !== TOOL_SCHEMA_VERSION) {
    throw usage(`unsupported schema_version ${n} for tool ${tool} (supported: ${TOOL_SCHEMA_VERSION})`, {
      tool,
      supported: [TOOL_SCHEMA_VERSION],
    })
  }
}

/** Arguments the tool does not declare are refused, like unknown flags on the command line. */
function checkKnown(tool: string, args: Args, known: readonly string[]): void {
  const unknown = Object.keys(args).filter((k) => k !== 'schema_version' && !known.includes(k))
  if (unknown.length === 0) return
  const hints = unknown.map((u) => nearest(u, known)).filter((h): h is string => h !== null)
  const hint = hints.length > 0 ? ` (did you mean ${hints.join(', ')}?)` : ''
  throw usage(`unknown argument(s) for ${tool}: ${unknown.join(', ')}${hint}`, {
    tool,
    unknown_arguments: unknown,
    allowed: [...known],
  })
}

type Kind = 'string' | 'integer' | 'boolean' | 'duration'

const kindOf = (p: Param): Kind => {
  if ('arg' in p.source) return 'string'
  switch (p.source.spec.type) {
    case 'bool':
      return 'boolean'
    case 'int':
      return 'integer'
    case 'duration':
      return 'duration'
    default:
      return 'string'
  }
}

/** One scalar as the token the parser reads, or a problem. `"true"` and `"3"` are accepted; nothing is guessed. */
function token(kind: Kind, v: unknown): string | { problem: string } {
  switch (kind) {
    case 'boolean':
      if (typeof v === 'boolean') return String(v)
      if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase()
      return { problem: 'must be a boolean (true or false)' }
    case 'integer':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v)
      if (typeof v === 'string' && /^-?\d+$/.test(v)) return v
      return { problem: 'must be an integer' }
    case 'duration':
      if (typeof v === 'string') return v
      return { problem: 'must be a duration string such as "2h" or "45m"' }
    case 'string':
      if (typeof v === 'string') return v
      // A task number sent as a number (`ref: 7`) means exactly "7".
      if (typeof v === 'number' && Number.isFinite(v)) return String(v)
      return { problem: 'must be a string' }
  }
}

/**
 * The argv for a Tier-1 call: flags as `--name=value` (a value is never read as a flag), `--json`, then `--`
 * and the positionals (so a value such as `-h` stays a value). Throws a usage error naming every problem.
 */
export function argvOf(tool: string, params: readonly Param[], args: Args): string[] {
  checkKnown(
    tool,
    args,
    params.map((p) => p.name),
  )
  const flags: string[] = []
  const positionals: string[] = []
  const problems: string[] = []
  const missing: string[] = []
  let gap: string | null = null
  for (const p of params) {
    const raw = args[p.name]
    const absent = raw === undefined || raw === null || (raw === '' && 'arg' in p.source)
    if (absent) {
      if (p.required) missing.push(p.name)
      else if ('arg' in p.source) gap ??= p.name
      continue
    }
    const kind = kindOf(p)
    const repeatable = 'flag' in p.source && p.source.spec.repeatable === true
    const values = repeatable && Array.isArray(raw) ? raw : [raw]
    if (Array.isArray(raw) && !repeatable) {
      problems.push(`${p.name} takes one value, not a list`)
      continue
    }
    if (repeatable && values.length === 0 && p.required) missing.push(p.name)
    for (const v of values) {
      const t = token(kind, v)
      if (typeof t === 'object') {
        problems.push(`${p.name} ${t.problem}, got ${JSON.stringify(v)}`)
        continue
      }
      if ('arg' in p.source) {
        if (gap !== null) problems.push(`${p.name} needs ${gap} as well`)
        positionals.push(t)
      } else if (kind === 'boolean') {
        // A switch that is off is simply not given: every boolean flag defaults to off.
        if (t === 'true') flags.push(`--${p.source.flag}`)
      } else flags.push(`--${p.source.flag}=${t}`)
    }
  }
  if (missing.length > 0) problems.unshift(`missing required argument(s): ${missing.join(', ')}`)
  if (problems.length > 0) throw usage(`${tool}: ${problems.join('; ')}`, { tool, problems, missing })
  return [...flags, '--json', '--', ...positionals]
}

/** The `cli` tool's argv: a non-empty list of strings (numbers are accepted as their decimal text). */
export function cliArgv(args: Args): string[] {
  checkKnown('cli', args, ['argv'])
  const v = args.argv
  if (!Array.isArray(v) || v.length === 0) {
    throw usage('cli: argv must be a non-empty list of strings, e.g. ["task", "list", "--status", "open"]', {
      tool: 'cli',
    })
  }
  return v.map((x, i) => {
    const t = token('string', x)
    if (typeof t === 'object') throw usage(`cli: argv[${i}] ${t.problem}, got ${JSON.stringify(x)}`, { tool: 'cli' })
    return t
  })
}
