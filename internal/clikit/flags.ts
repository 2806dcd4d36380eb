// Flag declarations and the table-driven parser (COMPATIBILITY.md).
//
// A declaration is plain data, so the same object drives parsing, typed values,
// help text, `capabilities`, the build-time manifest and MCP input schemas.

import { editDistance } from '../base/distance.js'
import { parseDuration } from '../base/duration.js'
import { UsageError } from '../base/errors.js'

export type FlagType = 'string' | 'int' | 'bool' | 'duration' | 'enum'

export interface FlagSpec {
  readonly type: FlagType
  readonly description: string
  /** Shown in usage and help (`--lease DUR`). */
  readonly valueName?: string
  /** Allowed values for `enum`. */
  readonly values?: readonly string[]
  readonly repeatable?: boolean
  readonly required?: boolean
  /** Shown in help; the parser does not apply it (a command applies its own defaults). */
  readonly defaultText?: string
  /** Inclusive bounds for `int`. */
  readonly min?: number
  readonly max?: number
  /**
   * The value is a command dacli runs (`--verify`): only a caller that may run programs on this machine may give
   * it. The board refuses such a flag (SECURITY.md: a board token is not a shell).
   */
  readonly executes?: boolean
  /**
   * A switch with an optional value (`[--compatibility [PATH]]`): `--name=VALUE` (VALUE not `true`/`false`) turns
   * the switch on and gives VALUE as the command's next positional argument, as `--name VALUE` does.
   */
  readonly inlineArg?: boolean
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>

/** Options a builder passes through; captured literally so `{ required: true }` types the value as present. */
type Opts = Omit<Partial<FlagSpec>, 'type' | 'description' | 'values'>
/** No options given. */
type NoOpts = Readonly<Record<never, never>>

/** A declaration whose type field (and, for enums, values) stays literal, so `input.flags` can be typed from it. */
export type Spec<T extends FlagType, O, V extends readonly string[] = readonly string[]> = {
  readonly type: T
  readonly description: string
  readonly valueName?: string
} & (T extends 'enum' ? { readonly values: V } : NoOpts) &
  Readonly<O>

export const str = <const O extends Opts = NoOpts>(description: string, opts?: O): Spec<'string', NoInfer<O>> => ({
  type: 'string',
  description,
  valueName: 'TEXT',
  ...(opts as O),
})
export const int = <const O extends Opts = NoOpts>(description: string, opts?: O): Spec<'int', NoInfer<O>> => ({
  type: 'int',
  description,
  valueName: 'N',
  ...(opts as O),
})
export const bool = <const O extends Opts = NoOpts>(description: string, opts?: O): Spec<'bool', NoInfer<O>> => ({
  type: 'bool',
  description,
  ...(opts as O),
})
/** A duration flag: `90s`, `2h`, `1h30m`, `3d`; the value is milliseconds. */
export const duration = <const O extends Opts = NoOpts>(
  description: string,
  opts?: O,
): Spec<'duration', NoInfer<O>> => ({
  type: 'duration',
  description,
  valueName: 'DUR',
  ...(opts as O),
})
/** One of a fixed set of words; the value types as the union of them. */
export const oneOf = <const V extends readonly string[], const O extends Opts = NoOpts>(
  values: V,
  description: string,
  opts?: O,
): Spec<'enum', NoInfer<O>, NoInfer<V>> =>
  ({
    type: 'enum',
    description,
    values,
    valueName: values.join('|'),
    ...(opts as O),
  }) as Spec<'enum', NoInfer<O>, NoInfer<V>>

/** Flags every command accepts; `--json` is honoured only where the command declares a schema. */
export const GLOBAL_FLAGS: FlagSpecs = {
  json: bool('print one JSON document on stdout (errors as an error/v1 envelope on stderr)'),
  quiet: bool('suppress warnings and notes on stderr'),
  help: bool('show this help and exit'),
}

export type FlagValue = string | number | boolean
/** Parsed flag values as the parser produces them (the erased form; command bodies see `FlagValuesOf`). */
export type FlagValues = Record<string, FlagValue | FlagValue[]>

/** The value one declared flag parses to. */
type ScalarOf<S extends FlagSpec> = S['type'] extends 'string'
  ? string
  : S['type'] extends 'int' | 'duration'
    ? number
    : S['type'] extends 'bool'
      ? boolean
      : S['type'] extends 'enum'
        ? S extends { readonly values: readonly (infer V extends string)[] }
          ? V
          : string
        : FlagValue
type ValueOf<S extends FlagSpec> = S extends { readonly repeatable: true } ? readonly ScalarOf<S>[] : ScalarOf<S>
type IsRequired<S> = S extends { readonly required: true } ? true : false

/**
 * What a command body reads as `input.flags`: one property per declared flag, typed from its declaration
 * (string, number for int and duration (ms), boolean, the union of an enum's values, an array when repeatable),
 * optional unless declared `required` (the kernel refuses the call before `run` when it is missing).
 */
export type FlagValuesOf<F extends FlagSpecs> = string extends keyof F
  ? Readonly<FlagValues>
  : {
      readonly [K in keyof F as IsRequired<F[K]> extends true ? K : never]: ValueOf<F[K]>
    } & {
      readonly [K in keyof F as IsRequired<F[K]> extends true ? never : K]?: ValueOf<F[K]>
    }

export interface ParseOutcome {
  /** Typed values of the flags that were given (repeatable flags as arrays). */
  flags: FlagValues
  positionals: string[]
  /** `--name` spellings not declared on the command, in the order met. */
  unknown: string[]
  /** `--help` or `-h` was given as a flag. */
  help: boolean
  /** `--json` was given as a flag (known even when other errors exist, to pick the error format). */
  json: boolean
  /** Usage problems other than unknown flags, in the order met. */
  problems: string[]
  /** The bad values among the problems, as facts (`details` of the usage error): the allowed set of an enum. */
  invalid: InvalidValue[]
  /** Free `--NAME VALUE` parameters (parsed only when the command declares them: `free`). */
  params: Record<string, string>
  /** Old flag names given (`brief-tokens`), each once, in the order met: they were read as the flag they became. */
  renamed: string[]
}

/** The name of a free parameter (`run`'s shortcut parameters): a plain word, as flags are named. */
export const FREE_PARAM = /^[a-z][a-z0-9_-]*$/

export interface InvalidValue {
  flag: string
  value: string
  /** The values an enum flag takes. */
  allowed?: readonly string[]
  /** The bounds of an integer flag. */
  min?: number
  max?: number
  /** What a value of this type looks like (`integer`, `duration`). */
  expected?: string
}

const isFlagToken = (t: string) => t.startsWith('--') && t.length > 2

/**
 * Parse argv tokens (after the command path) against declared flags. Never throws:
 * every problem is collected so the caller can report unknown flags first. With `free`, an undeclared
 * `--name VALUE` (a plain name, FREE_PARAM) is a free string parameter instead of an unknown flag.
 */
export function parseArgv(
  tokens: readonly string[],
  specs: FlagSpecs,
  renames: Readonly<Record<string, string>> = {},
  free = false,
): ParseOutcome {
  const out: ParseOutcome = {
    flags: {},
    positionals: [],
    unknown: [],
    help: false,
    json: false,
    problems: [],
    invalid: [],
    params: {},
    renamed: [],
  }
  const seen = new Map<string, string[]>()
  const lookup = (name: string): FlagSpec | undefined =>
    Object.hasOwn(specs, name) ? specs[name] : Object.hasOwn(GLOBAL_FLAGS, name) ? GLOBAL_FLAGS[name] : undefined

  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] as string
    if (tok === '--') {
      for (let j = i + 1; j < tokens.length; j++) out.positionals.push(tokens[j] as string)
      break
    }
    if (tok === '-h') {
      out.help = true
      continue
    }
    if (!isFlagToken(tok)) {
      out.positionals.push(tok)
      continue
    }
    const eq = tok.indexOf('=')
    const given = eq === -1 ? tok.slice(2) : tok.slice(2, eq)
    // A renamed flag's old name (alias.ts) is read as the flag it became; the caller warns.
    const renamed = Object.hasOwn(renames, given) ? (renames[given] as string) : undefined
    if (renamed !== undefined && !out.renamed.includes(given)) out.renamed.push(given)
    const name = renamed ?? given
    const inline = eq === -1 ? undefined : tok.slice(eq + 1)
    const spec = lookup(name)
    if (spec === undefined && free && FREE_PARAM.test(name)) {
      const next = tokens[i + 1]
      let value: string
      if (inline !== undefined) value = inline
      else if (next === '--' && i + 2 < tokens.length) {
        value = tokens[i + 2] as string
        i += 2
      } else if (next !== undefined && (next === '-' || !next.startsWith('-'))) {
        value = next
        i += 1
      } else {
        out.problems.push(`--${name} requires a value (use --${name}=VALUE or --${name} -- VALUE)`)
        continue
      }
      const had = out.params[name]
      if (had !== undefined && had !== value)
        out.problems.push(`--${name} was given twice with different values; give it once`)
      else out.params[name] = value
      continue
    }
    if (spec === undefined) {
      if (!out.unknown.includes(`--${name}`)) out.unknown.push(`--${name}`)
      continue
    }
    let raw: string
    if (spec.type === 'bool') {
      if (inline === undefined) raw = 'true'
      else if (inline === 'true' || inline === 'false') raw = inline
      else if (spec.inlineArg === true) {
        raw = 'true'
        out.positionals.push(inline)
      } else {
        out.problems.push(`--${name} is a switch: use --${name}, --${name}=true or --${name}=false (got "${inline}")`)
        continue
      }
    } else if (inline !== undefined) {
      raw = inline
    } else {
      const next = tokens[i + 1]
      if (next === '--' && i + 2 < tokens.length) {
        raw = tokens[i + 2] as string
        i += 2
      } else if (
        next !== undefined &&
        (next === '-' || !next.startsWith('-') || (spec.type === 'int' && /^-\d+$/.test(next)))
      ) {
        // A negative number after an integer flag is its value (`--limit -1`), so the error can name the bound.
        raw = next
        i += 1
      } else {
        out.problems.push(`--${name} requires a value (use --${name}=VALUE or --${name} -- VALUE)`)
        continue
      }
    }
    const list = seen.get(name) ?? []
    list.push(raw)
    seen.set(name, list)
  }

  for (const [name, raws] of seen) {
    const spec = lookup(name) as FlagSpec
    if (!spec.repeatable && raws.length > 1 && new Set(raws).size > 1) {
      out.problems.push(`--${name} was given ${raws.length} times with different values; give it once`)
      continue
    }
    const typed: FlagValue[] = []
    for (const raw of spec.repeatable ? raws : [raws[raws.length - 1] as string]) {
      const v = convert(name, spec, raw)
      if (typeof v === 'object') {
        out.problems.push(v.problem)
        out.invalid.push(v.fact)
      } else typed.push(v)
    }
    if (typed.length === 0) continue
    out.flags[name] = spec.repeatable ? typed : (typed[0] as FlagValue)
  }
  if (out.flags.help === true) out.help = true
  if (out.flags.json === true) out.json = true
  return out
}

function convert(name: string, spec: FlagSpec, raw: string): FlagValue | { problem: string; fact: InvalidValue } {
  const flag = `--${name}`
  const bounds = {
    ...(spec.min === undefined ? {} : { min: spec.min }),
    ...(spec.max === undefined ? {} : { max: spec.max }),
  }
  switch (spec.type) {
    case 'bool':
      return raw === 'true'
    case 'string':
      return raw
    case 'int': {
      if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
        return {
          problem: `${flag} must be an integer, got "${raw}"`,
          fact: { flag, value: raw, expected: 'integer', ...bounds },
        }
      }
      const n = Number(raw)
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        const range = `${spec.min ?? '-∞'}..${spec.max ?? '∞'}`
        return {
          problem: `${flag} must be in ${range}, got ${n}`,
          fact: { flag, value: raw, expected: 'integer', ...bounds },
        }
      }
      return n
    }
    case 'duration': {
      const ms = parseDuration(raw)
      if (ms === null)
        return {
          problem: `${flag} must be a duration such as 90s, 45m, 2h, 1h30m or 3d (at most 100 years), got "${raw}"`,
          fact: { flag, value: raw, expected: 'duration' },
        }
      return ms
    }
    case 'enum':
      if (!spec.values?.includes(raw)) {
        return {
          problem: `${flag} must be one of ${spec.values?.join(', ')}, got "${raw}"`,
          fact: { flag, value: raw, allowed: [...(spec.values ?? [])] },
        }
      }
      return raw
  }
}

/** The closest known name within a small distance, or null. */
export function nearest(name: string, candidates: Iterable<string>): string | null {
  // Case is the commonest slip (`--JSON` for `--json`).
  const folded = name.toLowerCase()
  for (const c of candidates) if (c === folded) return c
  let best: string | null = null
  let bestD = Number.POSITIVE_INFINITY
  const limit = name.length <= 4 ? 1 : 2
  for (const c of candidates) {
    const d = editDistance(name, c)
    if (d < bestD || (d === bestD && best !== null && c < best)) {
      best = c
      bestD = d
    }
  }
  if (best !== null && bestD <= limit) return best
  // A prefix is a near miss too (`--proj` for `--project`).
  for (const c of candidates) if (name.length >= 3 && c.startsWith(name)) return c
  return null
}

/** Throwing wrapper used where a single error is wanted. */
export function usage(message: string, details?: Record<string, unknown>): UsageError {
  return new UsageError(message, details === undefined ? {} : { details })
}
