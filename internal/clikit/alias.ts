// Renamed commands and flags (COMPATIBILITY.md § Deprecation window). A command declares the old spellings it
// still answers to in its `aliases`; this module is the one rule every command gets by declaring one:
//   - the old spelling runs exactly as the new one (the parser and the dispatcher map it, nothing else sees it);
//   - each use prints one warning line on stderr (never on stdout; under --json only after a success, so a
//     failure's stderr stays the one error/v1 envelope; --quiet silences it);
//   - `capabilities --json` lists it on its command with the version that drops it;
//   - it lives for one minor version: `until` is the next minor release after the rename, and a table-wide test
//     fails once the binary's version reaches it (internal/cli/alias.test.ts), so removal cannot be forgotten.

import type { CommandDecl } from './command.js'

export interface Alias {
  /** The old spelling: a command path (`events tail`) or a flag with its dashes (`--brief-tokens`). */
  readonly old: string
  /** For a flag: the declared flag it became, with its dashes (`--budget`). Absent for a command path. */
  readonly now?: string
  /** The release that drops the old spelling (the next minor version after the rename, `0.2.0`). */
  readonly until: string
  /** Why it was renamed, one phrase (capabilities prints it). */
  readonly why: string
}

export const isFlagAlias = (a: Alias): boolean => a.old.startsWith('--')

/** The old flag names of a command mapped to the declared ones (without dashes): what the parser renames. */
export function flagRenames(c: Pick<CommandDecl, 'aliases'>): Readonly<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const a of c.aliases ?? []) {
    if (isFlagAlias(a) && a.now !== undefined) out[a.old.slice(2)] = a.now.slice(2)
  }
  return out
}

/** The one warning line for an old spelling (without the `warning:` prefix the notes add). */
export function deprecationWarning(c: Pick<CommandDecl, 'path'>, a: Alias): string {
  const now = a.now ?? c.path
  const where = isFlagAlias(a) ? `${a.old} of dacli ${c.path}` : `dacli ${a.old}`
  return `${where} is deprecated: use ${isFlagAlias(a) ? now : `dacli ${now}`} (the old name goes away in ${a.until})`
}

/** `0.2.0` → [0, 2, 0]; a malformed version is null. */
export function versionParts(v: string): [number, number, number] | null {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(v)
  return m === null ? null : [Number(m[1]), Number(m[2]), Number(m[3])]
}

/**
 * What is wrong with the table's aliases, for the table-wide test: an old spelling that is also a live name, a
 * flag alias naming an undeclared flag, two commands claiming one old path, and an `until` that is not exactly the
 * next minor version after `version` (the window is one minor version; reaching it means the alias must go).
 */
export function aliasProblems(table: readonly CommandDecl[], version: string): string[] {
  const problems: string[] = []
  const paths = new Set(table.map((c) => c.path))
  const seen = new Map<string, string>()
  const cur = versionParts(version)
  for (const c of table) {
    for (const a of c.aliases ?? []) {
      const at = `${c.path}: ${a.old}`
      if (isFlagAlias(a)) {
        const now = a.now?.slice(2)
        if (now === undefined || !Object.hasOwn(c.flags, now)) problems.push(`${at} renames to an undeclared flag`)
        if (Object.hasOwn(c.flags, a.old.slice(2))) problems.push(`${at} is still a declared flag`)
      } else {
        if (a.now !== undefined) problems.push(`${at}: a command alias names no flag`)
        if (paths.has(a.old)) problems.push(`${at} is a live command path`)
        const other = seen.get(a.old)
        if (other !== undefined) problems.push(`${at} is also an alias of ${other}`)
        seen.set(a.old, c.path)
      }
      const until = versionParts(a.until)
      if (cur === null || until === null) problems.push(`${at}: malformed version (${version} / ${a.until})`)
      else if (!(until[0] === cur[0] && until[1] === cur[1] + 1 && until[2] === 0))
        problems.push(`${at}: goes away in ${a.until}, but the window is one minor version after ${version}`)
    }
  }
  return problems
}
