// A reader for the plain subset of YAML that frontmatter is written in — what
// dacli writes (flat `key: value` lines, flow maps and lists, block lists of
// them, nested block maps from edits) and what people usually add by hand — so
// read paths need not load the YAML library. It returns exactly what the YAML
// library would (the 1.2 core schema, unique keys), or null for anything it is
// not sure about, and the caller falls back to the full parser. A property test
// holds the two together (flat.test.ts).

import { detached } from '../base/strings.js'
import { ParseError } from './model.js'

/** Thrown (never escapes) when the text leaves the subset; a constant, so bailing out costs no stack trace. */
const BAIL = { bail: true }

/** Keys: plain identifiers that no schema reads as anything but themselves. */
export const KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/
export const SPECIAL_KEY = /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL|__proto__)$/
/** Characters outside the subset: tabs, control and format characters, line separators, BOM, surrogates. */
const OUTSIDE = /[^\n\x20-\x7e\u00a1-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]/
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/

interface Line {
  indent: number
  text: string
}

/** The numeric forms of the core schema (octal, decimal, hex, infinities and NaN, exponents, decimals). */
const NUMBERISH =
  /^(?:0o[0-7]+|[-+]?[0-9]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*))$/

/** A plain scalar's value under the YAML 1.2 core schema; BAIL for the forms left to the full parser. */
function plain(raw: string): unknown {
  if (raw === '~' || raw === 'null' || raw === 'Null' || raw === 'NULL') return null
  if (raw === 'true' || raw === 'True' || raw === 'TRUE') return true
  if (raw === 'false' || raw === 'False' || raw === 'FALSE') return false
  // Small decimal integers and fractions read the same everywhere; other numbers are left to the full parser.
  if (/^(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?$/.test(raw)) return Number(raw)
  if (NUMBERISH.test(raw)) throw BAIL
  if (INDICATOR.test(raw) || raw.includes(': ') || raw.endsWith(':') || raw.includes(' #')) throw BAIL
  return detached(raw)
}

/** Index just past the double-quoted scalar starting at `s[i]`. */
function endOfDouble(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    const ch = s[j]
    if (ch === '\\') j++
    else if (ch === '"') return j + 1
  }
  throw BAIL
}

/** A value inside a line: a flow collection, a quoted or a plain scalar. Returns [value, index after it]. */
function inline(s: string, i: number, flow: boolean): [unknown, number] {
  const ch = s[i]
  if (ch === '{' || ch === '[') return collection(s, i)
  if (ch === '"') {
    const end = endOfDouble(s, i)
    let v: unknown
    try {
      // A JSON string is a YAML double-quoted scalar with the same value.
      v = JSON.parse(s.slice(i, end))
    } catch {
      throw BAIL
    }
    return [v, end]
  }
  if (ch === "'") {
    let out = ''
    let j = i + 1
    for (;;) {
      const q = s.indexOf("'", j)
      if (q === -1) throw BAIL
      out += s.slice(j, q)
      if (s[q + 1] === "'") {
        out += "'"
        j = q + 2
      } else return [detached(out), q + 1]
    }
  }
  // A plain scalar runs to a comment, or in a flow collection to the next indicator.
  let end = s.length
  const hash = s.indexOf(' #', i)
  if (hash !== -1) end = hash
  if (flow) {
    for (let j = i; j < end; j++) {
      const x = s[j]
      if (x === ',' || x === ']' || x === '}' || x === '[' || x === '{') {
        end = j
        break
      }
    }
  }
  const raw = s.slice(i, end).trimEnd()
  if (raw === '') throw BAIL
  return [plain(raw), i + raw.length]
}

const skipSpaces = (s: string, i: number) => {
  while (s[i] === ' ') i++
  return i
}

/** A key inside a flow map, matched where it starts (sticky: no copy of the rest of the line per key). */
const FLOW_KEY = /[A-Za-z_][A-Za-z0-9_-]*/y

/** A flow map `{k: v, …}` or list `[a, …]` on one line. */
function collection(s: string, i: number): [unknown, number] {
  const isMap = s[i] === '{'
  const close = isMap ? '}' : ']'
  const map: Record<string, unknown> = {}
  const list: unknown[] = []
  let j = skipSpaces(s, i + 1)
  if (s[j] === close) return [isMap ? map : list, j + 1]
  for (;;) {
    if (isMap) {
      FLOW_KEY.lastIndex = j
      const key = FLOW_KEY.exec(s)?.[0]
      if (key === undefined || key.length > 200 || SPECIAL_KEY.test(key) || Object.hasOwn(map, key)) throw BAIL
      j += key.length
      if (s[j] !== ':' || s[j + 1] !== ' ') throw BAIL
      const [v, after] = inline(s, skipSpaces(s, j + 1), true)
      map[key] = v
      j = after
    } else {
      const [v, after] = inline(s, j, true)
      list.push(v)
      j = after
    }
    j = skipSpaces(s, j)
    if (s[j] === close) return [isMap ? map : list, j + 1]
    if (s[j] !== ',') throw BAIL
    j = skipSpaces(s, j + 1)
    if (s[j] === close || s[j] === ',') throw BAIL // a trailing or doubled comma
  }
}

/** A whole value on the rest of a line: nothing may follow it but a comment. */
function lineValue(s: string): unknown {
  const [v, end] = inline(s, 0, false)
  const rest = s.slice(end)
  if (rest !== '' && !/^ +(?:#.*)?$/.test(rest)) throw BAIL
  return v
}

class Reader {
  private at = 0
  constructor(private readonly lines: Line[]) {}

  private peek(): Line | undefined {
    return this.lines[this.at]
  }

  /** A block map whose keys sit at `indent`; `first` is its first line when it opens a list item. */
  map(indent: number, first?: Line): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (let line = first; ; line = undefined) {
      if (line === undefined) {
        const next = this.peek()
        if (next === undefined || next.indent < indent) break
        if (next.indent > indent) throw BAIL // a continued scalar or a stray block
        this.at++
        line = next
      }
      const colon = line.text.indexOf(':')
      const key = colon === -1 ? '' : line.text.slice(0, colon)
      if (!KEY.test(key) || SPECIAL_KEY.test(key) || Object.hasOwn(out, key)) throw BAIL
      const after = line.text.slice(colon + 1)
      if (after !== '' && after[0] !== ' ') throw BAIL
      const rest = after.trimStart()
      out[key] = rest === '' || rest[0] === '#' ? this.nested(indent) : lineValue(rest)
    }
    return out
  }

  /** The block under `key:` at `indent`: a deeper map or list, a list at the same indent, or null. */
  private nested(indent: number): unknown {
    const next = this.peek()
    if (next === undefined || next.indent < indent) return null
    const isItem = next.text === '-' || next.text.startsWith('- ')
    if (next.indent === indent) return isItem ? this.list(indent) : null
    return isItem ? this.list(next.indent) : this.map(next.indent)
  }

  /** A block list whose `- ` marks sit at `indent`. */
  list(indent: number): unknown[] {
    const out: unknown[] = []
    for (;;) {
      const line = this.peek()
      if (line === undefined || line.indent < indent) break
      if (line.indent > indent) throw BAIL
      if (line.text !== '-' && !line.text.startsWith('- ')) break // the parent map's next key
      this.at++
      const body = line.text.slice(1)
      const rest = body.trimStart()
      if (rest === '' || rest[0] === '#' || rest[0] === '-') throw BAIL // nested or empty items: the full parser
      const col = indent + 1 + (body.length - rest.length)
      // `- key: value` opens a map whose keys line up with this first one.
      out.push(
        /^[A-Za-z_][A-Za-z0-9_-]*:(?: |$)/.test(rest) ? this.map(col, { indent: col, text: rest }) : lineValue(rest),
      )
    }
    return out
  }
}

/** The frontmatter text (between the `---` lines) as data, or null when it needs the full YAML parser. */
export function readFront(front: string): Record<string, unknown> | null {
  const text = front.includes('\r') ? front.replace(/\r\n/g, '\n') : front
  if (OUTSIDE.test(text)) return null
  const lines: Line[] = []
  for (const raw of text.split('\n')) {
    const body = raw.trimStart()
    if (body === '' || body[0] === '#') continue
    const trimmed = body.trimEnd()
    lines.push({ indent: raw.length - body.length, text: trimmed })
  }
  try {
    const r = new Reader(lines)
    if (lines.length > 0 && (lines[0] as Line).indent !== 0) return null
    return r.map(0)
  } catch (e) {
    if (e === BAIL) return null
    throw e
  }
}

const OPEN = /^\uFEFF?---[ \t]*\r?\n/

/**
 * The closing line: `---` alone (trailing blanks allowed), at the start of `rest` or after a newline, ended by a
 * newline or the end of the text. [its start, the start of what follows it], or null. (A search for `\n---` and a
 * look at the rest of the line: an unanchored pattern was a tenth of parsing a task file.)
 */
function closeOf(rest: string): [number, number] | null {
  let at = rest.startsWith('---') ? 0 : -1
  for (let from = 0; ; ) {
    if (at === -1) {
      const nl = rest.indexOf('\n---', from)
      if (nl === -1) return null
      at = nl + 1
    }
    let e = at + 3
    while (rest[e] === ' ' || rest[e] === '\t') e++
    if (e === rest.length) return [at, e]
    if (rest[e] === '\n') return [at, e + 1]
    if (rest[e] === '\r' && rest[e + 1] === '\n') return [at, e + 2]
    from = at
    at = -1
  }
}

export interface Split {
  /** Everything up to and including the opening `---` line. */
  head: string
  front: string
  /** The closing `---` line. */
  close: string
  body: string
  eol: '\n' | '\r\n'
}

/**
 * The one frontmatter splitter: every reader of `---` frontmatter (object files, config.yml, a task id read from
 * a blob's bytes) goes through it. Returns why not when the text has no opening or no closing `---` line.
 */
function split(text: string): Split | 'no-open' | 'no-close' {
  const open = OPEN.exec(text)
  if (open === null) return 'no-open'
  const rest = text.slice(open[0].length)
  const c = closeOf(rest)
  if (c === null) return 'no-close'
  return {
    head: open[0],
    front: rest.slice(0, c[0]),
    close: rest.slice(c[0], c[1]),
    body: rest.slice(c[1]),
    eol: open[0].endsWith('\r\n') ? '\r\n' : '\n',
  }
}

/** An object file's text from its split (the opening and closing lines as they were), a new frontmatter and body. */
export function assemble(split: Split, front: string, body: string): string {
  return `${split.head}${front}${split.close.endsWith('\n') ? split.close : split.close + split.eol}${body}`
}

/** Split an object file; throws ParseError when it has no frontmatter. */
export function splitFrontmatter(text: string): Split {
  const s = split(text)
  if (s === 'no-open') throw new ParseError('no frontmatter: the file must start with a "---" line')
  if (s === 'no-close') throw new ParseError('unterminated frontmatter: no closing "---" line')
  return s
}

/** The frontmatter text of a file, or null when it has none. */
export function frontOf(text: string): string | null {
  const s = split(text)
  return typeof s === 'string' ? null : s.front
}

/** An object file's frontmatter data and body without the YAML library, or null when it needs the library. */
export function readObject(text: string): { split: Split; data: Record<string, unknown> } | null {
  const split = splitFrontmatter(text)
  const data = readFront(split.front)
  return data === null ? null : { split, data }
}

/** An object file's frontmatter data and body: the subset reader first, the YAML library when needed. */
export async function parseData(text: string): Promise<{ split: Split; data: Record<string, unknown> }> {
  return readObject(text) ?? (await import('./frontmatter.js')).parseObject(text)
}
