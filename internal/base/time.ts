// Time stamps as dacli writes them: RFC 3339 in UTC, to the second.

/** RFC 3339 UTC with second precision, from seconds since the epoch (git's and GitHub's clocks). */
export const isoSeconds = (epochSeconds: number): string =>
  new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')
