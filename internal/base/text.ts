// Text helpers that need nothing: counts with their plural.

/** `1 criterion`, `2 criteria`, `1 file`, `3 files` (the plural defaults to the singular plus `s`). */
export function count(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralForm}`
}

/** A count and the verb that agrees with it: `1 open question waits`, `2 open questions wait`. */
export function countWith(n: number, singular: string, one: string, many: string, pluralForm = `${singular}s`): string {
  return `${count(n, singular, pluralForm)} ${n === 1 ? one : many}`
}

/** `s` on one line, cut to `n` characters with an ellipsis. */
export const excerpt = (s: string, n = 80): string => {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > n ? `${t.slice(0, n - 1)}…` : t
}
