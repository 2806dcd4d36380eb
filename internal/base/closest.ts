// How close two names are, and the closest few of many: the "did you mean" of
// flags, task references and project slugs. Pure and deterministic:
// ties break by the candidate's text in code-unit order, never by locale.

import { editDistance, MAX_SUGGESTIONS } from './distance.js'
import { byText } from './order.js'
import { tokens } from './similarity.js'
export interface Named {
  /** What would be typed instead (a short ref, a slug). */
  readonly value: string
  /** Names it answers to (slug, sequence number). */
  readonly names: readonly string[]
  /** Its title, matched word by word. */
  readonly title?: string | null
}

/**
 * How far `query` is from a candidate, 0 (same) to 1 (unrelated): the best of the edit distance to any of its
 * names (relative to length), a name that starts with or contains the query, and the share of the query's words
 * found in the title.
 */
export function distanceTo(query: string, c: Named): number {
  const q = query.toLowerCase()
  let best = 1
  for (const n of c.names) {
    const name = n.toLowerCase()
    if (name === q) return 0
    if (q.length >= 3 && name.startsWith(q)) best = Math.min(best, 0.2)
    else if (q.length >= 3 && name.includes(q)) best = Math.min(best, 0.3)
    const d = editDistance(q, name)
    const limit = q.length <= 3 ? 1 : q.length <= 6 ? 2 : 3
    if (d <= limit) best = Math.min(best, (d / Math.max(q.length, name.length)) * 0.9)
  }
  if (c.title) {
    const words = [...tokens(q.replace(/[-_]+/g, ' '))]
    if (words.length > 0) {
      const title = tokens(c.title)
      const found = words.filter((w) => title.has(w) || [...title].some((t) => w.length >= 4 && t.startsWith(w))).length
      if (found > 0) best = Math.min(best, 0.6 * (1 - found / words.length) + 0.1)
    }
  }
  return best
}

/** The closest candidates (at most three, nearest first, then by value), only those reasonably near. */
export function closest<C extends Named>(query: string, candidates: readonly C[], max = MAX_SUGGESTIONS): C[] {
  return candidates
    .map((c) => ({ c, d: distanceTo(query, c) }))
    .filter((x) => x.d < 0.5)
    .sort((a, b) => a.d - b.d || byText(a.c.value, b.c.value))
    .slice(0, max)
    .map((x) => x.c)
}
