// Title similarity for the near-duplicate guard. Titles
// become sets of tokens: lower-cased words and numbers, English stop-words
// removed, a plural reduced to its singular. Two titles are near-duplicates when
// they share at least two tokens and either
//   - one token set holds the other, with Jaccard similarity ≥ 0.5 (the same
//     words reordered, re-cased, re-punctuated, pluralised, or one word added), or
//   - each has tokens the other lacks and the Jaccard similarity is ≥ 0.75.
// The second rule is what keeps "Add modulo function" and "Add power function"
// apart: a title that names something the other does not is another task unless
// nearly every word is shared. Pure: values in, values out.

const STOP = new Set(
  (
    'a an and are as at be but by for from has have how i if in into is it its of on or our so that the their then ' +
    'there these this to was we were what when where which while who why will with without you your should must ' +
    'can could would may might do does did not no all any each every some more most other such only own same than ' +
    'too very just also up down out over under again further once here both few nor off above below between through ' +
    'during before after about against am been being he she they them his her my me us'
  ).split(' '),
)

/** The singular of an English plural, conservatively (`functions` → `function`, `queries` → `query`). */
function singular(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`
  if (/(?:ss|sh|ch|x|z)es$/.test(w)) return w.slice(0, -2)
  if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1)
  return w
}

export function tokens(title: string): Set<string> {
  const words = title
    .normalize('NFKC')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu)
  return new Set((words ?? []).filter((w) => !STOP.has(w)).map(singular))
}

export interface Similarity {
  jaccard: number
  shared: number
  /** One title's tokens all appear in the other's. */
  contained: boolean
}

export function similarity(a: string, b: string): Similarity {
  return similarityOf(tokens(a), tokens(b))
}

function similarityOf(ta: ReadonlySet<string>, tb: ReadonlySet<string>): Similarity {
  let shared = 0
  for (const t of ta) if (tb.has(t)) shared++
  const union = ta.size + tb.size - shared
  return { jaccard: union === 0 ? 0 : shared / union, shared, contained: shared === Math.min(ta.size, tb.size) }
}

const NEAR_DUPLICATE_JACCARD = 0.5
/** When each title has tokens the other lacks. */
const NEAR_DUPLICATE_JACCARD_DIFFERING = 0.75
const NEAR_DUPLICATE_SHARED = 2

const near = (s: Similarity) =>
  s.shared >= NEAR_DUPLICATE_SHARED &&
  s.jaccard >= (s.contained ? NEAR_DUPLICATE_JACCARD : NEAR_DUPLICATE_JACCARD_DIFFERING)

export function isNearDuplicate(a: string, b: string): boolean {
  return near(similarity(a, b))
}

/** The most similar near-duplicate among candidates, or null. */
export function nearestDuplicate<T extends { title: string }>(
  title: string,
  candidates: readonly T[],
): (T & Similarity) | null {
  let best: (T & Similarity) | null = null
  // The title's tokens once, not once per candidate (a project of 10,000 tasks tokenized it 10,000 times).
  const ta = tokens(title)
  for (const c of candidates) {
    const s = similarityOf(ta, tokens(c.title))
    if (near(s) && (best === null || s.jaccard > best.jaccard)) {
      best = { ...c, ...s }
    }
  }
  return best
}
