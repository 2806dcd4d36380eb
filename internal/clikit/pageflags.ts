// The page every list-like command takes (`--limit`, `--cursor`) and announces (`total`, `limit`, `cursor`,
// `next_cursor`, `truncated`). Declared once, so every listing pages alike and the MCP tools built from them
// (internal/mcp/schema.ts) take the same two parameters.

import { cmd, shellWord } from '../base/commands.js'
import { UsageError } from '../base/errors.js'
import { type FlagSpecs, int, str } from './flags.js'

export const pageFlags = {
  limit: int('at most this many on a page', { min: 1, max: 100_000 }),
  cursor: str('the previous page’s next_cursor', { valueName: 'CURSOR' }),
} as const

/**
 * Whether `flags[name]` is the page's flag (compared by value: the built table is the declarations as plain data).
 */
export function isPageFlag(name: string, flags: FlagSpecs): boolean {
  const page: FlagSpecs = pageFlags
  const f = flags[name]
  const p = page[name]
  return f !== undefined && p !== undefined && f.type === p.type && f.description === p.description
}

/** Whether a command pages its listing (declares both page flags). */
export const pages = (flags: FlagSpecs): boolean => isPageFlag('limit', flags) && isPageFlag('cursor', flags)

/** What a listing says about its page. */
export interface Page {
  /** Every item matching the filters, across all pages. */
  readonly total: number
  readonly limit: number | null
  readonly cursor: string | null
  /** Pass as --cursor for the next page; null on the last page. */
  readonly next_cursor: string | null
  /** This page does not hold every match. */
  readonly truncated: boolean
}

/** A --cursor that is not a next_cursor value is a usage error (checked before a command says anything). */
export function checkCursor(cursor: string | undefined): string | undefined {
  if (cursor !== undefined && !/^\d+$/.test(cursor)) {
    throw new UsageError(`--cursor must be a next_cursor value from a previous page, got "${cursor}"`)
  }
  return cursor
}

/** One page of `items` (all of them without a limit); a cursor is a next_cursor from an earlier page. */

export function pageOf<T>(
  items: readonly T[],
  flags: { readonly limit?: number | undefined; readonly cursor?: string | undefined },
): { items: T[]; page: Page } {
  const cursor = checkCursor(flags.cursor)
  const start = cursor === undefined ? 0 : Number(cursor)
  const limit = flags.limit ?? null
  const end = limit === null ? items.length : Math.min(items.length, start + limit)
  return {
    items: items.slice(start, end),
    page: {
      total: items.length,
      limit,
      cursor: cursor ?? null,
      next_cursor: end < items.length ? String(end) : null,
      truncated: start > 0 || end < items.length,
    },
  }
}

/**
 * The skipped files a page lists: all of them without a limit, else at most the limit — a page stays a page when
 * thousands of files cannot be used (a workspace of unsigned 0.1.0 events; files planted to flood an agent's
 * context). `skipped_total` counts them all.
 */
export function skippedOn<T>(broken: readonly T[], limit: number | null): { skipped: T[]; skipped_total: number } {
  return { skipped: limit === null ? [...broken] : broken.slice(0, limit), skipped_total: broken.length }
}

/**
 * The command that shows the page after this one: the command `path` as it was given (`argv`, the tokens after its
 * path), without --json and with --cursor moved to `next`, each word quoted for a shell where it needs it.
 */
export function nextPageCommand(path: string, argv: readonly string[], next: string | number): string {
  const kept: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string
    if (a === '--cursor') i++
    else if (a !== '--json' && !a.startsWith('--cursor=')) kept.push(shellWord(a))
  }
  return cmd([path, ...kept, '--cursor', String(next)].join(' '))
}
