// Matching argv to a command path (longest match first). When nothing matches,
// suggest.ts says what the caller may have meant.

import type { CommandDecl } from './command.js'

/** Global switches that may come before the command path (`dacli --json task list`). */
export const LEADING = new Set(['--json', '--quiet', '--help', '-h', '--json=true', '--quiet=true'])

export interface Match<C extends CommandDecl> {
  command: C
  /** Tokens after the command path, with any leading global switches kept. */
  rest: string[]
  /** The old path it was called by (a declared alias, alias.ts), if not its own. */
  via?: string
}

export function matchCommand<C extends CommandDecl>(table: readonly C[], argv: readonly string[]): Match<C> | null {
  const lead: string[] = []
  let i = 0
  while (i < argv.length && LEADING.has(argv[i] as string)) lead.push(argv[i++] as string)
  const words = argv.slice(i)
  const byPath = new Map(table.map((c) => [c.path, c]))
  // Old paths a command still answers to (alias.ts); a live path always wins.
  const byOld = new Map<string, C>()
  for (const c of table) for (const a of c.aliases ?? []) if (!a.old.startsWith('--')) byOld.set(a.old, c)
  for (let k = Math.min(words.length, 4); k >= 1; k--) {
    const path = words.slice(0, k).join(' ')
    const c = byPath.get(path)
    if (c !== undefined) return { command: c, rest: [...lead, ...words.slice(k)] }
    const old = byOld.get(path)
    if (old !== undefined) return { command: old, rest: [...lead, ...words.slice(k)], via: path }
  }
  return null
}
