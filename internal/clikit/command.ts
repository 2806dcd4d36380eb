// A command is data plus a function. Everything the kernel enforces (flag
// parsing, unknown-flag refusal, the --json gate, the grant gate, usage text,
// capabilities, MCP schemas) derives from the declaration below.

import type { Context } from './context.js'
import type { FlagSpecs, FlagValues } from './flags.js'
import type { Out } from './io.js'

export interface ArgSpec {
  readonly name: string
  readonly description: string
  readonly required: boolean
  /** Takes every remaining positional, joined with single spaces (titles). */
  readonly rest?: boolean
}

export const arg = (name: string, description: string): ArgSpec => ({ name, description, required: true })
export const optionalArg = (name: string, description: string): ArgSpec => ({ name, description, required: false })
export const restArg = (name: string, description: string): ArgSpec => ({
  name,
  description,
  required: true,
  rest: true,
})

export interface CommandDecl {
  /** Space-separated command path, e.g. `task claim`. */
  readonly path: string
  readonly summary: string
  /** Longer help text (optional). */
  readonly description?: string
  readonly args: readonly ArgSpec[]
  readonly flags: FlagSpecs
  /** The schema id `--json` emits, or null when the command refuses `--json`. */
  readonly json: string | null
  /** Other documents some flags make it emit (`version --compatibility` → compatibility-report/v1). */
  readonly jsonVariants?: readonly string[]
  /** Mutates the workspace: needs a read-write grant (a `--dry-run` is a read). */
  readonly mutates: boolean
  /** Read-only unless one of these flags is given (`glossary <p> --term T` writes, `glossary <p>` reads). */
  readonly mutatesWith?: readonly string[]
  /** A read-only identity may run it: the change is recorded as a proposal event instead. */
  readonly proposes?: boolean
  /** Any identity may run it as it is, read-only ones included: it writes in the caller's own name (`ask`). */
  readonly anyGrant?: boolean
  /** Needs no workspace (help, version, capabilities, schema). */
  readonly standalone?: boolean
  /** Removes things (MCP `destructiveHint`). */
  readonly destructive?: boolean
  /** A repeat with the same input answers `unchanged` (MCP `idempotentHint`). */
  readonly idempotent?: boolean
  /** A usage synopsis when the generated one is not precise enough (alternatives, groups). */
  readonly usage?: string
  /** Example invocations shown in help. */
  readonly examples?: readonly string[]
  /** Hidden from the root help's "most used" list but otherwise a normal command. */
  readonly common?: boolean
}

export interface Input {
  /** Positional arguments by name (rest args joined). Missing optional args are absent. */
  readonly args: Readonly<Record<string, string>>
  /** Typed flag values, only those given. */
  readonly flags: FlagValues
  /** The tokens after the command path, as given. */
  readonly argv: readonly string[]
}

export interface Result<D = unknown> {
  /** The document printed under `--json` (its first key is `schema`). */
  readonly data: D
  /** Renders the human output; never called under `--json`. */
  readonly human?: (out: Out) => void
  /** Exit code to use after printing (verdict commands: 1 or 3 with a report). Default 0. */
  readonly exitCode?: number
}

export interface Command extends CommandDecl {
  readonly kind: 'dacli-command'
  run(ctx: Context, input: Input): Promise<Result>
}

/** A table entry: the declaration, and a loader for the module that runs it. */
export interface CommandEntry extends CommandDecl {
  load(): Promise<Command>
}

export function defineCommand(def: Omit<Command, 'kind'>): Command {
  return Object.freeze({ ...def, kind: 'dacli-command' as const })
}

export function isCommand(x: unknown): x is Command {
  return typeof x === 'object' && x !== null && (x as { kind?: unknown }).kind === 'dacli-command'
}

/** Turn eagerly imported commands into table entries (tests, and the manifest generator's check). */
export function entriesOf(commands: readonly Command[]): CommandEntry[] {
  return commands.map((c) => ({ ...c, load: async () => c }))
}

/** The declaration part of a command, as plain data (the build-time manifest and capabilities use it). */
export function declOf(c: CommandDecl): CommandDecl {
  const d: Record<string, unknown> = {}
  for (const key of [
    'path',
    'summary',
    'description',
    'args',
    'flags',
    'json',
    'jsonVariants',
    'mutates',
    'mutatesWith',
    'proposes',
    'anyGrant',
    'standalone',
    'destructive',
    'idempotent',
    'usage',
    'examples',
    'common',
  ] as const) {
    if (c[key] !== undefined) d[key] = c[key]
  }
  return d as unknown as CommandDecl
}

/** Flag/arg string values, typed accessors used by command bodies. */
export function flagStr(input: Input, name: string): string | undefined {
  const v = input.flags[name]
  return typeof v === 'string' ? v : undefined
}
export function flagNum(input: Input, name: string): number | undefined {
  const v = input.flags[name]
  return typeof v === 'number' ? v : undefined
}
export function flagBool(input: Input, name: string): boolean {
  return input.flags[name] === true
}
export function flagList(input: Input, name: string): string[] {
  const v = input.flags[name]
  return Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)]
}
export function flagNums(input: Input, name: string): number[] {
  const v = input.flags[name]
  return Array.isArray(v) ? v.map(Number) : v === undefined ? [] : [Number(v)]
}

/** Does this call mutate? (declared `mutates`, or a `mutatesWith` flag was given; a `--dry-run` is a read.) */
export function callMutates(c: CommandDecl, flags: FlagValues): boolean {
  if (flags['dry-run'] === true) return false
  return c.mutates || (c.mutatesWith ?? []).some((f) => flags[f] !== undefined)
}

/** Can any call of this command mutate? (help, catalog, capabilities) */
export const mayMutate = (c: CommandDecl): boolean => c.mutates || (c.mutatesWith ?? []).length > 0
