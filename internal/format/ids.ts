// Names that become paths. Every project slug, note slug, agent id and event id
// passes safeSegment() before it touches the file system, so no name can
// escape `.dacli/` (FORMAT.md: traversal → exit 2).

import { createHash } from 'node:crypto'
import { UsageError } from '../base/errors.js'

const MAX_SEGMENT = 100

/** Refuse anything that is not one plain path segment. Returns the name unchanged. */
export function safeSegment(name: string, what: string): string {
  const problem =
    name.length === 0
      ? 'is empty'
      : name.length > MAX_SEGMENT
        ? `is longer than ${MAX_SEGMENT} characters`
        : name === '.' || name === '..'
          ? `is "${name}", which names a folder, not a file`
          : name.includes('..')
            ? 'contains ".."'
            : /[/\\]/.test(name)
              ? 'contains a path separator'
              : name.startsWith('.')
                ? 'starts with a dot'
                : /[\u0000-\u001f\u007f]/.test(name)
                  ? 'contains a control character'
                  : /^[._-]/.test(name)
                    ? 'must start with a lower-case letter or a digit'
                    : !/^[a-z0-9][a-z0-9._-]*$/.test(name)
                      ? 'may contain only lower-case letters, digits, ".", "_" and "-"'
                      : null
  if (problem !== null) {
    throw new UsageError(`${what} ${JSON.stringify(name.slice(0, 120))} ${problem}`, {
      details: { name: name.slice(0, 200), reason: problem },
    })
  }
  return name
}

/** A `--project` filter: absent stays absent; a given slug must be one plain path segment (else exit 2). */
export function projectFilter(slug: string | undefined): string | undefined {
  return slug === undefined ? undefined : safeSegment(slug, 'project slug')
}

/** A file-name slug from a title: lower-case ASCII words joined by dashes, at most 60 characters. */
export function slugify(title: string, max = 60): string {
  const ascii = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
  let slug = ascii.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')
  if (slug.length > max) {
    const cut = slug.slice(0, max)
    // Cut at the last word boundary; a cut that already ends a word keeps that word.
    const dash = slug[max] === '-' ? max : cut.lastIndexOf('-')
    slug = (dash > 10 ? cut.slice(0, dash) : cut).replace(/-+$/, '')
  }
  if (slug === '') slug = `u${createHash('sha256').update(title).digest('hex').slice(0, 8)}`
  return slug
}

const CONTROL_NAMES: Record<number, string> = {
  0: 'NUL',
  7: 'BEL',
  8: 'BS',
  10: 'LF (a newline)',
  11: 'VT',
  12: 'FF',
  13: 'CR',
  27: 'ESC',
  127: 'DEL',
}

/** `the control character ESC (U+001B) at character 4`: which one, and where, for a refusal. */
function controlAt(text: string, re: RegExp): string {
  const m = re.exec(text)
  const code = m === null ? 0 : (m[0].codePointAt(0) as number)
  const name = CONTROL_NAMES[code]
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
  return `the control character ${name === undefined ? hex : `${name} (${hex})`} at character ${(m?.index ?? 0) + 1}`
}

/** What a title may not hold: NUL and the other control characters, tab aside. */
const TITLE_CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f]/

/** `the control character NUL (U+0000) at character 3` for a title read from a file, or null when it has none. */
export function titleControl(title: string): string | null {
  const t = title.trim()
  return TITLE_CONTROLS.test(t) ? controlAt(t, TITLE_CONTROLS) : null
}

/** Reject titles no file or terminal should carry (NUL and other control characters except tab). */
export function checkTitle(title: string, what = 'title'): string {
  const t = title.trim()
  if (t.length === 0) throw new UsageError(`${what} is empty`)
  const controls = TITLE_CONTROLS
  if (controls.test(t)) {
    throw new UsageError(
      `${what} contains ${controlAt(t, controls)}: ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what} is one line of printable text`,
    )
  }
  if (t.length > 500) throw new UsageError(`${what} is ${t.length} characters long; the limit is 500`)
  return t
}

/**
 * What is wrong with a `touches` entry as a path (FORMAT.md: relative to the repository root, never absolute, never
 * `..`, no negation), or null. Whether picomatch can read it as a glob is the overlap check's to say
 * (domain/plan/overlap.ts `globProblem`); this part needs no glob library, so a file's entries are checked on read.
 */
export function touchProblem(entry: string): string | null {
  if (entry.trim() === '') return 'is empty'
  if (entry.length > 300) return 'is longer than 300 characters'
  if (entry.trim() !== entry) return 'starts or ends with a space'
  if (/[\u0000-\u001f\u007f]/.test(entry)) return 'holds a control character'
  if (entry.includes('\\')) return 'holds a backslash (write paths with /)'
  if (entry.startsWith('/')) return 'is absolute (write it relative to the repository root)'
  if (entry.startsWith('!')) return 'is a negation (list what the task touches, not what it does not)'
  if (entry.split('/').includes('..')) return 'leaves the repository (..)'
  return null
}

/**
 * A label (`--label`, `labels:`): what GitHub accepts as a label name — 1 to 50 characters, no control
 * characters, no comma (a comma separates labels in a filter), no surrounding space.
 */
export function checkLabel(label: string, flag = '--label'): string {
  const problem =
    label.trim() === ''
      ? 'is empty'
      : label.trim() !== label
        ? 'starts or ends with a space'
        : /[\u0000-\u001f\u007f]/.test(label)
          ? 'holds a control character'
          : label.includes(',')
            ? 'holds a comma (give --label once per label)'
            : label.length > 50
              ? `is ${label.length} characters long; GitHub's limit is 50`
              : null
  if (problem !== null)
    throw new UsageError(`${flag} "${label.slice(0, 60)}" ${problem}`, { details: { flag, value: label } })
  return label
}

/** A milestone name (`--milestone`, `milestone:`): a title of 1 to 200 characters on one line. */
export function checkMilestone(name: string, flag = '--milestone'): string {
  const t = checkTitle(name, `${flag} name`)
  if (t !== name) throw new UsageError(`${flag} "${name}" starts or ends with a space`, { details: { flag } })
  if (t.length > 200) throw new UsageError(`${flag} is ${t.length} characters long; the limit is 200`)
  return t
}

/** Free text (bodies, criteria): refuse NUL and other controls except tab and newline. */
export function checkText(text: string, what: string): string {
  const controls = /[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f]/
  if (controls.test(text)) {
    throw new UsageError(`${what} contains ${controlAt(text, controls)} (only tab and newline are allowed)`)
  }
  if (text.length > 200_000) throw new UsageError(`${what} is ${text.length} characters long; the limit is 200000`)
  return text
}

/** Crockford base-32 ULID, as `newUlid()` writes it (upper case). */
const ULID_TEXT = '[0-9A-HJKMNP-TV-Z]{26}'

/**
 * The formats of ids read from files. An id becomes part of a path (lock scopes, event file names,
 * agent files), so a value read from a file is used only after it matches its format here.
 */
const ID_FORMATS = {
  task: new RegExp(`^t-${ULID_TEXT}$`),
  note: new RegExp(`^n-${ULID_TEXT}$`),
  risk: new RegExp(`^r-${ULID_TEXT}$`),
  /** A ULID; a question's (`dacli ask`) carries `q-` before it. */
  event: new RegExp(`^(?:q-)?${ULID_TEXT}$`),
  /** `a-root`, or `a-<role>-<6 characters>` / `a-<6 characters>` (lower-case letters, digits, dashes). */
  agent: /^a-[a-z0-9]+(?:-[a-z0-9]+)*$/,
  /** A project's folder name (a slug). */
  project: /^[a-z0-9][a-z0-9._-]*$/,
} as const

export type IdKind = keyof typeof ID_FORMATS

/** Does `v` match the format of a `kind` id (agent ids and slugs also within the segment length limit)? */
export function isId(kind: IdKind, v: unknown): boolean {
  return typeof v === 'string' && v.length <= MAX_SEGMENT && ID_FORMATS[kind].test(v) && !v.includes('..')
}
