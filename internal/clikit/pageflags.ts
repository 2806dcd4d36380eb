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

const badCursor = (cursor: string) =>
  new UsageError(`--cursor must be a next_cursor value from a previous page, got "${cursor}"`)

/** A --cursor that is not a next_cursor value is a usage error (checked before a command says anything). */
export function checkCursor(cursor: string | undefined): string | undefined {
  if (cursor !== undefined && !/^\d+$/.test(cursor)) throw badCursor(cursor)
  return cursor
}

/**
 * A listing's sort key of one item, compared element by element (text by code unit, numbers by value): a listing
 * that pages by key is sorted by it, and no two of its items have the same key.
 */
export type PageKey = readonly (string | number)[]

export function compareKeys(a: PageKey, b: PageKey): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as string | number
    const y = b[i] as string | number
    if (x === y) continue
    if (typeof x === 'number' && typeof y === 'number') return x - y
    return String(x) < String(y) ? -1 : 1
  }
  return a.length - b.length
}

/** The cursor of a page that ends with the item of sort key `key`: `k.` and the key's JSON, base64url. */
export const keyCursor = (key: PageKey): string => `k.${Buffer.from(JSON.stringify(key)).toString('base64url')}`

/**
 * Where a page starts: after the item of a key cursor's key (the listing may have changed since the page before:
 * a next page never skips an item that sorts after the last one shown, whatever was added or removed before it),
 * or at an offset (a number, as next_cursor was before key cursors). Null without a cursor. A cursor that is
 * neither is a usage error; so is a key of another shape than `arity` elements of text or number.
 */
export function cursorPlace(cursor: string | undefined, arity: number): { after: PageKey } | { offset: number } | null {
  if (cursor === undefined) return null
  if (/^\d+$/.test(cursor)) return { offset: Number(cursor) }
  if (!cursor.startsWith('k.')) throw badCursor(cursor)
  let key: unknown
  try {
    key = JSON.parse(Buffer.from(cursor.slice(2), 'base64url').toString('utf8'))
  } catch {
    throw badCursor(cursor)
  }
  if (
    !Array.isArray(key) ||
    key.length !== arity ||
    !key.every((x) => typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x)))
  )
    throw badCursor(cursor)
  return { after: key as PageKey }
}

/** The index a page starts at in `items` (sorted by `keyOf`) for a place cursorPlace gave. */
export function pageStart<T>(
  items: readonly T[],
  place: { after: PageKey } | { offset: number } | null,
  keyOf: (item: T) => PageKey,
): number {
  if (place === null) return 0
  if ('offset' in place) return Math.min(place.offset, items.length)
  // The first item that sorts after the key (binary search: the items are sorted by it).
  let lo = 0
  let hi = items.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (compareKeys(keyOf(items[mid] as T), place.after) <= 0) lo = mid + 1
    else hi = mid
  }
  return lo
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
