// Matching argv to a command path (longest match first) and, when nothing
// matches, bounded deterministic suggestions from the live table (contract.md §5).
// Suggestions are remediation only: nothing here ever runs a command.

import { editDistance } from '../base/distance.js'
import { byText } from '../base/order.js'
import type { CommandDecl } from './command.js'
import { familyOf } from './help.js'

/** Global switches that may come before the command path (`dacli --json task list`). */
const LEADING = new Set(['--json', '--quiet', '--help', '-h', '--json=true', '--quiet=true'])

export interface Match<C extends CommandDecl> {
  command: C
  /** Tokens after the command path, with any leading global switches kept. */
  rest: string[]
}

export function matchCommand<C extends CommandDecl>(table: readonly C[], argv: readonly string[]): Match<C> | null {
  const lead: string[] = []
  let i = 0
  while (i < argv.length && LEADING.has(argv[i] as string)) lead.push(argv[i++] as string)
  const words = argv.slice(i)
  const byPath = new Map(table.map((c) => [c.path, c]))
  for (let k = Math.min(words.length, 4); k >= 1; k--) {
    const c = byPath.get(words.slice(0, k).join(' '))
    if (c !== undefined) return { command: c, rest: [...lead, ...words.slice(k)] }
  }
  return null
}

export interface Guidance {
  message: string
  suggestions: string[]
  next: string[]
  /** A family the caller named; human output lists its commands. */
  family: string | null
}

const MAX = 3
const q = (s: string) => (/^[\w./:@-]+$/.test(s) ? s : JSON.stringify(s))

/** What to say when argv names no command. */
export function guide(table: readonly CommandDecl[], argv: readonly string[]): Guidance {
  // A global switch in the wrong case (`dacli --JSON task list`): the same line with it corrected.
  const folded = argv.map((t) => (t.startsWith('-') && LEADING.has(t.toLowerCase()) ? t.toLowerCase() : t))
  const miscased = argv.filter((t, i) => t !== folded[i])
  if (miscased.length > 0 && matchCommand(table, folded) !== null) {
    return {
      message: `unknown flag${miscased.length === 1 ? '' : 's'}: ${miscased.join(', ')} (flags are lower case)`,
      suggestions: [['dacli', ...folded.map(q)].join(' ')],
      next: ['review the suggested command; it was not executed'],
      family: null,
    }
  }
  const words = argv.filter((t) => !LEADING.has(t))
  const head = words[0] ?? ''
  const rest = words.slice(1)
  const fams = new Set(table.map((c) => familyOf(c.path)).filter((f): f is string => f !== null))
  const singles = table.filter((c) => familyOf(c.path) === null)
  const shown = words.slice(0, 2).join(' ')
  const cmdline = (...parts: string[]) => ['dacli', ...parts.map(q)].join(' ')

  // `dacli show <ref>`: ambiguous read intent — offer both reads, run neither.
  if (editDistance(head, 'show') <= 1 && !fams.has(head)) {
    const shows = table.filter((c) => c.path.endsWith(' show') && !c.mutates).map((c) => c.path)
    const picks = ['project show', 'task show'].filter((p) => shows.includes(p))
    return {
      message: `"${head}" is ambiguous: say which kind of object to show`,
      suggestions: picks.map((p) => cmdline(...p.split(' '), ...rest)),
      next: ['choose the object family explicitly; no suggestion was executed'],
      family: null,
    }
  }

  if (fams.has(head)) {
    const leaves = table.filter((c) => familyOf(c.path) === head)
    const leaf = rest[0]
    if (leaf === undefined || leaf.startsWith('-')) {
      return {
        message: `"${head}" needs a subcommand`,
        suggestions: [],
        next: [cmdline(head, '--help')],
        family: head,
      }
    }
    const names = leaves.map((c) => c.path.slice(head.length + 1))
    const limit = leaf.length <= 3 ? 1 : 2
    const close = names
      .map((n) => ({ n, d: editDistance(leaf, n), m: leaves.find((c) => c.path === `${head} ${n}`)?.mutates }))
      .filter((x) => x.d <= limit)
      .sort((a, b) => a.d - b.d || Number(a.m) - Number(b.m) || byText(a.n, b.n))
      .slice(0, MAX)
    if (close.length > 0) {
      return {
        message: `unknown command "${head} ${leaf}"`,
        suggestions: close.map((x) => cmdline(head, ...x.n.split(' '), ...rest.slice(1))),
        next: ['review the suggested command; it was not executed'],
        family: head,
      }
    }
    if (names.includes('show')) {
      return {
        message: `unknown command "${head} ${leaf}"`,
        suggestions: [cmdline(head, 'show', ...rest)],
        next: ['review the suggested read-only command; it was not executed'],
        family: head,
      }
    }
    return {
      message: `unknown command "${head} ${leaf}"`,
      suggestions: [],
      next: [cmdline(head, '--help')],
      family: head,
    }
  }

  // A typo'd family or top-level command: correct it and keep the rest of the path.
  const candidates = [
    ...[...fams].map((f) => ({ name: f, mutates: false })),
    ...singles.map((c) => ({ name: c.path, mutates: c.mutates })),
  ]
  const limit = head.length <= 3 ? 1 : 2
  const close = candidates
    .map((c) => ({ ...c, d: editDistance(head, c.name) }))
    .filter((c) => c.d <= limit)
    .sort((a, b) => a.d - b.d || Number(a.mutates) - Number(b.mutates) || byText(a.name, b.name))
  // `tsak list`: a family whose leaf is the next word makes a real command; prefer those (over `ask list`).
  const leafy = close.filter((c) => fams.has(c.name) && table.some((t) => t.path === `${c.name} ${rest[0] ?? ''}`))
  const best = (leafy.length > 0 ? leafy : close).slice(0, MAX)
  const label = shown === '' ? '(none)' : shown
  if (best.length > 0) {
    return {
      message: `unknown command "${label}"`,
      suggestions: best.map((c) => cmdline(c.name, ...rest)),
      next: ['review the suggested command; it was not executed'],
      family: null,
    }
  }
  return {
    message: `unknown command "${label}"`,
    suggestions: [],
    next: ['dacli help', 'dacli help --all'],
    family: null,
  }
}
