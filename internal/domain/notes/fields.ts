// The fields of a note or risk file as a work tree writer may have left them (FORMAT.md, "Note", "Risk"): each
// checked to its format where the kind is read (noteOf, riskOf in notes.ts), refused naming the field
// (`invalid-field`) — never coerced into a default, never passed on to a listing, a rank or a comparison.

import * as path from 'node:path'
import { isId } from '../../format/ids.js'
import { InvalidValueError } from '../../format/model.js'

export const NOTE_KINDS = ['decision', 'finding', 'metric', 'ref'] as const
export type NoteKind = (typeof NOTE_KINDS)[number]
export const SEVERITIES = ['major', 'moderate', 'minor'] as const
export const LEVELS = ['high', 'medium', 'low'] as const

/** A hand-edited field out of what it may hold: refused naming the field (`invalid-field`), never coerced. */
function badField(data: Record<string, unknown>, field: string, want: string): never {
  throw new InvalidValueError(
    'invalid-field',
    field,
    `field "${field}" is ${JSON.stringify(data[field])}; expected ${want}`,
  )
}

const absent = (v: unknown) => v === undefined || v === null
/** A reference left empty (`about: ""`) reads as none, as it always did. */
const noRef = (v: unknown) => absent(v) || v === ''

/** `field` is absent or one of `values`. */
export function checkOneOf(data: Record<string, unknown>, field: string, values: readonly string[]): void {
  const v = data[field]
  if (!absent(v) && !values.includes(v as string)) badField(data, field, values.join(', '))
}

/** `field` is absent or a string (a time, an author: shown as they are, never a wrong type turned into "none"). */
export function checkText(data: Record<string, unknown>, field: string, want: string): void {
  if (!absent(data[field]) && typeof data[field] !== 'string') badField(data, field, want)
}

/**
 * A task reference as a note's `about` may hold it: dacli writes the task's id, a person may write any reference
 * (`alpha/3`, `alpha/003-login`) — resolved where it is read, as `note show` does. Never an option, a path or a
 * phrase: an optional project slug, then one word of letters, digits, `.`, `_` and `-`, starting with a letter or
 * digit.
 */
const TASK_REF = /^(?:[a-z0-9][a-z0-9._-]*\/)?[A-Za-z0-9][A-Za-z0-9._-]*$/
const isTaskRef = (v: unknown) => typeof v === 'string' && v.length <= 200 && TASK_REF.test(v) && !v.includes('..')

/**
 * A note's fields, each to its format (FORMAT.md, "Note"): its kind is the one its folder names, its references are
 * ids (a task's, a question's, an event's), its severity one of three. A note is read only here, so every reader —
 * lists, show, edit, search, context, threads — gets a value that was checked, or the file skipped and reported.
 */
export function checkNoteFields(data: Record<string, unknown>, folderKind: NoteKind | null): NoteKind {
  checkOneOf(data, 'note_kind', NOTE_KINDS)
  const kind = (data.note_kind ?? folderKind ?? 'ref') as NoteKind
  if (folderKind !== null && kind !== folderKind)
    badField(data, 'note_kind', `${folderKind} (its folder is notes/${folderKind}s/)`)
  checkOneOf(data, 'severity', SEVERITIES)
  if (!noRef(data.about) && !isTaskRef(data.about))
    badField(data, 'about', 'a task id or reference (t-<ULID>, alpha/3)')
  if (!noRef(data.answers) && !(isId('event', data.answers) && String(data.answers).startsWith('q-')))
    badField(data, 'answers', 'a question id (q-<ULID>)')
  if (!noRef(data.source_event) && !isId('event', data.source_event))
    badField(data, 'source_event', 'an event id (a ULID)')
  checkText(data, 'created', 'an RFC 3339 time')
  checkText(data, 'created_by', 'an agent id')
  return kind
}

/** The kind a note's folder names (`notes/findings/` → finding), or null for a file read from anywhere else. */
export function folderKindOf(file: string): NoteKind | null {
  const folder = path.basename(path.dirname(file))
  const kind = folder.endsWith('s') ? folder.slice(0, -1) : ''
  return (NOTE_KINDS as readonly string[]).includes(kind) && path.basename(path.dirname(path.dirname(file))) === 'notes'
    ? (kind as NoteKind)
    : null
}
