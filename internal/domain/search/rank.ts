// Ranking documents against a query: every query word must occur (a word or the start of a longer one); a word in
// a heavier field counts more, a rarer word more than a common one (idf), the whole query as a phrase more again,
// and a title that is exactly the query comes first. The snippet is the text around the best match. Pure.
//
// The search index (index.ts) ranks with the same pieces: `fieldScore` and `idfOf` from its postings, `judge` on
// the texts of the documents it must read (a phrase, an exact title, the results shown), in the same order of
// additions, so a ranking from the index is the ranking `rank` gives, to the last bit of every score.

export interface Field {
  name: string
  text: string
  /** How much a match here counts (the title more than the body). */
  weight: number
}

export interface SearchDoc<T> {
  item: T
  fields: readonly Field[]
}

export interface Hit<T> {
  item: T
  score: number
  /** The field the snippet comes from. */
  field: string
  snippet: string
}

const WORD = /[\p{L}\p{N}]+/gu

export const wordsOf = (text: string): string[] => text.toLowerCase().match(WORD) ?? []

const normal = (text: string) => wordsOf(text).join(' ')

const SNIPPET = 160

/** A query as ranking reads it: its distinct words (the terms), and all its words, normalised, as a phrase. */
export interface Query {
  terms: string[]
  phrase: string
  /** How many words the phrase holds (repeats counted). */
  length: number
}

export function queryOf(query: string): Query {
  const words = wordsOf(query)
  return { terms: [...new Set(words)], phrase: words.join(' '), length: words.length }
}

/** How often `t` occurs in `words` as a word (exact) and as the start of a longer one (prefix, for terms of 2+). */
export function matchesOf(words: readonly string[], t: string): { exact: number; prefix: number } {
  let exact = 0
  let prefix = 0
  for (const w of words) {
    if (w === t) exact++
    else if (t.length >= 2 && w.startsWith(t)) prefix++
  }
  return { exact, prefix }
}

/** What a field adds to a term's score. */
export const fieldScore = (weight: number, exact: number, prefix: number): number =>
  exact > 0 ? weight * (1 + Math.log(exact)) : prefix > 0 ? weight * 0.5 : 0

/** The weight of a term held by `df` of `n` documents. */
export const idfOf = (n: number, df: number): number => Math.log(1 + n / Math.max(1, df))

/** A document's fields with their words, and each term's matches per field. */
export interface Prepared {
  fields: { f: Field; words: string[] }[]
  found: { f: Field; exact: number; prefix: number }[][]
}

export function prepare(fields: readonly Field[], q: Query): Prepared {
  const withWords = fields.map((f) => ({ f, words: wordsOf(f.text) }))
  return {
    fields: withWords,
    found: q.terms.map((t) => withWords.map(({ f, words }) => ({ f, ...matchesOf(words, t) }))),
  }
}

/** Does the document hold term `i` (counted in its document frequency)? */
export const holds = (p: Prepared, i: number): boolean =>
  (p.found[i] as Prepared['found'][number]).some((x) => x.exact + x.prefix > 0)

/**
 * A document's score (not yet rounded), the field its snippet comes from, and each term's part before its idf
 * (`bests`); null when a term is missing.
 */
export function judge(
  p: Prepared,
  q: Query,
  idfs: readonly number[],
): { score: number; where: Field; bests: number[] } | null {
  let score = 0
  const bests: number[] = []
  for (const [i, perField] of p.found.entries()) {
    let best = 0
    for (const x of perField) best += fieldScore(x.f.weight, x.exact, x.prefix)
    if (best === 0) return null
    bests.push(best)
    score += best * (idfs[i] as number)
  }
  let where: Field | null = null
  for (const { f, words } of p.fields) {
    if (q.phrase.includes(' ') && words.join(' ').includes(q.phrase)) {
      score += f.weight * 2 * q.terms.length
      where ??= f
    }
  }
  const title = p.fields[0]
  if (title !== undefined && normal(title.f.text) === q.phrase) score += 1000
  where ??=
    p.fields
      .filter(({ words }) => q.terms.some((t) => words.some((w) => w === t || w.startsWith(t))))
      .sort((a, b) => b.f.weight - a.f.weight)[0]?.f ?? null
  if (where === null) return null
  return { score, where, bests }
}

/** A score as results show it (and sort by). */
export const rounded = (score: number): number => Math.round(score * 1000) / 1000

/** The documents that hold every query word, best first (ties: in the order given). */
export function rank<T>(docs: readonly SearchDoc<T>[], query: string): Hit<T>[] {
  const q = queryOf(query)
  if (q.terms.length === 0) return []
  const prepared = docs.map((d) => prepare(d.fields, q))
  // How many documents hold each term (exactly or as a prefix): rarer terms weigh more.
  const df = q.terms.map(() => 0)
  for (const p of prepared) for (let i = 0; i < q.terms.length; i++) if (holds(p, i)) df[i] = (df[i] as number) + 1
  const n = docs.length
  const idfs = df.map((x) => idfOf(n, x))
  const hits: { hit: Hit<T>; order: number }[] = []
  prepared.forEach((p, order) => {
    const j = judge(p, q, idfs)
    if (j === null) return
    const d = docs[order] as SearchDoc<T>
    hits.push({
      hit: { item: d.item, score: rounded(j.score), field: j.where.name, snippet: snippetOf(j.where.text, q.terms) },
      order,
    })
  })
  return hits.sort((a, b) => b.hit.score - a.hit.score || a.order - b.order).map((h) => h.hit)
}

/** The text around the first occurrence of a query word, on one line, with … where it was cut. */
export function snippetOf(text: string, terms: readonly string[]): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  const lower = flat.toLowerCase()
  let at = -1
  for (const t of terms) {
    const i = lower.search(new RegExp(`(?<![\\p{L}\\p{N}])${t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'u'))
    if (i !== -1 && (at === -1 || i < at)) at = i
  }
  if (flat.length <= SNIPPET) return flat
  const start = Math.max(0, Math.min(at === -1 ? 0 : at - 40, flat.length - SNIPPET))
  const end = Math.min(flat.length, start + SNIPPET)
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`
}
