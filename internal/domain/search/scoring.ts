// Ranking the documents a search lists through the index: document frequencies and each term's part of a score
// from the postings, the texts read only where they decide something (a phrase, an exact title, the results
// shown), each checked against what its postings said. Same pieces, same order of additions as rank().

import { type Doc, FIELD_NAMES, FIELD_WEIGHTS, type Item } from './docs.js'
import { bad, type Fresh, type Handle } from './entries.js'
import type { IndexReader } from './indexfile.js'
import {
  type Field,
  fieldScore,
  type Hit,
  holds,
  idfOf,
  judge,
  type Prepared,
  prepare,
  type Query,
  rounded,
  snippetOf,
} from './rank.js'

/** The hits of a search's list, best first (ties: in list order): every one counted, the best `limit` shown. */
export function rankList(run: {
  q: Query
  reader: IndexReader | null
  /** The documents searched, in the order ties keep. */
  list: readonly Handle[]
  fresh: readonly Fresh[]
  limit: number
  /** An entry's document (checked). */
  entryDoc: (e: number) => Doc
}): { total: number; hits: Hit<Item>[] } {
  const { q, reader, list, fresh, entryDoc } = run
  const terms = q.terms
  const n = list.length
  const E = reader?.entries ?? 0
  // Each listed entry's place in the list (-1: not listed); the fresh documents listed, with theirs.
  const orderOf = new Int32Array(E).fill(-1)
  const freshListed: [Handle, number][] = []
  for (let k = 0; k < n; k++) {
    const h = list[k] as Handle
    if (h >= 0) orderOf[h] = k
    else freshListed.push([h, k])
  }
  /** The listed entries holding the first term (the only ones that may hold them all). */
  const candidates: number[] = []
  // Per term: each listed entry's exact and prefix counts per field (fields × 2), from the postings.
  const words = q.phrase.split(' ')
  const multi = words.length > 1
  const last = words[words.length - 1] as string
  const counts: Uint32Array[] = []
  const has: Uint8Array[] = []
  const df = terms.map(() => 0)
  const F = FIELD_NAMES.length
  for (const [i, t] of terms.entries()) {
    const r = reader?.range(t)
    // A one-letter word matches only itself, except as a phrase's last word (the start of a longer one).
    const hi = r === undefined ? 0 : t.length >= 2 || (multi && t === last) ? r.hi : r.exact ? r.lo + 1 : r.lo
    if (
      reader === null ||
      r === undefined ||
      hi <= r.lo ||
      (i > 0 && candidates.length === 0 && freshListed.length === 0)
    ) {
      counts.push(new Uint32Array(0))
      has.push(new Uint8Array(E))
      continue
    }
    const c = new Uint32Array(E * 2 * F)
    const hs = new Uint8Array(E)
    counts.push(c)
    has.push(hs)
    const pairs = reader.postings(r.lo, hi)
    const exactPairs = r.exact
      ? 2 * ((reader.postingStarts[r.lo + 1] as number) - (reader.postingStarts[r.lo] as number))
      : 0
    for (let j = 0; j < pairs.length; j += 2) {
      const e = pairs[j] as number
      if (orderOf[e] === -1) continue
      const v = pairs[j + 1] as number
      const code = v >>> 24
      const exact = j < exactPairs
      const at = e * 2 * F + (exact ? 0 : F) + code
      c[at] = (c[at] as number) + (v & 0xffffff)
      if ((exact || t.length >= 2) && hs[e] === 0) {
        hs[e] = 1
        df[i] = (df[i] as number) + 1
        if (i === 0) candidates.push(e)
      }
    }
  }
  // Fresh documents: from their texts.
  const prepared = new Map<Handle, Prepared>()
  for (const [h] of freshListed) {
    const p = prepare(((fresh[-1 - h] as Fresh).doc as Doc).fields, q)
    prepared.set(h, p)
    for (let i = 0; i < terms.length; i++) if (holds(p, i)) df[i] = (df[i] as number) + 1
  }
  const idfs = df.map((x) => idfOf(n, x))
  const judged = new Map<Handle, { where: Field; doc: Doc }>()
  /**
   * Each term's part of an entry's score before its idf, from the postings: the fields in their order, as
   * judge() adds them (a field without the term adds nothing).
   */
  const bestsOf = (h: number): number[] => {
    const base = h * 2 * F
    return terms.map((t, i) => {
      const c = counts[i] as Uint32Array
      let best = 0
      for (let k = 0; k < F; k++) {
        const ex = c[base + k] as number
        const pr = t.length >= 2 ? (c[base + F + k] as number) : 0
        if (ex + pr > 0) best += fieldScore(FIELD_WEIGHTS[k] as number, ex, pr)
      }
      return best
    })
  }
  /** Judge an entry from its text, checking the postings said the same of it. */
  const fromText = (e: number, bests: number[]): number => {
    const doc = entryDoc(e)
    const p = prepare(doc.fields, q)
    const j = judge(p, q, idfs)
    if (j === null || j.bests.length !== bests.length || j.bests.some((b, i) => b !== bests[i]))
      return bad('postings that do not match their document')
    judged.set(e, { where: j.where, doc })
    return j.score
  }
  const hits: { h: Handle; score: number; order: number }[] = []
  for (const [h, order] of freshListed) {
    const f = fresh[-1 - h] as Fresh
    const j = judge(prepared.get(h) as Prepared, q, idfs)
    if (j === null) continue
    judged.set(h, { where: j.where, doc: f.doc as Doc })
    hits.push({ h, score: rounded(j.score), order })
  }
  for (const h of candidates) {
    const order = orderOf[h] as number
    let missing = false
    for (const hs of has) if (hs[h] === 0) missing = true
    if (missing) continue
    const base = h * 2 * F
    const bests = bestsOf(h)
    let score = 0
    for (let i = 0; i < terms.length; i++) score += (bests[i] as number) * (idfs[i] as number)
    // The texts decide a phrase and an exact title: read them where the postings allow either.
    let text = false
    const first = (reader as IndexReader).first[h] as number
    const fc = first >>> 24
    if ((first & 0xffffff) === q.length && terms.every((_, i) => ((counts[i] as Uint32Array)[base + fc] as number) > 0))
      text = true
    if (!text && multi) {
      const idx = (w: string) => terms.indexOf(w)
      const li = idx(last)
      for (let k = 0; k < F && !text; k++) {
        const lc = counts[li] as Uint32Array
        if ((lc[base + k] as number) + (lc[base + F + k] as number) === 0) continue
        text = words.slice(1, -1).every((w) => ((counts[idx(w)] as Uint32Array)[base + k] as number) > 0)
      }
    }
    hits.push({ h, score: rounded(text ? fromText(h, bests) : score), order })
  }
  hits.sort((a, b) => b.score - a.score || a.order - b.order)
  const shown = hits.slice(0, run.limit).map(({ h, score }) => {
    let j = judged.get(h)
    if (j === undefined) {
      if (rounded(fromText(h, bestsOf(h))) !== score) bad('a score its document does not give')
      j = judged.get(h) as { where: Field; doc: Doc }
    }
    return { item: j.doc.item, score, field: j.where.name, snippet: snippetOf(j.where.text, terms) }
  })
  return { total: hits.length, hits: shown }
}
