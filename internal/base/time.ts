// Time stamps as dacli writes them: RFC 3339 in UTC, to the second.

/** RFC 3339 UTC with second precision (`2026-03-01T09:30:00Z`): every time dacli writes. */
export const stamp = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z')

/** The same, from seconds since the epoch (git's and GitHub's clocks). */
export const isoSeconds = (epochSeconds: number): string => stamp(new Date(epochSeconds * 1000))

/**
 * Epoch milliseconds of a stamp read from a file, or null unless it is a real RFC 3339 UTC time (`…Z`, optional
 * fraction): a hostile or hand-mangled stamp is unknown, never coerced (Date.parse reads "1" as 2001 and rolls
 * 30 February into March).
 */
export function epochOfStamp(text: string): number | null {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.\d{1,9})?Z$/.exec(text)
  if (m === null) return null
  const ms = Date.parse(text)
  return Number.isFinite(ms) && new Date(ms).toISOString().startsWith(m[1] as string) ? ms : null
}
