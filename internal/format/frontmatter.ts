// Markdown object files: YAML frontmatter between `---` lines, then a body.
//
// Reading uses yaml's Document API; writing edits that Document (so comments,
// key order, quoting and unknown keys survive) and then splices only the
// top-level entries whose value changed back into the original text, so every
// byte outside an edited field is kept exactly (FORMAT.md: "unknown keys are
// preserved verbatim on rewrite, with their order and comments").

import { isDeepStrictEqual } from 'node:util'
import {
  type Document,
  isMap,
  isNode,
  isScalar,
  isSeq,
  parseDocument,
  type Scalar,
  Document as YAMLDocument,
  type YAMLMap,
} from 'yaml'

import { assemble, type Split, splitFrontmatter } from './flat.js'
import type { FrontEdit } from './flatedit.js'
import { ParseError } from './model.js'

export { ParseError, type Split, splitFrontmatter }

const TO_STRING = { lineWidth: 0, flowCollectionPadding: false } as const

export interface Parsed {
  split: Split
  doc: Document
  data: Record<string, unknown>
}

/** Parse a whole object file. Throws ParseError for anything that is not a YAML map in frontmatter. */
export function parseObject(text: string): Parsed {
  const split = splitFrontmatter(text)
  const front = split.eol === '\r\n' ? split.front.replace(/\r\n/g, '\n') : split.front
  const doc = parseDocument(front, { uniqueKeys: true, prettyErrors: false })
  if (doc.errors.length > 0) {
    const e = doc.errors[0]
    throw new ParseError(`frontmatter is not valid YAML: ${e?.message.split('\n')[0] ?? 'parse error'}`)
  }
  if (doc.contents !== null && !isMap(doc.contents)) throw new ParseError('frontmatter is not a YAML map of keys')
  const data = (plain(doc) ?? {}) as Record<string, unknown>
  return { split, doc, data }
}

/** A YAML file that is a map of keys (config.yml), or null when it is empty. Throws ParseError otherwise. */
export function parseYamlMap(text: string): Record<string, unknown> | null {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false })
  if (doc.errors.length > 0) {
    throw new ParseError(`not valid YAML: ${doc.errors[0]?.message.split('\n')[0] ?? 'parse error'}`)
  }
  if (doc.contents === null) return null
  if (!isMap(doc.contents)) throw new ParseError('not a YAML map of keys')
  return (plain(doc) ?? {}) as Record<string, unknown>
}

/**
 * A document's values. YAML anchors and aliases (`&name`, `*name`) are never resolved: one value read in two places
 * is not what a person sees on a line, and an alias can blow a small file up (a "billion laughs"). Such a file is
 * refused with that said, not with the library's message.
 */
function plain(doc: Document): unknown {
  try {
    return doc.toJS({ maxAliasCount: 0 })
  } catch (e) {
    if (e instanceof ReferenceError && /alias/i.test(e.message)) {
      throw new ParseError('YAML anchors and aliases (&name, *name) are not read: write the value out in full')
    }
    throw e
  }
}

/** Top-level entries of a frontmatter text: key → [start, end) of its lines. */
function entryRanges(front: string, doc: Document): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>()
  const map = doc.contents as YAMLMap | null
  if (map === null) return out
  for (const pair of map.items) {
    const key = isScalar(pair.key) ? String((pair.key as Scalar).value) : null
    const kr = (pair.key as { range?: [number, number, number] } | null)?.range
    if (key === null || kr === undefined) continue
    const vr = (pair.value as { range?: [number, number, number] } | null)?.range
    let end = vr ? vr[2] : kr[2]
    // Extend to the end of the line the entry ends on.
    const nl = front.indexOf('\n', Math.max(end - 1, kr[1]))
    end = nl === -1 ? front.length : nl + 1
    const start = front.lastIndexOf('\n', kr[0] - 1) + 1
    out.set(key, [start, end])
  }
  return out
}

/**
 * Render `doc` (an edited copy of `original`'s document) so that top-level entries
 * whose value did not change keep their original bytes. Falls back to the whole
 * Document rendering if splicing could not reproduce the same data.
 */
export function renderEdited(original: Parsed, doc: Document, body: string): string {
  const { split } = original
  const eol = split.eol
  const oldFront = eol === '\r\n' ? split.front.replace(/\r\n/g, '\n') : split.front
  // Kept text is copied from the file as it is, line ends and all (a file may mix CRLF and LF lines): `at` maps an
  // offset in the LF text to the file's. A changed entry takes the line end of the line it replaces.
  const raw = split.front
  const at = rawOffsets(raw, oldFront)
  const rawOf = (s: number, e: number) => raw.slice(at[s], at[e])
  const ended = (text: string, like: string) => (like.endsWith('\r\n') ? text.replace(/\n/g, '\r\n') : text)
  const oldRanges = entryRanges(oldFront, original.doc)
  const newText = doc.toString(TO_STRING)
  const newDoc = parseDocument(newText)
  const newRanges = entryRanges(newText, newDoc)
  const oldData = original.data
  const newData = (doc.toJS() ?? {}) as Record<string, unknown>

  // `front` is the LF text (checked below), `out` the same text with the file's line ends.
  let front = ''
  let out = ''
  const put = (text: string, ends: string) => {
    front += text
    out += ended(text, ends)
  }
  let cursor = 0
  const handled = new Set<string>()
  /** Deleted keys kept empty for the comment on their line: they read as null (absent). */
  const emptied: Record<string, null> = {}
  // Walk the old entries in order, keeping the text between them (comments, blank lines).
  const olds = [...oldRanges.entries()].sort((a, b) => a[1][0] - b[1][0])
  for (const [key, [s, e]] of olds) {
    front += oldFront.slice(cursor, s)
    out += rawOf(cursor, s)
    cursor = e
    handled.add(key)
    if (!Object.hasOwn(newData, key)) {
      // Deleted: the entry goes, unless a person wrote a comment on the key's line — then the key stays, empty.
      const line = emptiedKey(oldFront.slice(s, e))
      if (line !== null) {
        put(line, rawOf(s, e))
        emptied[key] = null
      }
      continue
    }
    if (isDeepStrictEqual(oldData[key], newData[key])) {
      front += oldFront.slice(s, e)
      out += rawOf(s, e)
    } else {
      const r = newRanges.get(key)
      put(r ? keepGaps(oldFront.slice(s, e), newText.slice(r[0], r[1]), newData[key]) : '', rawOf(s, e))
    }
  }
  front += oldFront.slice(cursor)
  out += rawOf(cursor, oldFront.length)
  // New keys, in the new document's order, at the end.
  const added = [...newRanges.entries()].filter(([k]) => !handled.has(k)).sort((a, b) => a[1][0] - b[1][0])
  if (added.length > 0 && front !== '' && !front.endsWith('\n')) put('\n', eol)
  for (const [, [s, e]] of added) put(newText.slice(s, e), eol)

  let ok = false
  try {
    const check = parseDocument(front)
    ok = check.errors.length === 0 && isDeepStrictEqual(check.toJS() ?? {}, { ...newData, ...emptied })
  } catch {
    ok = false
  }
  if (!ok) {
    front = newText === '{}\n' ? '' : newText
    out = ended(front, eol)
  }
  if (front !== '' && !front.endsWith('\n')) out += eol
  return assemble(split, out, body)
}

/**
 * A deleted entry's first line as an empty key with that line's comment (`labels:  # team tags`), or null when the
 * key's line holds no comment (a `#` inside a quoted value is no comment: the line is read as YAML to tell).
 */
function emptiedKey(entry: string): string | null {
  const first = entry.slice(0, entry.indexOf('\n') + 1 || entry.length).replace(/\n$/, '')
  const m = COMMENTED.exec(first)
  if (m === null) return null
  try {
    const doc = parseDocument(first)
    const pair = isMap(doc.contents) && doc.errors.length === 0 ? doc.contents.items[0] : undefined
    const range = (pair?.key as { range?: [number, number, number] } | null | undefined)?.range
    const comment = isNode(pair?.value) ? pair.value.comment : undefined
    if (range === undefined || comment !== m[3]) return null
    const colon = first.indexOf(':', range[1])
    return colon === -1 ? null : `${first.slice(0, colon + 1)}${m[2]}#${m[3]}\n`
  } catch {
    return null
  }
}

/** For each offset of `lf` (`raw` with its CRLFs made LF), the offset in `raw` of the same character. */
function rawOffsets(raw: string, lf: string): number[] {
  const at = new Array<number>(lf.length + 1)
  let j = 0
  for (let i = 0; i < lf.length; i++) {
    at[i] = j
    j += raw[j] === '\r' && raw[j + 1] === '\n' && lf[i] === '\n' ? 2 : 1
  }
  at[lf.length] = raw.length
  return at
}

/** A line with a comment after its content: [content, the blanks before `#`, the comment]. */
const COMMENTED = /^(.*\S)([ \t]+)#(.*)$/

/**
 * A changed entry's new lines, each with the blanks a person put before its comment (the library writes one space):
 * a line the same but for those blanks is the old line; a one-line entry whose value changed and whose comment did
 * not keeps the old blanks. A key keeps the blanks a person put after its colon (a tab, several spaces). What this
 * gives is checked like the rest of the splice (renderEdited).
 */
function keepGaps(old: string, now: string, value: unknown): string {
  const kept = separatorsKept(old, old.includes('#') && now.includes('#') ? gapsKept(old, now) : now)
  if (kept === now) return now
  // A `#` inside a quoted value looks like a comment to a line: the entry must still read as the value it was given.
  try {
    const back = parseDocument(kept)
    const data = back.errors.length === 0 ? (back.toJS() as Record<string, unknown> | null) : null
    return data !== null && Object.keys(data).length === 1 && isDeepStrictEqual(Object.values(data)[0], value)
      ? kept
      : now
  } catch {
    return now
  }
}

/** A key of a block map, indentation included, and the blanks after its colon before a value on its line. */
const SEPARATED = /^(\s*[^\s:#'"{[-][^:#]*:)([ \t]+)(?=[^\s#])/

/** `now`'s lines with the blanks after each key's colon as `old` had them for that key (when the key is there once). */
function separatorsKept(old: string, now: string): string {
  const byKey = new Map<string, string | null>()
  for (const l of old.split('\n')) {
    const m = SEPARATED.exec(l)
    if (m !== null) byKey.set(m[1] as string, byKey.has(m[1] as string) ? null : (m[2] as string))
  }
  return now
    .split('\n')
    .map((l) => {
      const m = SEPARATED.exec(l)
      const sep = m === null ? undefined : byKey.get(m[1] as string)
      return m === null || sep === undefined || sep === null ? l : `${m[1]}${sep}${l.slice(m[0].length)}`
    })
    .join('\n')
}

/** The key a line of a map starts with, indentation included (`  probable:`). */
const KEYED = /^(\s*[^\s:#-][^:#]*:)\s/

function gapsKept(old: string, now: string): string {
  const olds = old.split('\n')
  const byContent = new Map<string, string>()
  // A nested value that changed keeps its comment's blanks too: key and comment → blanks (null when not one line's).
  const byKey = new Map<string, string | null>()
  for (const l of olds) {
    const m = COMMENTED.exec(l)
    if (m === null) continue
    byContent.set(`${m[1]}\u0000${m[3]}`, l)
    const k = KEYED.exec(m[1] as string)
    if (k !== null) {
      const id = `${k[1]}\u0000${m[3]}`
      byKey.set(id, byKey.has(id) ? null : (m[2] as string))
    }
  }
  const lines = now.split('\n')
  const oneLine = olds.length === 2 && lines.length === 2 ? COMMENTED.exec(olds[0] as string) : null
  return lines
    .map((l, i) => {
      const m = COMMENTED.exec(l)
      if (m === null) return l
      const same = byContent.get(`${m[1]}\u0000${m[3]}`)
      if (same !== undefined) return same
      const k = KEYED.exec(m[1] as string)
      const gap = k === null ? undefined : byKey.get(`${k[1]}\u0000${m[3]}`)
      if (gap !== undefined && gap !== null && i > 0) return `${m[1]}${gap}#${m[3]}`
      return i === 0 && oneLine !== null && oneLine[3] === m[3] ? `${m[1]}${oneLine[2]}#${m[3]}` : l
    })
    .join('\n')
}

/** Make `edits` on a Document (the library's half of a task rewrite; flatedit.ts is the other). */
export function applyEdits(doc: Document, edits: readonly FrontEdit[]): void {
  // Only what the file holds is kept in place: a key edited twice gets its second value whole.
  const touched = new Set<string>()
  for (const e of edits) {
    if (e.op === 'delete') doc.delete(e.key)
    else if (e.op === 'block') setBlock(doc, e.key, e.value)
    else if (touched.has(e.key) || !keptInPlace(doc, e))
      setKeepingComment(doc, e.key, e.op === 'flow' ? flowNode(doc, e.value) : e.value)
    touched.add(e.key)
  }
}

/**
 * Set a top-level key; a value that replaces a scalar (`estimate:  # later`, an empty key with a comment) keeps that
 * scalar's comment on its line: after a flow collection, or after the key of a block one.
 */
function setKeepingComment(doc: Document, key: string, value: unknown): void {
  const old = doc.get(key, true)
  const comment = isScalar(old) ? old.comment : undefined
  // A list or map as a node (a scalar stays a value: it is set inside the scalar there, its style kept).
  doc.set(key, comment && value !== null && typeof value === 'object' && !isNode(value) ? doc.createNode(value) : value)
  const now = doc.get(key, true)
  if (comment === undefined || comment === null || !(isMap(now) || isSeq(now))) return
  if (now.flow) now.comment = comment
  else {
    const pair = (doc.contents as YAMLMap).items.find((p) => isScalar(p.key) && String(p.key.value) === key)
    if (pair !== undefined && isScalar(pair.key)) pair.key.comment = comment
  }
}

/**
 * Give a list or a map the new value inside the node a person wrote, when there is one of that kind with something
 * in it: a list keeps each item still in it (its comments and the way it is written) in the new order, new items
 * added in the list's own style; a map with the same keys gets each value in place (its style, its keys' order and
 * their comments kept). False when the value is set whole (nothing there, nothing to keep, or a map whose keys
 * change).
 */
function keptInPlace(doc: Document, e: Extract<FrontEdit, { op: 'set' | 'flow' }>): boolean {
  const node = doc.get(e.key, true)
  const value = e.value
  if (Array.isArray(value) && isSeq(node) && node.items.length > 0) {
    const same = e.op === 'flow' && e.same !== undefined ? e.same : isDeepStrictEqual
    const old = node.items.map((item) => ({ item, js: toJS(item) }))
    const taken = new Set<number>()
    node.items = value.map((v) => {
      const at = old.findIndex((o, i) => !taken.has(i) && same(o.js, v))
      if (at !== -1) {
        taken.add(at)
        return (old[at] as { item: unknown }).item
      }
      const made = doc.createNode(v) as { flow?: boolean }
      if (e.op === 'flow' && !node.flow) made.flow = true
      return made
    })
    return true
  }
  if (e.op === 'flow' && !Array.isArray(e.value) && isMap(node) && node.items.length > 0) {
    const map = e.value
    const keys = Object.keys(map).filter((k) => map[k] !== undefined)
    const had = node.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value) : null))
    if (had.length !== keys.length || !keys.every((k) => had.includes(k))) return false
    for (const k of keys) node.set(k, map[k])
    return true
  }
  return false
}

const toJS = (item: unknown): unknown =>
  item !== null && typeof item === 'object' && 'toJSON' in item ? (item as { toJSON(): unknown }).toJSON() : item

/** A YAML node for a map (flow style) or a list of maps (block list of flow maps). */
function flowNode(doc: Document, value: Record<string, unknown> | Record<string, unknown>[]) {
  const node = doc.createNode(value) as { flow?: boolean; items?: { flow?: boolean }[] }
  if (Array.isArray(value)) for (const item of node.items ?? []) item.flow = true
  else node.flow = true
  return node
}

/** Merge `values` into the block map under `key`, keeping its other keys (a new block map when there is none). */
function setBlock(doc: Document, key: string, values: Record<string, unknown>): void {
  const current = (doc.toJS() as Record<string, unknown> | null)?.[key]
  if (current !== null && typeof current === 'object' && !Array.isArray(current)) {
    for (const [k, v] of Object.entries(values)) doc.setIn([key, k], v)
  } else {
    setKeepingComment(doc, key, doc.createNode(values))
  }
}

/** Set a top-level scalar in place, keeping its comment and quoting style where possible. */
export function setScalar(doc: Document, key: string, value: string | number | boolean | null): void {
  const node = doc.get(key, true)
  if (isScalar(node)) {
    node.value = value
    return
  }
  doc.set(key, value)
}

/** A fresh object file text (dacli-authored). Values are rendered by yaml so quoting is always right. */
export function renderNew(data: Record<string, unknown>, body: string, style?: (doc: Document) => void): string {
  const doc = new YAMLDocument(data)
  style?.(doc)
  const front = Object.keys(data).length === 0 ? '' : doc.toString(TO_STRING)
  return `---\n${front}---\n${body}`
}
