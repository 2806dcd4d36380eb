// Tool arguments → the argv the command table's own parser reads. Only the JSON
// types are checked here, strictly: the one coercion is the stringified integer
// ("3") and boolean ("true") the contract allows, and null is a wrong type, not
// "absent". Ranges, enum members, durations and every other rule are left to
// invoke(), so a tool call is validated exactly like the command line it becomes.

import { typedArgv } from '../clikit/didyoumean.js'
import { FREE_PARAM, GLOBAL_FLAGS, nearest, usage } from '../clikit/flags.js'
import type { Param } from './schema.js'
import { TOOL_SCHEMA_VERSION } from './tools.js'

type Args = Readonly<Record<string, unknown>>

/** An integer sent as text, as JSON would write the number ("3", never "03" or "+3"), for clients that send text. */
const INTEGER_TEXT = /^-?(0|[1-9]\d*)$/

/** Missing, malformed or unsupported `schema_version` is refused before anything else is looked at. */
export function checkSchemaVersion(tool: string, args: Args): void {
  const v = args.schema_version
  if (v === undefined || v === null) {
    throw usage(`missing required argument schema_version (send ${TOOL_SCHEMA_VERSION})`, {
      tool,
      missing: ['schema_version'],
    })
  }
  // Text is read as any integer parameter's is (token): only as JSON writes the number, "1" but never "01" or "+1".
  const n = typeof v === 'string' && INTEGER_TEXT.test(v) ? Number(v) : v
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    throw usage(`schema_version must be the integer ${TOOL_SCHEMA_VERSION}, got ${JSON.stringify(v)}`, {
      tool,
      invalid_params: [{ field: 'schema_version', expected: EXPECTED.integer, got: sent(v) }],
    })
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
  if ('arg' in p.source || 'free' in p.source) return 'string'
  if (p.source.part === 'switch') return 'boolean'
  if (p.source.part === 'value') return 'string'
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

/** What a parameter takes, in the words of its JSON Schema. */
export const EXPECTED: Record<Kind, string> = {
  string: 'a string',
  integer: 'an integer',
  boolean: 'a boolean',
  duration: 'a duration string such as "2h" or "45m"',
}
const PLURAL: Record<Kind, string> = {
  string: 'strings',
  integer: 'integers',
  boolean: 'booleans',
  duration: 'duration strings',
}

/** What was sent instead, by its JSON type: `null`, `a string ("open")`, `a number (7)`, `an array`. */
export function sent(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  switch (typeof v) {
    case 'string':
      return `a string (${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)})`
    case 'number':
      return `a number (${v})`
    case 'boolean':
      return `a boolean (${v})`
    default:
      return 'an object'
  }
}

/**
 * One scalar as the token the parser reads, or null. The only stringified scalars read are the two the contract
 * names — `"3"` for an integer, `"true"`/`"false"` for a boolean; nothing else is coerced or guessed.
 */
function token(kind: Kind, v: unknown): string | null {
  switch (kind) {
    case 'boolean':
      if (typeof v === 'boolean') return String(v)
      if (v === 'true' || v === 'false') return v
      return null
    case 'integer':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v)
      if (typeof v === 'string' && INTEGER_TEXT.test(v)) return v
      return null
    case 'duration':
    case 'string':
      return typeof v === 'string' ? v : null
  }
}

/** One argument of the wrong type: the field, the type its schema names, and what came instead. */
export interface InvalidParam {
  readonly field: string
  readonly expected: string
  readonly got: string
}

/**
 * The argv for a Tier-1 call: flags as `--name=value` (a value is never read as a flag), `--json`, then `--`
 * and the positionals (so a value such as `-h` stays a value). Throws a usage error naming every problem: each
 * argument of the wrong type (`invalid_params`: field, expected type, what was sent) and each missing one.
 */
export function argvOf(tool: string, params: readonly Param[], args: Args): string[] {
  checkKnown(
    tool,
    args,
    params.map((p) => p.name),
  )
  const flags: string[] = []
  const positionals: string[] = []
  const invalid: InvalidParam[] = []
  const missing: string[] = []
  const order: string[] = []
  let gap: string | null = null
  /** A split flag's two halves as sent: the switch's token and the value's. */
  const halves = new Map<string, { on?: string; value?: string; names: [string, string] }>()
  for (const p of params) {
    const raw = args[p.name]
    const src = p.source
    if ('free' in src) {
      if (raw === undefined) continue
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
        invalid.push({ field: p.name, expected: 'an object of strings', got: sent(raw) })
        continue
      }
      const taken = new Set([
        ...params.flatMap((q) => ('flag' in q.source ? [q.source.flag] : [])),
        ...Object.keys(GLOBAL_FLAGS),
      ])
      for (const [k, v] of Object.entries(raw)) {
        if (!FREE_PARAM.test(k) || taken.has(k)) {
          invalid.push({
            field: `${p.name}.${k}`,
            expected: 'a parameter name (a-z, 0-9, - and _; not a flag of the command)',
            got: JSON.stringify(k),
          })
        } else if (typeof v !== 'string')
          invalid.push({ field: `${p.name}.${k}`, expected: EXPECTED.string, got: sent(v) })
        else flags.push(`--${k}=${v}`)
      }
      continue
    }
    if ('flag' in src && src.part !== undefined) {
      if (raw === undefined) continue
      const t = token(kindOf(p), raw)
      if (t === null) {
        invalid.push({ field: p.name, expected: EXPECTED[kindOf(p)], got: sent(raw) })
        continue
      }
      const h = halves.get(src.flag) ?? {
        names: src.part === 'switch' ? [p.name, src.pair ?? ''] : [src.pair ?? '', p.name],
      }
      if (src.part === 'switch') h.on = t
      else h.value = t
      halves.set(src.flag, h)
      continue
    }
    const isArg = 'arg' in p.source
    if (raw === undefined && p.fallback !== undefined) {
      flags.push(`--${'flag' in p.source ? p.source.flag : p.name}=${p.fallback}`)
      continue
    }
    if (raw === undefined || (raw === '' && isArg)) {
      if (p.required) missing.push(p.name)
      else if (isArg) gap ??= p.name
      continue
    }
    const kind = kindOf(p)
    const repeatable = 'flag' in p.source && p.source.spec.repeatable === true
    if (repeatable && !Array.isArray(raw)) {
      invalid.push({ field: p.name, expected: `an array of ${PLURAL[kind]}`, got: sent(raw) })
      continue
    }
    const values: readonly unknown[] = repeatable && Array.isArray(raw) ? raw : [raw]
    if (repeatable && values.length === 0 && p.required) missing.push(p.name)
    values.forEach((v, i) => {
      const t = token(kind, v)
      const field = repeatable ? `${p.name}[${i}]` : p.name
      if (t === null) {
        invalid.push({ field, expected: EXPECTED[kind], got: sent(v) })
        return
      }
      if (!('flag' in src)) {
        if (gap !== null) order.push(`${p.name} needs ${gap} as well`)
        positionals.push(t)
      } else if (kind === 'boolean') {
        // A switch that is off is simply not given: every boolean flag defaults to off.
        if (t === 'true') flags.push(`--${src.flag}`)
      } else flags.push(`--${src.flag}=${t}`)
    })
  }
  for (const [flag, h] of halves) {
    const [on, value] = h.names
    if (h.on === 'true' && h.value === undefined) missing.push(value)
    else if (h.on !== 'true' && h.value !== undefined) order.push(`${value} goes with ${on}: true`)
    else if (h.on === 'true') flags.push(`--${flag}=${h.value}`)
  }
  const problems = [
    ...(missing.length > 0 ? [`missing required argument(s): ${missing.join(', ')}`] : []),
    ...invalid.map((x) => `${x.field} must be ${x.expected}, got ${x.got}`),
    ...order,
  ]
  if (problems.length > 0) {
    throw usage(`${tool}: invalid params: ${problems.join('; ')}`, {
      tool,
      problems,
      missing,
      invalid_params: invalid,
    })
  }
  const specs = Object.fromEntries(params.flatMap((p) => ('flag' in p.source ? [[p.source.flag, p.source.spec]] : [])))
  return typedArgv(specs, flags, positionals)
}

/** The `cli` tool's argv: a non-empty list of strings. */
export function cliArgv(args: Args): string[] {
  checkKnown('cli', args, ['argv'])
  const v = args.argv
  if (!Array.isArray(v) || v.length === 0) {
    throw usage('cli: argv must be a non-empty list of strings, e.g. ["task", "list", "--status", "open"]', {
      tool: 'cli',
    })
  }
  return v.map((x, i) => {
    if (typeof x === 'string') return x
    const bad = { field: `argv[${i}]`, expected: EXPECTED.string, got: sent(x) }
    throw usage(`cli: invalid params: argv[${i}] must be a string, got ${bad.got}`, {
      tool: 'cli',
      invalid_params: [bad],
    })
  })
}
