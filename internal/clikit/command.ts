// A command is data plus a function. Everything the kernel enforces (flag
// parsing, unknown-flag refusal, the --json gate, the grant gate, usage text,
// capabilities, MCP schemas) derives from the declaration below.

import type { Alias } from './alias.js'
import type { Context } from './context.js'
import type { FlagSpecs, FlagValues, FlagValuesOf } from './flags.js'
import type { Out, Styler } from './io.js'

export interface ArgSpec<N extends string = string> {
  readonly name: N
  readonly description: string
  readonly required: boolean
  /** Takes every remaining positional, joined with single spaces (titles). */
  readonly rest?: boolean
  /** With rest: each positional is one item (a reference), so one holding whitespace is refused (exit 2). */
  readonly list?: boolean
}

export const arg = <const N extends string>(name: N, description: string) => ({
  name,
  description,
  required: true as const,
})
export const optionalArg = <const N extends string>(name: N, description: string) => ({
  name,
  description,
  required: false as const,
})
export const restArg = <const N extends string>(name: N, description: string) => ({
  name,
  description,
  required: true as const,
  rest: true as const,
})

/** What a command body reads as `input.args`: required arguments are strings, optional ones may be absent. */
export type ArgValuesOf<A extends readonly ArgSpec[]> = {
  readonly [S in A[number] as S extends { readonly required: true } ? S['name'] : never]: string
} & {
  readonly [S in A[number] as S extends { readonly required: true } ? never : S['name']]?: string
}

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
  /**
   * Runs until stopped and reports as it goes (`watch`): the schema id of the lines `ctx.emit` prints with the
   * command's own `--jsonl` flag (which it must declare). Under `--json` nothing streams; the final document prints.
   */
  readonly streams?: string
  /**
   * A streaming command whose `--json` streams too: its lines print as they come (JSON Lines) and the final
   * document is the last line (`pr wait`). Without it, `--json` prints only the final document.
   */
  readonly jsonStreams?: boolean
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
  /**
   * Takes `--NAME VALUE` pairs it does not declare, as free string parameters (`run`: a shortcut's parameters).
   * They arrive in `input.params`; which names are known is the command's own business (it refuses the others
   * with `details.unknown_flags`, as the kernel does). MCP publishes them as one `params` object of strings.
   */
  readonly params?: { readonly description: string }
  /** Old names it still answers to for one minor version, with a warning (alias.ts holds the rule). */
  readonly aliases?: readonly Alias[]
}

/** A command's input as the kernel passes it (erased: any declaration). */
export interface Input {
  /** Positional arguments by name (rest args joined). Missing optional args are absent. */
  readonly args: Readonly<Record<string, string>>
  /** Typed flag values, only those given. */
  readonly flags: FlagValues
  /** The tokens after the command path, as given. */
  readonly argv: readonly string[]
  /** Free `--NAME VALUE` parameters (only a command declaring `params` receives any). */
  readonly params: Readonly<Record<string, string>>
}

/** A command's input typed from its declaration: `input.flags.project` is `string | undefined`, a typo fails to compile. */
export interface InputOf<A extends readonly ArgSpec[], F extends FlagSpecs> {
  readonly args: ArgValuesOf<A>
  readonly flags: FlagValuesOf<F>
  /** The tokens after the command path, as given. */
  readonly argv: readonly string[]
  /** Free `--NAME VALUE` parameters (only a command declaring `params` receives any). */
  readonly params: Readonly<Record<string, string>>
}

export interface Result<D = unknown> {
  /** The document printed under `--json` (its first key is `schema`). */
  readonly data: D
  /** Renders the human output; never called under `--json`. */
  readonly human?: (out: Out) => void
  /**
   * The human output when it is plain lines (instead of `human`): written as `out.line` writes it (wrapped on a
   * terminal), styled through the styler it is given. Spares loading the table renderer and its width tables
   * (`--version`, `help`, `task add`, the lifecycle commands).
   */
  readonly text?: string | ((style: Styler) => string)
  /**
   * A verdict command's negative answer, printed as a document and still a failure: `refused` (exit 3:
   * capabilities are missing, the binary is incompatible), `failure` (exit 1: doctor found errors) or `conflict`
   * (exit 5: what was awaited can no longer happen).
   * Mapped to an exit code in exit.ts, like an error's kind. Absent or null: exit 0.
   */
  readonly verdict?: 'refused' | 'failure' | 'conflict' | null
  /** Not a field: a body never picks an exit code (return a `verdict`, or throw a typed error). */
  readonly exitCode?: never
  /**
   * What a `refused` verdict says beyond its report: the policy that said no, why, and what to do instead — what an
   * MCP client gets as `refused`, and what people see on stderr (the report stays on stdout).
   */
  readonly refusal?: Refusal
}

export interface Refusal {
  readonly policy: string
  readonly reason: string
  readonly next: readonly string[]
}

export interface Command extends CommandDecl {
  readonly kind: 'dacli-command'
  run(ctx: Context, input: Input): Promise<Result>
}

/** A table entry: the declaration, and a loader for the module that runs it. */
export interface CommandEntry extends CommandDecl {
  load(): Promise<Command>
}

/** What a command file writes: the declaration, and a body whose input is typed from it. */
export interface CommandDef<A extends readonly ArgSpec[], F extends FlagSpecs>
  extends Omit<CommandDecl, 'args' | 'flags' | 'mutatesWith'> {
  readonly args: A
  readonly flags: F
  readonly mutatesWith?: readonly (keyof F & string)[]
  run(ctx: Context, input: InputOf<A, F>): Promise<Result>
}

export function defineCommand<const A extends readonly ArgSpec[], const F extends FlagSpecs>(
  def: CommandDef<A, F>,
): Command {
  // The one widening of a typed body: invoke() only runs it with arguments bound to `args` and flags parsed
  // against `flags`, required ones checked, so the input has exactly the declared shape.
  return Object.freeze({ ...def, kind: 'dacli-command' as const }) as Command
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
    'streams',
    'jsonStreams',
    'standalone',
    'destructive',
    'idempotent',
    'usage',
    'examples',
    'common',
    'params',
    'aliases',
  ] as const) {
    if (c[key] !== undefined) d[key] = c[key]
  }
  return d as unknown as CommandDecl
}

/** Does this call mutate? (declared `mutates`, or a `mutatesWith` flag was given; a `--dry-run` is a read.) */
export function callMutates(c: CommandDecl, flags: FlagValues): boolean {
  if (flags['dry-run'] === true) return false
  return c.mutates || (c.mutatesWith ?? []).some((f) => flags[f] !== undefined)
}

/** Can any call of this command mutate? (help, catalog, capabilities) */
export const mayMutate = (c: CommandDecl): boolean => c.mutates || (c.mutatesWith ?? []).length > 0
