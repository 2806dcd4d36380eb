// Suggestions when argv names no command (COMPATIBILITY.md): bounded, deterministic,
// from the live table — and every one a complete command line that exists and parses
// (no argument left over). A family alone is never suggested: its commands are. A
// read-only intent is never steered to a command that writes. Nothing here ever runs a command.
// (Other "did you mean" helpers — task references, project slugs — sit beside this.)

import { editDistance } from '../base/distance.js'
import { byText } from '../base/order.js'
import { type CommandDecl, mayMutate } from './command.js'
import { LEADING, matchCommand } from './dispatch.js'
import { parseArgv } from './flags.js'
import { familyOf } from './help.js'

export interface Guidance {
  message: string
  /** Complete command lines the caller may have meant (the caller's own arguments kept). */
  suggestions: string[]
  next: string[]
  /** A family the caller named; human output lists its commands. */
  family: string | null
  /** The suggestions are the family's command list (human output shows the family help instead). */
  listing: boolean
}

/** At most this many suggestions, except a family's own list and a leaf every family shares (`list`). */
const MAX = 3
export const MAX_SHARED_LEAF = 12
/** Near misses ranked after a shared leaf's commands fill the list up to this many. */
const SHARED_LEAF_ROOM = 8

const q = (s: string) => (/^[\w./:@=,-]+$/.test(s) ? s : JSON.stringify(s))
const line = (...parts: string[]) => ['dacli', ...parts.map(q)].join(' ')

/**
 * A command with the caller's tokens, completed with placeholders for what it still requires: `<arg>` for each
 * required argument the tokens do not fill and `--flag VALUE` for each required flag they do not give
 * (`dacli task add <title> --project SLUG` when nothing was given).
 */
function commandLine(c: CommandDecl, given: readonly string[] = []): string {
  const positional = given.filter((t) => !t.startsWith('-')).length
  const missingArgs = c.args.filter((a) => a.required).slice(positional)
  const missingFlags = Object.entries(c.flags).filter(
    ([n, s]) => s.required && !given.some((t) => t === `--${n}` || t.startsWith(`--${n}=`)),
  )
  const tail = [
    ...missingArgs.map((a) => `<${a.name}>`),
    ...missingFlags.flatMap(([n, s]) => [`--${n}`, s.valueName ?? 'VALUE']),
  ]
  return [line(...c.path.split(' '), ...given), ...tail].join(' ')
}

/**
 * Whether the caller's tokens fit the command: no positional left over once its arguments are bound (what would be
 * exit 2 "unexpected argument"). A suggestion that does not fit is not made.
 */
function fits(c: CommandDecl, given: readonly string[]): boolean {
  if (c.args.some((a) => a.rest)) return true
  return parseArgv(given, c.flags, {}, c.params !== undefined).positionals.length <= c.args.length
}

/** Read verbs that name no command but say "read" as plainly as `list` or `show` do. */
const READ_VERBS = ['get', 'view', 'ls', 'read']

/**
 * The words that say the caller means to read: the last word of a command that never writes (`list`, `show`,
 * `status`, `log`, …, from the table's `mutates`) and the plain read verbs, unless a command that may write ends with
 * it too.
 */
function readWords(table: readonly CommandDecl[]): Set<string> {
  const last = (c: CommandDecl) => c.path.slice(c.path.lastIndexOf(' ') + 1)
  const writes = new Set(table.filter(mayMutate).map(last))
  const reads = [...table.filter((c) => !mayMutate(c)).map(last), ...READ_VERBS]
  return new Set(reads.filter((w) => !writes.has(w)))
}

/** The command a suggested line runs (the longest path it starts with). */
function commandOfLine(table: readonly CommandDecl[], s: string): CommandDecl | undefined {
  let found: CommandDecl | undefined
  for (const c of table) {
    const p = `dacli ${c.path}`
    if ((s === p || s.startsWith(`${p} `)) && (found === undefined || c.path.length > found.path.length)) found = c
  }
  return found
}

/**
 * A read-only intent — a word in the command's place (the first two typed) is a read word (`dacli claim list`) — is
 * never offered a command that may write: such suggestions are left out (`task claim list` would claim a task called
 * "list"; `claims list` stays). A family's own list (listing) is help, not a correction, and stays whole.
 */
function readOnlyIntent(table: readonly CommandDecl[], words: readonly string[], g: Guidance): Guidance {
  const reads = readWords(table)
  if (g.listing || !words.slice(0, 2).some((w) => reads.has(w))) return g
  const suggestions = g.suggestions.filter((s) => {
    const c = commandOfLine(table, s)
    return c === undefined || !mayMutate(c)
  })
  if (suggestions.length === g.suggestions.length) return g
  const next =
    suggestions.length > 0
      ? g.next
      : g.family !== null
        ? [line(g.family, '--help')]
        : ['dacli help', 'dacli help --all']
  return { ...g, suggestions, next }
}

const closeness = (word: string, name: string) => {
  const d = editDistance(word, name)
  return d <= (word.length <= 3 ? 1 : 2) ? d : null
}

/** Reads first, then by path: read-only intent is never steered to a write. */
const readsFirst = (a: CommandDecl, b: CommandDecl) => Number(a.mutates) - Number(b.mutates) || byText(a.path, b.path)

/** Inside a family: the command the rest of argv most likely meant, as complete lines. */
function withinFamily(table: readonly CommandDecl[], fam: string, rest: readonly string[]): Guidance {
  const leaves = table.filter((c) => familyOf(c.path) === fam).sort(readsFirst)
  const listing = (message: string, next: string[]): Guidance => ({
    message,
    suggestions: leaves.map((c) => commandLine(c)),
    next,
    family: fam,
    listing: true,
  })
  const leaf = rest[0]
  if (leaf === undefined || leaf.startsWith('-')) return listing(`"${fam}" needs a subcommand`, [line(fam, '--help')])
  const exact = leaves.find((c) => c.path === `${fam} ${leaf}` && fits(c, rest.slice(1)))
  if (exact !== undefined) {
    return {
      message: `unknown command "${fam} ${leaf}"`,
      suggestions: [commandLine(exact, rest.slice(1))],
      next: ['review the suggested command; it was not executed'],
      family: fam,
      listing: false,
    }
  }
  const near = leaves
    .map((c) => ({ c, d: closeness(leaf, c.path.slice(fam.length + 1)) }))
    .filter((x): x is { c: CommandDecl; d: number } => x.d !== null)
  // As at the top level: a near miss that writes only when it is strictly closer than every one that reads.
  const readD = Math.min(...near.filter((x) => !mayMutate(x.c)).map((x) => x.d))
  const close = near
    .filter((x) => !mayMutate(x.c) || x.d < readD)
    .sort((a, b) => a.d - b.d || readsFirst(a.c, b.c))
    .slice(0, MAX)
  if (close.length > 0) {
    // A near miss the rest of the line does not fit is not offered; with none left, the family's list.
    const fitting = close.filter((x) => fits(x.c, rest.slice(1)))
    if (fitting.length === 0) return listing(`unknown command "${fam} ${leaf}"`, [line(fam, '--help')])
    return {
      message: `unknown command "${fam} ${leaf}"`,
      suggestions: fitting.map((x) => commandLine(x.c, rest.slice(1))),
      next: ['review the suggested command; it was not executed'],
      family: fam,
      listing: false,
    }
  }
  // `task ledger/1`: an object named after its family — show it (a read; never a write). `task history ledger/1`: an
  // unknown word before the object is replaced by show, not kept as its argument (`task show history ledger/1` would
  // not parse).
  const show = leaves.find((c) => c.path === `${fam} show`)
  const shown = show === undefined ? undefined : [rest, rest.slice(1)].find((given) => fits(show, given))
  if (show !== undefined && shown !== undefined) {
    return {
      message: `unknown command "${fam} ${leaf}"`,
      suggestions: [commandLine(show, shown)],
      next: ['review the suggested read-only command; it was not executed', line(fam, '--help')],
      family: fam,
      listing: false,
    }
  }
  return listing(`unknown command "${fam} ${leaf}"`, [line(fam, '--help')])
}

/** What to say when argv names no command. */
export function guide(table: readonly CommandDecl[], argv: readonly string[]): Guidance {
  // A global switch in the wrong case (`dacli --JSON task list`): the same line with it corrected.
  const folded = argv.map((t) => (t.startsWith('-') && LEADING.has(t.toLowerCase()) ? t.toLowerCase() : t))
  const miscased = argv.filter((t, i) => t !== folded[i])
  if (miscased.length > 0 && matchCommand(table, folded) !== null) {
    return {
      message: `unknown flag${miscased.length === 1 ? '' : 's'}: ${miscased.join(', ')} (flags are lower case)`,
      suggestions: [line(...folded)],
      next: ['review the suggested command; it was not executed'],
      family: null,
      listing: false,
    }
  }
  const words = argv.filter((t) => !LEADING.has(t))
  const switches = argv.filter((t) => LEADING.has(t) && !t.startsWith('-h') && !t.startsWith('--help'))
  const head = words[0]
  const rest = words.slice(1)
  const fams = new Set(table.map((c) => familyOf(c.path)).filter((f): f is string => f !== null))

  if (head === undefined) {
    const picks = ['overview', 'next', 'catalog'].filter((p) => table.some((c) => c.path === p))
    return {
      message: `no command given: ${['dacli', ...switches].join(' ')} needs a command after dacli (dacli help lists them)`,
      suggestions: picks.map((p) => line(p, ...switches)),
      next: ['dacli help', 'dacli catalog --json'],
      family: null,
      listing: false,
    }
  }

  // `dacli show <ref>`: ambiguous read intent — offer both reads, run neither.
  if (editDistance(head, 'show') <= 1 && !fams.has(head)) {
    const picks = ['project show', 'task show'].filter((p) => table.some((c) => c.path === p && !c.mutates))
    return {
      message: `"${head}" is ambiguous: say which kind of object to show`,
      suggestions: picks.map((p) => line(...p.split(' '), ...rest)),
      next: ['choose the object family explicitly; no suggestion was executed'],
      family: null,
      listing: false,
    }
  }

  if (fams.has(head)) return readOnlyIntent(table, words, withinFamily(table, head, rest))

  // Commands whose last word is what was typed (`dacli list` → `task list`, `project list`, …), most used first.
  const sharedLeaf = table
    .filter((c) => familyOf(c.path) !== null && c.path.endsWith(` ${head}`) && fits(c, rest))
    .sort((a, b) => Number(b.common === true) - Number(a.common === true) || readsFirst(a, b))
    .slice(0, MAX_SHARED_LEAF)
    .map((c) => ({ d: 0, line: commandLine(c, rest) }))
  // A typo'd top-level command, with the rest kept. A command that writes is never proposed for a typo that is as
  // close to something that reads — a read command or a family (`dacli tsk` is `task`, not `ask`): a suggestion is
  // remediation, and a read's typo must not turn into a write.
  const near = table
    .filter((c) => familyOf(c.path) === null)
    .map((c) => ({ c, d: closeness(head, c.path) }))
    .filter((x): x is { c: CommandDecl; d: number } => x.d !== null)
    .map((x) => ({ c: x.c, d: x.d, mutates: mayMutate(x.c), path: x.c.path, line: commandLine(x.c, rest) }))
  const readD = Math.min(
    ...near.filter((x) => !x.mutates).map((x) => x.d),
    ...[...fams].map((f) => closeness(head, f) ?? Number.POSITIVE_INFINITY),
  )
  // A read the rest does not fit still keeps a write as close away; it is not offered itself.
  const singles = near.filter((x) => (!x.mutates || x.d < readD) && fits(x.c, rest))
  // A typo'd family: resolved to the commands of that family the rest most likely meant.
  const families = [...fams]
    .map((f) => ({ f, d: closeness(head, f) }))
    .filter((x): x is { f: string; d: number } => x.d !== null)
    .flatMap((x) => {
      const g = withinFamily(table, x.f, rest)
      const exact = table.some((c) => c.path === `${x.f} ${rest[0] ?? ''}`)
      return g.listing ? [] : g.suggestions.map((s) => ({ d: x.d, mutates: false, path: x.f, line: s, exact }))
    })
  // `tsak list`: a family whose command is the next word makes a real command line; prefer it to `ask list`.
  const exactFamily = families.filter((f) => f.exact)
  const ranked = (exactFamily.length > 0 ? exactFamily : [...singles, ...families]).sort(
    (a, b) => a.d - b.d || Number(a.mutates) - Number(b.mutates) || byText(a.path, b.path),
  )
  const suggestions = [...new Set([...sharedLeaf, ...ranked].map((x) => x.line))].slice(
    0,
    sharedLeaf.length > 0 ? Math.max(sharedLeaf.length, SHARED_LEAF_ROOM) : MAX,
  )
  const label = words.slice(0, 2).join(' ')
  if (suggestions.length === 0) {
    // `dacli tsak`: a typo'd family and nothing more — that family's commands.
    const fam = [...fams]
      .map((f) => ({ f, d: closeness(head, f) }))
      .filter((x): x is { f: string; d: number } => x.d !== null)
      .sort((a, b) => a.d - b.d || byText(a.f, b.f))[0]
    if (fam !== undefined) {
      return readOnlyIntent(table, words, {
        ...withinFamily(table, fam.f, rest),
        message: `unknown command "${label}"`,
      })
    }
  }
  return readOnlyIntent(table, words, {
    message: `unknown command "${label}"`,
    suggestions,
    next:
      suggestions.length > 0
        ? ['review the suggested command; it was not executed']
        : ['dacli help', 'dacli help --all'],
    family: null,
    listing: false,
  })
}
