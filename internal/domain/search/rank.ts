// Ranking documents against a query: every query word must occur (a word or the start of a longer one); a word in
// a heavier field counts more, a rarer word more than a common one (idf), the whole query as a phrase more again,
// and a title that is exactly the query comes first. The snippet is the text around the best match. Pure.

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

/** The documents that hold every query word, best first (ties: in the order given). */
export function rank<T>(docs: readonly SearchDoc<T>[], query: string): Hit<T>[] {
  const terms = [...new Set(wordsOf(query))]
  if (terms.length === 0) return []
  const phrase = normal(query)
  const prepared = docs.map((d) => ({ d, fields: d.fields.map((f) => ({ f, words: wordsOf(f.text) })) }))
  // How many documents hold each term (exactly or as a prefix): rarer terms weigh more.
  const df = new Map<string, number>(terms.map((t) => [t, 0]))
  const matchesOf = (words: readonly string[], t: string) => {
    let exact = 0
    let prefix = 0
    for (const w of words) {
      if (w === t) exact++
      else if (t.length >= 2 && w.startsWith(t)) prefix++
    }
    return { exact, prefix }
  }
  const hits: { hit: Hit<T>; order: number }[] = []
  const perDoc = prepared.map(({ d, fields }) => {
    const found = terms.map((t) => fields.map(({ f, words }) => ({ f, ...matchesOf(words, t) })))
    found.forEach((perField, i) => {
      if (perField.some((x) => x.exact + x.prefix > 0))
        df.set(terms[i] as string, (df.get(terms[i] as string) ?? 0) + 1)
    })
    return { d, fields, found }
  })
  const n = docs.length
  perDoc.forEach(({ d, fields, found }, order) => {
    let score = 0
    for (const [i, perField] of found.entries()) {
      const idf = Math.log(1 + n / Math.max(1, df.get(terms[i] as string) ?? 1))
      let best = 0
      for (const x of perField) {
        const s = x.exact > 0 ? x.f.weight * (1 + Math.log(x.exact)) : x.prefix > 0 ? x.f.weight * 0.5 : 0
        best += s
      }
      if (best === 0) return
      score += best * idf
    }
    let where: Field | null = null
    for (const { f, words } of fields) {
      if (phrase.includes(' ') && words.join(' ').includes(phrase)) {
        score += f.weight * 2 * terms.length
        where ??= f
      }
    }
    const title = fields[0]
    if (title !== undefined && normal(title.f.text) === phrase) score += 1000
    where ??=
      fields
        .filter(({ words }) => terms.some((t) => words.some((w) => w === t || w.startsWith(t))))
        .sort((a, b) => b.f.weight - a.f.weight)[0]?.f ?? null
    if (where === null) return
    hits.push({
      hit: {
        item: d.item,
        score: Math.round(score * 1000) / 1000,
        field: where.name,
        snippet: snippetOf(where.text, terms),
      },
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
