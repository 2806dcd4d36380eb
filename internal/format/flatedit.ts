// Rewriting frontmatter without the YAML library, for the plain files dacli itself writes: one `key: value`
// line or one block per top-level key, no comments, no blank lines. The edits are the few a task rewrite makes
// (set, delete, a map in flow style, a block map); the text they give is byte for byte what the library path
// (frontmatter.ts renderEdited over the edited Document) gives, or null, and the caller takes the library path.
// A differential test holds the two together (flatedit.test.ts); the result is read back and compared before
// it is returned, so a value this renderer gets wrong is never written.

import { isDeepStrictEqual } from 'node:util'
import { KEY, readFront, SPECIAL_KEY } from './flat.js'
import { plainToken } from './taskfile.js'

/** One change to a top-level key, as a task rewrite makes it. */
export type FrontEdit =
  /** The value in the library's default style (a scalar keeps a plain scalar's place; collections in block style). */
  | { readonly op: 'set'; readonly key: string; readonly value: unknown }
  | { readonly op: 'delete'; readonly key: string }
  /** A map in flow style (`{a: 1}`), or a list of maps one per line, each in flow style. */
  | {
      readonly op: 'flow'
      readonly key: string
      readonly value: Record<string, unknown> | Record<string, unknown>[]
      /** Are an item of the list as written and one of `value` the same item (default: equal values)? */
      readonly same?: (was: unknown, now: unknown) => boolean
    }
  /** A map in block style, merged into the map already there (mapping.ts: the `github:` block). */
  | { readonly op: 'block'; readonly key: string; readonly value: Record<string, unknown> }

/** Thrown (never escapes) when a value leaves what this renderer writes exactly as the library does. */
const BAIL = { bail: true }

/** A plain object (not a Date, a class instance or a prototype-less object: the library treats those its own way). */
const isMap = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype
}

/** A map's entries as the library writes them: keys that read back as themselves, undefined values left out. */
function entriesOf(m: Record<string, unknown>): [string, unknown][] {
  const out: [string, unknown][] = []
  for (const [k, v] of Object.entries(m)) {
    if (!KEY.test(k) || SPECIAL_KEY.test(k)) throw BAIL
    if (v !== undefined) out.push([k, v])
  }
  return out
}

function scalar(v: unknown): string {
  if (typeof v === 'string') {
    if (!plainToken(v)) throw BAIL
    return v
  }
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || Object.is(v, -0)) throw BAIL
    return String(v)
  }
  if (typeof v === 'boolean') return String(v)
  throw BAIL
}

/** A value inside a flow collection. */
function flow(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`
  if (isMap(v)) return flowMap(v)
  return scalar(v)
}

/** `key: …` and the lines under it, each ending in a newline. */
function entry(key: string, op: FrontEdit['op'], v: unknown): string {
  if (op === 'flow') {
    if (!Array.isArray(v)) return `${key}: ${flowMap(v)}\n`
    if (v.length === 0) throw BAIL
    return `${key}:\n${v.map((x) => `  - ${flowMap(x)}\n`).join('')}`
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return `${key}: []\n`
    return `${key}:\n${v.map((x) => `  - ${scalar(x)}\n`).join('')}`
  }
  if (isMap(v)) {
    const es = entriesOf(v)
    if (es.length === 0) return `${key}: {}\n`
    return `${key}:\n${es.map(([k, x]) => `  ${k}: ${scalar(x)}\n`).join('')}`
  }
  return `${key}: ${scalar(v)}\n`
}

function flowMap(v: unknown): string {
  if (!isMap(v)) throw BAIL
  return `{${entriesOf(v)
    .map(([k, x]) => `${k}: ${flow(x)}`)
    .join(', ')}}`
}

/** The top-level entries of a frontmatter text with no blank or comment lines: key → its lines. */
function entriesOfText(front: string): Map<string, string> | null {
  const out = new Map<string, string>()
  let key: string | null = null
  let start = 0
  for (let at = 0; at < front.length; ) {
    const nl = front.indexOf('\n', at)
    if (nl === -1) return null // the last line has no newline: left to the library
    const ch = front[at]
    if (ch === '-') return null // a list at its key's own indent: the library re-indents it
    if (ch !== ' ') {
      if (key !== null) out.set(key, front.slice(start, at))
      const colon = front.indexOf(':', at)
      key = colon === -1 || colon > nl ? null : front.slice(at, colon)
      if (key === null || !KEY.test(key)) return null
      start = at
    } else if (key === null) return null
    at = nl + 1
  }
  if (key !== null) out.set(key, front.slice(start))
  return out
}

/**
 * The frontmatter text after `edits`, written as the library path writes it, or null when that is not certain:
 * `front` is the text between the `---` lines (read by readFront into `data`).
 */
export function editFront(front: string, data: Record<string, unknown>, edits: readonly FrontEdit[]): string | null {
  if (front.includes('#') || front.includes('\r') || front.includes('\t') || /\n[ ]*\n|^\n/.test(front)) return null
  const old = entriesOfText(front)
  if (old === null || old.size === 0) return null
  // The keys in the order the edited Document holds them, each with the style its last edit gave it.
  const now = new Map<string, { value: unknown; op: FrontEdit['op'] | null }>()
  for (const [k, v] of Object.entries(data)) now.set(k, { value: v, op: null })
  try {
    for (const e of edits) {
      if (e.op === 'delete') {
        now.delete(e.key)
        continue
      }
      const cur = now.get(e.key)
      // A block merged into a map already there keeps that map's other keys and style: the library's job.
      if (e.op === 'block' && cur !== undefined && isMap(cur.value)) throw BAIL
      const fresh = e.op === 'block' ? { ...e.value } : e.value
      now.set(e.key, { value: fresh, op: e.op })
    }
    let out = ''
    for (const [key, text] of old) {
      const n = now.get(key)
      if (n === undefined) continue
      if (isDeepStrictEqual(data[key], clean(n.value))) out += text
      else {
        // A scalar set over a scalar keeps the old node's style: only a plain one is written the same here.
        if (n.op === 'set' && !isCollection(n.value) && !isCollection(data[key]) && !plainLine(text)) throw BAIL
        // A list or map already there takes the new value in place (frontmatter.ts keptInPlace): the same bytes as
        // a fresh entry only when it is written as this renderer writes it, and a map's keys keep their order.
        if (
          isCollection(n.value) &&
          isCollection(data[key]) &&
          !writtenAsFresh(key, n.op ?? 'set', data[key], n.value, text)
        )
          throw BAIL
        out += entry(key, n.op ?? 'set', n.value)
      }
    }
    for (const [key, n] of now) if (!old.has(key)) out += entry(key, n.op ?? 'set', n.value)
    const expected: Record<string, unknown> = {}
    for (const [k, n] of now) expected[k] = clean(n.value)
    const back = readFront(out)
    return back !== null && isDeepStrictEqual(back, expected) ? out : null
  } catch (e) {
    if (e === BAIL) return null
    throw e
  }
}

const isCollection = (v: unknown) => v !== null && typeof v === 'object'

/** Is `text` the entry this renderer writes for `was`, and would a map's keys stay in their order with `now`? */
function writtenAsFresh(key: string, op: FrontEdit['op'], was: unknown, now: unknown, text: string): boolean {
  if (text !== entry(key, op, was)) return false
  if (!isMap(was) || !isMap(now)) return true
  const a = Object.keys(was)
  const b = Object.keys(now).filter((k) => now[k] !== undefined)
  const sameKeys = a.length === b.length && b.every((k) => a.includes(k))
  return !sameKeys || a.every((k, i) => b[i] === k)
}

/** `key: value` on one line with a plain (unquoted) value. */
const plainLine = (text: string) => /^[^:\n]+: [^'"{[\n][^\n]*\n$/.test(text)

/** A value as it reads back: maps without their undefined entries. */
function clean(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clean)
  if (isMap(v)) {
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = clean(x)
    return out
  }
  return v
}
