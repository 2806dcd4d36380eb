// Title similarity for the near-duplicate guard (commands.md, task add): token
// sets of lower-cased words and numbers with English stop-words removed; two
// titles are near-duplicates when their Jaccard similarity is at least 0.5 and
// they share at least two tokens. Pure: values in, values out.

const STOP = new Set(
  (
    'a an and are as at be but by for from has have how i if in into is it its of on or our so that the their then ' +
    'there these this to was we were what when where which while who why will with without you your should must ' +
    'can could would may might do does did not no all any each every some more most other such only own same than ' +
    'too very just also up down out over under again further once here both few nor off above below between through ' +
    'during before after about against am been being he she they them his her my me us'
  ).split(' '),
)

export function tokens(title: string): Set<string> {
  const words = title
    .normalize('NFKC')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu)
  return new Set((words ?? []).filter((w) => !STOP.has(w)))
}

export interface Similarity {
  jaccard: number
  shared: number
}

export function similarity(a: string, b: string): Similarity {
  const ta = tokens(a)
  const tb = tokens(b)
  let shared = 0
  for (const t of ta) if (tb.has(t)) shared++
  const union = ta.size + tb.size - shared
  return { jaccard: union === 0 ? 0 : shared / union, shared }
}

export const NEAR_DUPLICATE_JACCARD = 0.5
export const NEAR_DUPLICATE_SHARED = 2

export function isNearDuplicate(a: string, b: string): boolean {
  const s = similarity(a, b)
  return s.jaccard >= NEAR_DUPLICATE_JACCARD && s.shared >= NEAR_DUPLICATE_SHARED
}

/** The most similar near-duplicate among candidates, or null. */
export function nearestDuplicate<T extends { title: string }>(
  title: string,
  candidates: readonly T[],
): (T & Similarity) | null {
  let best: (T & Similarity) | null = null
  for (const c of candidates) {
    const s = similarity(title, c.title)
    if (
      s.jaccard >= NEAR_DUPLICATE_JACCARD &&
      s.shared >= NEAR_DUPLICATE_SHARED &&
      (best === null || s.jaccard > best.jaccard)
    ) {
      best = { ...c, ...s }
    }
  }
  return best
}
