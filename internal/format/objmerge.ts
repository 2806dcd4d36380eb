// A three-way merge of one object file (a task, a project, a note …), field by field (FORMAT.md, "Merging
// records"):
//
// - each frontmatter key merges on its own: a key changed on one side takes that side's value; `version` (bumped
//   by every rewrite) becomes one more than the larger side's when both sides rewrote the file;
// - the body is cut at its headings; each section merges on its own, except `## Log` and `## Verification`,
//   whose lines are unioned in time order, and `## Acceptance`, whose boxes merge per criterion;
// - only the same key or section changed differently on both sides is a conflict. The merged text then holds
//   the `keep` side's value there, and the conflict is reported with both values.
//
// The result is written over ours with the project's lossless rewriter (frontmatter.ts, `renderEdited`): the
// bytes of every entry ours already had right — comments, key order, quoting — are kept.

import { canonicalJSON } from '../base/canonical.js'
import { headingText } from './markdown.js'

export interface FieldConflict {
  /** A frontmatter key, `title`, or `section:<heading>`. */
  field: string
  base: unknown
  ours: unknown
  theirs: unknown
}

export interface ObjectMerged {
  text: string
  conflicts: FieldConflict[]
}

type Side = 'ours' | 'theirs'

/**
 * Settles a key both sides changed differently without a conflict, from both sides' whole frontmatter: the side
 * to take, or null (a conflict, as usual). It must decide alike whichever side is ours, so clones converge.
 */
export type Resolver = (key: string, ours: Record<string, unknown>, theirs: Record<string, unknown>) => Side | null

const same = (a: unknown, b: unknown) => canonicalJSON(a ?? null) === canonicalJSON(b ?? null)

/** One body chunk: a heading line and what follows it up to the next heading (the preamble has no heading). */
interface Chunk {
  key: string
  title: string
  text: string
}

const HEADING = /^(#{1,6})[ \t]+([^\n]*?)\r?$/
const FENCE = /^[ ]{0,3}(`{3,}|~{3,})/

function chunks(body: string): Chunk[] {
  const out: Chunk[] = [{ key: 'preamble', title: '', text: '' }]
  const seen = new Map<string, number>()
  let fence: string | null = null
  let titled = false
  for (const line of body.split(/(?<=\n)/)) {
    const f = FENCE.exec(line)
    const h = fence === null && f === null ? HEADING.exec(line.replace(/\n$/, '')) : null
    if (f !== null)
      fence = fence === null ? ((f[1] as string)[0] as string) : fence === (f[1] as string)[0] ? null : fence
    if (h !== null) {
      const level = (h[1] as string).length
      const title = headingText(h[2] as string)
      let key: string
      if (level === 1 && !titled) {
        titled = true
        key = 'title'
      } else {
        const k = `${level}:${title.toLowerCase()}`
        const n = seen.get(k) ?? 0
        seen.set(k, n + 1)
        key = n === 0 ? k : `${k}#${n}`
      }
      out.push({ key, title, text: line })
    } else (out[out.length - 1] as Chunk).text += line
  }
  return out
}

const STAMPED = /^- (\d{4}-\d\d-\d\dT[0-9:.]+Z) /

/** Lines of a section's content, its heading apart. */
function contentLines(c: Chunk | undefined): { head: string; lines: string[] } {
  if (c === undefined) return { head: '', lines: [] }
  const [head, ...rest] = c.text.split(/(?<=\n)/)
  return c.key === 'preamble'
    ? { head: '', lines: [head ?? '', ...rest].filter((l) => l !== '') }
    : { head: head ?? '', lines: rest }
}

/** `## Log`, `## Verification`: every line of either side, each once, in time order (a line without a time follows its predecessor). */
function unionLines(o: Chunk, t: Chunk | undefined): string {
  const { head, lines: ours } = contentLines(o)
  const theirs = contentLines(t).lines
  const blankTail: string[] = []
  const body = (ls: string[]) => ls.filter((l) => l.trim() !== '').map((l) => (l.endsWith('\n') ? l : `${l}\n`))
  while (ours.length > 0 && (ours[ours.length - 1] as string).trim() === '') blankTail.unshift(ours.pop() as string)
  const lead: string[] = []
  while (ours.length > 0 && (ours[0] as string).trim() === '') lead.push(ours.shift() as string)
  const mine = body(ours)
  const have = new Map<string, number>()
  for (const l of mine) have.set(l, (have.get(l) ?? 0) + 1)
  const all = [...mine]
  for (const l of body(theirs)) {
    const n = have.get(l) ?? 0
    if (n > 0) have.set(l, n - 1)
    else all.push(l)
  }
  let last = ''
  const keyed = all.map((l, i) => {
    const m = STAMPED.exec(l)
    if (m !== null) last = m[1] as string
    return { l, at: m !== null ? (m[1] as string) : last, i }
  })
  keyed.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.i - b.i))
  return `${head}${lead.join('')}${keyed.map((k) => k.l).join('')}${blankTail.join('')}`
}

const BOX = /^([ ]{0,3}[-*+][ \t]+)\[([ xX])\]([ \t]+)(.*?)\r?\n?$/

/**
 * `## Acceptance`: each criterion (by its text) keeps the box state the side that changed it gave it. Null when a
 * criterion one side removed had its box changed on the other (two different changes to one line: the section is
 * then a conflict, as any other section changed on both sides).
 */
function mergeBoxes(b: Chunk | undefined, o: Chunk, t: Chunk): string | null {
  const boxes = (c: Chunk | undefined) => {
    const m = new Map<string, boolean>()
    for (const l of contentLines(c).lines) {
      const x = BOX.exec(l)
      if (x !== null) m.set((x[4] as string).trim(), x[2] !== ' ')
    }
    return m
  }
  const [bb, ob, tb] = [boxes(b), boxes(o), boxes(t)]
  for (const [text, was] of bb) {
    const [oc, tc] = [ob.get(text), tb.get(text)]
    if ((oc === undefined && tc !== undefined && tc !== was) || (tc === undefined && oc !== undefined && oc !== was))
      return null
  }
  const { head, lines } = contentLines(o)
  const out: string[] = []
  const emitted = new Set<string>()
  const theirLines = contentLines(t).lines
  // Criteria only theirs added go after the criterion that precedes them on their side.
  const addedAfter = new Map<string, string[]>()
  let prev = ''
  for (const l of theirLines) {
    const x = BOX.exec(l)
    if (x === null) continue
    const text = (x[4] as string).trim()
    if (!ob.has(text) && !bb.has(text))
      addedAfter.set(prev, [...(addedAfter.get(prev) ?? []), l.endsWith('\n') ? l : `${l}\n`])
    prev = text
  }
  const flush = (after: string) => {
    for (const l of addedAfter.get(after) ?? []) out.push(l)
    addedAfter.delete(after)
  }
  flush('')
  for (const l of lines) {
    const x = BOX.exec(l)
    if (x === null) {
      out.push(l)
      continue
    }
    const text = (x[4] as string).trim()
    const inBase = bb.has(text)
    const oc = ob.get(text) as boolean
    if (!tb.has(text) && inBase) continue // theirs removed it, ours left its box alone (a change is a conflict, above)
    const tc = tb.get(text)
    const checked = tc !== undefined && bb.get(text) === oc ? tc : oc
    out.push(`${x[1]}[${checked === oc ? x[2] : checked ? 'x' : ' '}]${x[3]}${x[4]}${l.endsWith('\n') ? '\n' : ''}`)
    emitted.add(text)
    flush(text)
  }
  // Added after a criterion ours removed: at the end of the list.
  const rest = [...addedAfter.values()].flat()
  if (rest.length > 0) {
    let at = out.length
    while (at > 0 && (out[at - 1] as string).trim() === '') at--
    out.splice(at, 0, ...rest)
  }
  return `${head}${out.join('')}`
}

/**
 * Merge three versions of one object file. `base` is null when the file did not exist. Returns null when a
 * version is not an object file that parses (the caller decides for the whole file).
 */
export async function mergeObject(
  base: string | null,
  ours: string,
  theirs: string,
  keep: Side,
  resolve?: Resolver,
): Promise<ObjectMerged | null> {
  const { parseObject, renderEdited, setScalar } = await import('./parsing.js')
  type P = ReturnType<typeof parseObject>
  let pb: P | null
  let po: P
  let pt: P
  try {
    pb = base === null ? null : parseObject(base)
    po = parseObject(ours)
    pt = parseObject(theirs)
  } catch {
    return null
  }
  const conflicts: FieldConflict[] = []
  const doc = po.doc.clone()
  const bd = pb?.data ?? {}
  const keys = [...new Set([...Object.keys(po.data), ...Object.keys(pt.data), ...Object.keys(bd)])]
  let rewritten = false
  for (const k of keys) {
    if (k === 'version') continue
    const [b, o, t] = [bd[k], po.data[k], pt.data[k]]
    if (same(o, t) || same(b, t)) continue
    let take: Side = 'theirs'
    if (!same(b, o)) {
      const settled = resolve?.(k, po.data, pt.data) ?? null
      if (settled === null) conflicts.push({ field: k, base: b ?? null, ours: o ?? null, theirs: t ?? null })
      take = settled ?? keep
    }
    if (take === 'ours') continue
    rewritten = true
    if (t === undefined) doc.delete(k)
    else doc.set(k, pt.doc.get(k, true))
  }
  // Body.
  const [cb, co, ct] = [pb === null ? [] : chunks(pb.split.body), chunks(po.split.body), chunks(pt.split.body)]
  const byKey = (cs: Chunk[]) => new Map(cs.map((c) => [c.key, c]))
  const [mb, mo, mt] = [byKey(cb), byKey(co), byKey(ct)]
  const out: Chunk[] = []
  const pushed = new Set<string>()
  const place = (c: Chunk) => {
    out.push(c)
    pushed.add(c.key)
  }
  const theirsOnlyAfter = new Map<string, Chunk[]>()
  let prev = ''
  for (const c of ct) {
    if (!mo.has(c.key) && !mb.has(c.key)) theirsOnlyAfter.set(prev, [...(theirsOnlyAfter.get(prev) ?? []), c])
    prev = c.key
  }
  const flush = (after: string) => {
    for (const c of theirsOnlyAfter.get(after) ?? []) place(c)
    theirsOnlyAfter.delete(after)
  }
  for (const o of co) {
    const b = mb.get(o.key)
    const t = mt.get(o.key)
    const name = o.key === 'title' || o.key === 'preamble' ? o.key : `section:${o.title}`
    if (o.key === '2:log' || o.key === '2:verification') place({ ...o, text: unionLines(o, t) })
    else if (t === undefined) {
      // Theirs removed it: gone unless ours changed it.
      if (b === undefined || b.text !== o.text) place(o)
    } else if (o.text === t.text || b?.text === t.text) place(o)
    else if (b?.text === o.text) place(t)
    else {
      const boxes = o.key === '2:acceptance' ? mergeBoxes(b, o, t) : null
      if (boxes !== null) place({ ...o, text: boxes })
      else {
        conflicts.push({ field: name, base: b?.text ?? null, ours: o.text, theirs: t.text })
        place(keep === 'ours' ? o : t)
      }
    }
    flush(o.key)
  }
  for (const cs of theirsOnlyAfter.values()) for (const c of cs) if (!pushed.has(c.key)) place(c)
  const body = out.map((c) => c.text).join('')
  const bodyChanged = body !== po.split.body
  // `version`: the side that rewrote the file; when both did, one more than the larger. A side rewrote it when its
  // text differs from the base, bumped or not (a hand edit keeps the number): the merged content is then neither
  // side's, and an `--if-version` of what either side read must not match it.
  const [vo, vt] = [po.data.version, pt.data.version]
  const num = (v: unknown) => (Number.isInteger(Number(v)) ? Number(v) : 0)
  const unversioned = vo === undefined && vt === undefined // a project, note or agent file: none is added
  const version =
    unversioned || theirs === base || theirs === ours ? vo : ours === base ? vt : Math.max(num(vo), num(vt)) + 1
  if (!same(version, vo)) {
    setScalar(doc, 'version', num(version))
    rewritten = true
  }
  if (!rewritten && !bodyChanged) return { text: ours, conflicts }
  return { text: renderEdited(po, doc, body), conflicts }
}

/** Put `text` (a whole section, its heading included) in place of the body part a conflict names (`title`, `section:<heading>`). */
export function replaceBodyPart(body: string, field: string, text: string): string {
  const cs = chunks(body)
  const i = cs.findIndex((c) =>
    field === 'title' || field === 'preamble' ? c.key === field : c.key !== 'title' && `section:${c.title}` === field,
  )
  const fixed = text === '' || text.endsWith('\n') ? text : `${text}\n`
  if (i === -1) return `${body}${body === '' || body.endsWith('\n') ? '' : '\n'}${fixed}`
  return cs.map((c, j) => (j === i ? fixed : c.text)).join('')
}

/** Whether a conflict's field names a part of the body rather than a frontmatter key. */
export const isBodyPart = (field: string) => field === 'title' || field === 'preamble' || field.startsWith('section:')
