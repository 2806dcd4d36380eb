// The body of an object file: ATX sections (`## Acceptance`), checkbox lists and
// the `## Log`. Edits touch only the lines they change; sections the tool does
// not know are kept as they are.

import { UsageError } from '../base/errors.js'
import { detached } from '../base/strings.js'
import { checkText, titleControl } from './ids.js'
import { InvalidValueError } from './model.js'
export interface Section {
  level: number
  title: string
  /** Offset of the heading line. */
  start: number
  /** Offset just after the heading line (content starts here). */
  contentStart: number
  /** Offset where the next heading of the same or a higher level starts (or the end). */
  end: number
}

/**
 * An ATX heading line: its marks, and its text with any closing sequence (headingText takes that off). Any character
 * but a line feed is the heading's (`.` would stop at a carriage return or U+2028, and the line be no heading at all:
 * a title with a control character in it is refused by name, never replaced by the file's name without a word).
 */
const HEADING = /^(#{1,6})[ \t]+([^\n]*)$/
/** A closing sequence: `#`s at the end, after a blank or alone (CommonMark: `# C#` is titled "C#", `# C #` is "C"). */
const CLOSING = /(?:^|[ \t]+)#+$/

/**
 * A heading's text as CommonMark reads it from what follows its marks and blank: without trailing blanks, and without
 * a closing sequence of `#`s, which counts only after a blank (`C#` stays "C#"; `Log ##` is "Log").
 */
export function headingText(rest: string): string {
  const t = rest.replace(/[ \t]+$/, '')
  const closing = CLOSING.exec(t)
  return (closing === null ? t : t.slice(0, closing.index)).trim()
}

/**
 * The heading line of `level` for `text`, which headingText reads back as `text`: a text that ends in a blank and `#`s,
 * or is only `#`s, would lose them as a closing sequence, so it gets one of its own (`# C # #` is titled "C #").
 */
export function headingLine(level: number, text: string): string {
  const marks = '#'.repeat(level)
  return CLOSING.test(text) ? `${marks} ${text} #` : `${marks} ${text}`
}

const FENCE = /^[ ]{0,3}(`{3,}|~{3,})/

/** The last body's sections: reading one task asks for its sections several times (shared; never mutate). */
let memo: { body: string; out: Section[] } | null = null

/** Every heading outside fenced code, with the extent of its section. */
export function sections(body: string): readonly Section[] {
  if (memo !== null && memo.body === body) return memo.out
  const out = headings(body)
  memo = { body, out }
  return out
}

function headings(body: string): Section[] {
  const out: Section[] = []
  let fence: string | null = null
  // Line by line without splitting the body: only a line starting with `#`, a backtick, `~` or a space can be a
  // heading or a fence (this runs for every task file a cold listing reads).
  for (let offset = 0; ; ) {
    const nl = body.indexOf('\n', offset)
    const end = nl === -1 ? body.length : nl
    const c = body.charCodeAt(offset)
    if (c !== 35 && c !== 96 && c !== 126 && c !== 32) {
      if (nl === -1) break
      offset = nl + 1
      continue
    }
    const raw = body.slice(offset, end)
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    const f = FENCE.exec(line)
    if (f) {
      const marker = (f[1] as string)[0] as string
      if (fence === null) fence = marker
      else if (fence === marker) fence = null
    } else if (fence === null) {
      const h = HEADING.exec(line)
      if (h) {
        out.push({
          level: (h[1] as string).length,
          title: headingText(h[2] as string),
          start: offset,
          contentStart: end + 1,
          end: body.length,
        })
      }
    }
    if (nl === -1) break
    offset = nl + 1
  }
  for (let i = 0; i < out.length; i++) {
    const s = out[i] as Section
    for (let j = i + 1; j < out.length; j++) {
      if ((out[j] as Section).level <= s.level) {
        s.end = (out[j] as Section).start
        break
      }
    }
    s.contentStart = Math.min(s.contentStart, body.length)
  }
  return out
}

function findSection(body: string, title: string, level?: number): Section | undefined {
  const t = title.toLowerCase()
  return sections(body).find((s) => s.title.toLowerCase() === t && (level === undefined || s.level === level))
}

/** The first `# ` heading's text. */
export function titleOf(body: string): string | null {
  const title = sections(body).find((s) => s.level === 1)?.title
  return title === undefined ? null : detached(title)
}

/** The body with its level-1 title replaced (or put first when it has none). */
export function setTitle(body: string, title: string): string {
  const h = sections(body).find((s) => s.level === 1)
  const line = headingLine(1, title)
  // The heading line keeps its own line ending (a CRLF file stays CRLF); a new one takes the body's.
  if (h) {
    const eol = body[h.contentStart - 1] === '\n' && body[h.contentStart - 2] === '\r' ? '\r\n' : '\n'
    return `${body.slice(0, h.start)}${line}${eol}${body.slice(h.contentStart)}`
  }
  const eol = body.includes('\r\n') ? '\r\n' : '\n'
  return `${eol}${line}${eol}${body}`
}

/**
 * The body with the free text between its title and its first level-2 section replaced (`text` empty: removed).
 */
export function setLead(body: string, text: string): string {
  const all = sections(body)
  const h1 = all.find((s) => s.level === 1)
  const first = all.find((s) => s.level === 2)
  const from = h1 ? h1.contentStart : 0
  const to = first ? first.start : body.length
  const eol = body.includes('\r\n') ? '\r\n' : '\n'
  const lead = text.trim() === '' ? eol : `${eol}${text.trim().replace(/\r?\n/g, eol)}${eol}${first ? eol : ''}`
  return `${body.slice(0, from)}${lead}${body.slice(to)}`
}

/**
 * The `# …` title of a hand-editable object file, refused (`invalid-field`, field "title") when it holds a control
 * character (NUL, ESC, BEL …): such a title never reaches a document, a terminal or a rewrite.
 */
export function checkedTitleOf(body: string): string | null {
  const title = titleOf(body)
  const control = title === null ? null : titleControl(title)
  if (control !== null) {
    throw new InvalidValueError(
      'invalid-field',
      'title',
      `field "title" (the # heading) contains ${control}; a title is one line of printable text`,
    )
  }
  return title
}

/** A section's content without surrounding blank lines, or null when absent or empty. */
export function sectionText(body: string, title: string): string | null {
  const s = findSection(body, title)
  if (s === undefined) return null
  const text = body.slice(s.contentStart, s.end).replace(/\r\n/g, '\n').trim()
  return text === '' ? null : text
}

/** Replace a section's content (or append a level-2 section at the end). */
export function setSection(
  body: string,
  title: string,
  content: string,
  opts: { before?: string; eol?: string } = {},
): string {
  const eol = opts.eol ?? (body.includes('\r\n') ? '\r\n' : '\n')
  const text = content.replace(/\r?\n/g, eol).replace(/\s+$/, '')
  const s = findSection(body, title)
  if (s !== undefined) {
    const tail = body.slice(s.end)
    return `${body.slice(0, s.contentStart)}${text === '' ? '' : text + eol}${tail === '' ? '' : eol}${tail}`
  }
  const block = `## ${title}${eol}${text === '' ? '' : text + eol}`
  const before = opts.before === undefined ? undefined : findSection(body, opts.before)
  if (before !== undefined) return `${body.slice(0, before.start)}${block}${eol}${body.slice(before.start)}`
  const base = body.replace(/\s+$/, '')
  return `${base}${base === '' ? '' : eol + eol}${block}`
}

export interface Checkbox {
  /** 1-based position among the section's checkboxes. */
  n: number
  text: string
  checked: boolean
  /** Offset of the `[` in the body. */
  mark: number
}

const BOX = /^([ ]{0,3}[-*+][ \t]+)\[([ xX])\][ \t]+(.*)$/

/** Checkbox items of a section (`- [ ] text` / `- [x] text`). */
export function checkboxes(body: string, title = 'Acceptance'): Checkbox[] {
  const s = findSection(body, title)
  if (s === undefined) return []
  const out: Checkbox[] = []
  /** Inside a fenced code block (an example a person wrote, not a criterion): its marker, else null. */
  let fence: string | null = null
  // Line by line without splitting the section; the patterns run only on lines that can be an item or a fence.
  for (let offset = s.contentStart; offset < s.end; ) {
    const nl = body.indexOf('\n', offset)
    const end = nl === -1 || nl > s.end ? s.end : nl
    const c = body.charCodeAt(offset)
    if (c === 96 || c === 126 || c === 32) {
      const f = FENCE.exec(body.slice(offset, end))
      if (f !== null) {
        const marker = (f[1] as string)[0] as string
        if (fence === null) fence = marker
        else if (fence === marker) fence = null
        offset = end + 1
        continue
      }
    }
    if (fence === null && (c === 45 || c === 42 || c === 43 || c === 32)) {
      const raw = body.slice(offset, end)
      const m = BOX.exec(raw.endsWith('\r') ? raw.slice(0, -1) : raw)
      if (m) {
        out.push({
          n: out.length + 1,
          text: detached((m[3] as string).trim()),
          checked: m[2] !== ' ',
          mark: offset + (m[1] as string).length,
        })
      }
    }
    offset = end + 1
  }
  return out
}

/** Set the checked state of the given boxes, touching one character each. */
export function setChecked(body: string, boxes: readonly Checkbox[], checked: boolean): string {
  let out = body
  for (const b of boxes) out = `${out.slice(0, b.mark + 1)}${checked ? 'x' : ' '}${out.slice(b.mark + 2)}`
  return out
}

/** The end of the line that ends at `nl` (a `\n` offset): CRLF or LF; `fallback` when there is no `\n` there. */
function lineEndAt(text: string, nl: number, fallback: string): string {
  if (text[nl] !== '\n') return fallback
  return text[nl - 1] === '\r' ? '\r\n' : '\n'
}

/**
 * Append lines at the end of a section (creating it if absent: before the section `opts.before` names when it is
 * there, else at the end). In a body mixing CRLF and LF the new lines take the line end of the line they follow:
 * the section's last line, else its heading, else the line before the new section.
 */
export function appendToSection(
  body: string,
  title: string,
  lines: readonly string[],
  opts: { before?: string } = {},
): string {
  const any = body.includes('\r\n') ? '\r\n' : '\n'
  const s = findSection(body, title)
  if (s === undefined) {
    // A new section goes before the one named (when there is one), else at the end.
    const before = opts.before === undefined ? undefined : findSection(body, opts.before)
    const trimmed = body.replace(/\s+$/, '')
    const at = before === undefined ? body.indexOf('\n', trimmed.length) : before.start - 1
    const eol = lineEndAt(body, at, any)
    return setSection(body, title, `\n${lines.join('\n')}`, {
      eol,
      ...(before === undefined ? {} : { before: opts.before }),
    })
  }
  const content = body.slice(s.contentStart, s.end)
  const tail = body.slice(s.end)
  const headEol = lineEndAt(body, s.contentStart - 1, any)
  // An empty section gets the shape a new one has: a blank line after the heading, the lines, a blank line before
  // the next section. A heading on the body's last line without a line end gets one first.
  if (content.trim() === '') {
    const head = body.slice(0, s.contentStart)
    const ended = head.endsWith('\n') ? head : `${head}${headEol}`
    return `${ended}${headEol}${lines.join(headEol)}${headEol}${tail === '' ? '' : headEol}${tail}`
  }
  // After the section's last line that holds anything, as it was (its trailing spaces are a person's: two are a
  // markdown line break); the blank lines after it stay where they were.
  let last = content.length
  while (last > 0 && /\s/.test(content[last - 1] as string)) last--
  const nl = content.indexOf('\n', last)
  const end = nl === -1 ? content.length : nl
  const cut = content[end - 1] === '\r' ? end - 1 : end
  const kept = content.slice(0, cut)
  const after = content.slice(cut)
  const eol = lineEndAt(content, end, headEol)
  return `${body.slice(0, s.contentStart)}${kept}${eol}${lines.join(eol)}${after === '' ? eol : after}${tail}`
}

/** Quote text as a markdown block quote (text written by others is data, not instructions). */
export function quote(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((l) => (l === '' ? '>' : `> ${l}`))
    .join('\n')
}

/**
 * Untrusted text made inert on one markdown line: control characters and line breaks become spaces, and every
 * character markdown or HTML gives a meaning (emphasis, links, checkboxes, headings, tags, code) is
 * backslash-escaped, so the text renders as itself and can never open a section, an item or a comment.
 */
export function inlineMarkdown(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_{}[\]()<>#+\-.!|~&]/g, (c) => `\\${c}`)
}

/**
 * `checkText` for text written as a section's content: refused (usage) when, read back, it would not be that one
 * section's text — a level 1 or 2 heading line outside fenced code starts a section of its own, and a fence left
 * open swallows every section after it (the task's `## Acceptance` and `## Log`).
 */
export function checkSectionText(text: string, what: string): string {
  checkText(text, what)
  // A `### …` line stays inside a `## ` section: only a level 1 or 2 heading ends it.
  const found = headings(`## A\n\n${text.replace(/\r\n/g, '\n')}\n\n## B\n`).filter((h) => h.level <= 2)
  if (found.length === 2) return text
  const why =
    found.length < 2
      ? 'it opens a fenced code block (``` or ~~~) it does not close'
      : `its line "${found[1]?.title ?? ''}" is a markdown heading, which would start a section of its own`
  throw new UsageError(`${what} cannot be stored as written: ${why}; indent such lines or close the fence`, {
    details: { flag: what },
  })
}

/** One item of a plain bullet list: its text (continuation lines joined by a space) and its lines, `[from, to)`. */
export interface ListItem {
  text: string
  from: number
  to: number
}

/**
 * The items of a bullet list as a person writes one (a risk's `## Indicators`), from the lines of its section: an
 * item starts at `-`, `*` or `+`; an indented line (or one right under the item, CommonMark's lazy continuation)
 * goes on with it; an HTML comment is nobody's item; a line on its own without a bullet is an item of its own.
 */
export function listItems(lines: readonly string[]): ListItem[] {
  const out: ListItem[] = []
  let open: ListItem | null = null
  let comment = false
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).replace(/\r$/, '')
    const line = raw.trim()
    if (comment || line.startsWith('<!--')) {
      comment = !line.includes('-->', comment ? 0 : 4)
      open = null
      continue
    }
    if (line === '') {
      open = null
      continue
    }
    const bullet = /^[ ]{0,3}[-*+][ \t]+(.*)$/.exec(raw)
    if (bullet === null && open !== null) {
      open.text = `${open.text} ${line}`
      open.to = i + 1
      continue
    }
    open = { text: (bullet === null ? line : (bullet[1] as string)).trim(), from: i, to: i + 1 }
    if (open.text === '') open = null
    else out.push(open)
  }
  return out
}
