// Time stamps as dacli writes them: RFC 3339 in UTC, to the second.

/** RFC 3339 UTC with second precision (`2026-03-01T09:30:00Z`): every time dacli writes. */
export const stamp = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z')

/** The same, from seconds since the epoch (git's and GitHub's clocks). */
export const isoSeconds = (epochSeconds: number): string => stamp(new Date(epochSeconds * 1000))
