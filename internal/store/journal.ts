// The change journal (`.dacli/journal/changes.jsonl`): one JSON line appended by
// the store after every mutation it makes, by any process. `watch` and the board
// follow it; a cursor is the journal's tag and a byte offset just after a line,
// so resuming from a cursor replays exactly the lines written after it.
//
// Why a journal rather than comparing file stamps: two changes to one task
// between two looks would collapse into one, and a stopped watcher could not
// tell what it missed. Appends are single O_APPEND writes of one short line, so
// concurrent writers never interleave; readers consume only complete lines.
// The journal is local state, like locks: never committed (its folder ignores
// itself) and never recorded; deleting it only invalidates old cursors.

import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { cmd } from '../base/commands.js'
import { RefusedError, UsageError } from '../base/errors.js'

const CHANGE_KINDS = [
  'task.created',
  'task.changed',
  'task.moved',
  'claim.taken',
  'claim.released',
  'note.added',
  'event.added',
  'event.applied',
  'event.dismissed',
  'question.asked',
  'question.answered',
  'project.created',
  'project.changed',
  'project.removed',
  'risk.added',
  'agent.spawned',
  'agent.retired',
] as const
export type ChangeKind = (typeof CHANGE_KINDS)[number]

/** One journal line. */
export interface ChangeEntry {
  at: string
  kind: ChangeKind
  /** The object's reference for people (`p/001-slug`, `p/note-slug`, an event id), or null. */
  ref: string | null
  /** The object's id (`t-…`, `n-…`, `q-…`, an event ULID, `p-…`, an agent id), or null. */
  id: string | null
  project: string | null
  actor: string | null
  summary: string
  /** Status folders of a task that moved. */
  from?: string
  to?: string
}

export interface Change extends ChangeEntry {
  /** Resume after this change with `--since <cursor>`. */
  cursor: string
}

const JOURNAL_DIR = 'journal'
const FILE = 'changes.jsonl'
const HEADER_KIND = 'dacli-change-journal'
const TAG_RE = /^[0-9a-f]{12}$/
/** A line longer than this is cut (the summary shortens); no entry ever spans two writes. */
const MAX_SUMMARY = 240

export const journalFile = (dir: string) => path.join(dir, JOURNAL_DIR, FILE)

/** The journal's tag, creating the journal (header line) when it does not exist yet. */
function ensureJournal(dir: string): { tag: string; start: number } {
  const file = journalFile(dir)
  const existing = readHeader(file)
  if (existing !== null) return existing
  const folder = path.dirname(file)
  fs.mkdirSync(folder, { recursive: true })
  const ignore = path.join(folder, '.gitignore')
  if (!fs.existsSync(ignore))
    fs.writeFileSync(ignore, '# local change journal (what `watch` reads); never committed\n*\n')
  const tag = randomBytes(6).toString('hex')
  const tmp = path.join(folder, `.${FILE}.${randomBytes(6).toString('hex')}`)
  fs.writeFileSync(tmp, `${JSON.stringify({ journal: HEADER_KIND, version: 1, tag })}\n`)
  try {
    fs.linkSync(tmp, file) // exclusive: two first writers agree on one header
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  } finally {
    fs.rmSync(tmp, { force: true })
  }
  const h = readHeader(file)
  if (h === null) throw new Error(`${file} has no valid header`)
  return h
}

function readHeader(file: string): { tag: string; start: number } | null {
  let fd: number
  try {
    fd = fs.openSync(file, 'r')
  } catch {
    return null
  }
  try {
    const buf = Buffer.alloc(256)
    const n = fs.readSync(fd, buf, 0, buf.length, 0)
    const nl = buf.subarray(0, n).indexOf(10)
    if (nl < 0) return null
    const h = JSON.parse(buf.subarray(0, nl).toString('utf8')) as { journal?: unknown; tag?: unknown }
    if (h.journal !== HEADER_KIND || typeof h.tag !== 'string' || !TAG_RE.test(h.tag)) return null
    return { tag: h.tag, start: nl + 1 }
  } catch {
    return null
  } finally {
    fs.closeSync(fd)
  }
}

/** Append one change. Never fails the command that made it: the change itself is already written. */
export function appendChange(dir: string, entry: ChangeEntry): void {
  try {
    ensureJournal(dir)
    const clean: ChangeEntry = { ...entry, summary: oneLine(entry.summary, MAX_SUMMARY) }
    fs.appendFileSync(journalFile(dir), `${JSON.stringify(clean)}\n`)
  } catch {
    // A full disk or a read-only folder: the mutation stands; watchers miss this one line.
  }
}

const oneLine = (s: string, max: number) => {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > max ? `${t.slice(0, max - 1)}…` : t
}

export interface Cursor {
  tag: string
  offset: number
}

export const formatCursor = (c: Cursor) => `${c.tag}:${c.offset}`

export function parseCursor(text: string): Cursor {
  const m = /^([0-9a-f]{12}):(\d{1,15})$/.exec(text.trim())
  if (m === null) {
    throw new UsageError(`"${text.slice(0, 60)}" is not a watch cursor (it looks like 0123456789ab:1234)`, {
      details: { cursor: text.slice(0, 200) },
      next: ['use the cursor of the last event you saw (its "cursor" field)', cmd('watch (from now)')],
    })
  }
  return { tag: m[1] as string, offset: Number(m[2]) }
}

/** The cursor of "now": the end of the journal's complete lines. */
export function headCursor(dir: string): Cursor {
  const { tag, start } = ensureJournal(dir)
  const size = fs.statSync(journalFile(dir)).size
  return { tag, offset: Math.max(start, completeEnd(journalFile(dir), start, size)) }
}

/** The offset just after the last newline at or before `size` (a line being written is not yet there). */
function completeEnd(file: string, from: number, size: number): number {
  if (size <= from) return from
  const fd = fs.openSync(file, 'r')
  try {
    const window = Math.min(size - from, 4096)
    const buf = Buffer.alloc(window)
    fs.readSync(fd, buf, 0, window, size - window)
    const nl = buf.lastIndexOf(10)
    return nl < 0 ? from : size - window + nl + 1
  } finally {
    fs.closeSync(fd)
  }
}

/** Check that a cursor belongs to this journal and points just after a line. */
export function validateCursor(dir: string, c: Cursor): void {
  const { tag, start } = ensureJournal(dir)
  const size = fs.statSync(journalFile(dir)).size
  const refuse = (why: string) =>
    new RefusedError('cursor', `cannot resume from ${formatCursor(c)}: ${why}`, {
      details: { cursor: formatCursor(c), journal: tag },
      next: [cmd('watch (from now)')],
    })
  if (c.tag !== tag) throw refuse('it belongs to another change journal (this one was created after it)')
  if (c.offset < start || c.offset > size) throw refuse('it is beyond the end of the change journal')
  if (c.offset > start) {
    const fd = fs.openSync(journalFile(dir), 'r')
    try {
      const b = Buffer.alloc(1)
      fs.readSync(fd, b, 0, 1, c.offset - 1)
      if (b[0] !== 10) throw refuse('it does not point at the end of a change')
    } finally {
      fs.closeSync(fd)
    }
  }
}

/**
 * The changes written after `from`, and the cursor after the last complete one.
 * Lines that do not parse (a hand-edited journal) are skipped but still advance the cursor.
 */
export function readChanges(dir: string, from: Cursor, max = 10_000): { changes: Change[]; next: Cursor } {
  const file = journalFile(dir)
  let size: number
  try {
    size = fs.statSync(file).size
  } catch {
    return { changes: [], next: from }
  }
  if (size <= from.offset) return { changes: [], next: from }
  const fd = fs.openSync(file, 'r')
  const changes: Change[] = []
  let offset = from.offset
  try {
    const buf = Buffer.alloc(Math.min(size - from.offset, 4 * 1024 * 1024))
    const n = fs.readSync(fd, buf, 0, buf.length, from.offset)
    let pos = 0
    while (pos < n && changes.length < max) {
      const nl = buf.indexOf(10, pos)
      if (nl < 0 || nl >= n) break
      const line = buf.subarray(pos, nl).toString('utf8')
      pos = nl + 1
      offset = from.offset + pos
      const entry = entryOf(line)
      if (entry !== null) changes.push({ ...entry, cursor: formatCursor({ tag: from.tag, offset }) })
    }
  } finally {
    fs.closeSync(fd)
  }
  return { changes, next: { tag: from.tag, offset } }
}

function entryOf(line: string): ChangeEntry | null {
  try {
    const o = JSON.parse(line) as Record<string, unknown>
    const str = (v: unknown) => (typeof v === 'string' ? v : null)
    if (typeof o.kind !== 'string' || typeof o.at !== 'string') return null
    const e: ChangeEntry = {
      at: o.at,
      kind: o.kind as ChangeKind, // readers tolerate kinds newer than themselves
      ref: str(o.ref),
      id: str(o.id),
      project: str(o.project),
      actor: str(o.actor),
      summary: oneLine(str(o.summary) ?? '', MAX_SUMMARY),
    }
    if (typeof o.from === 'string') e.from = o.from
    if (typeof o.to === 'string') e.to = o.to
    return e
  } catch {
    return null
  }
}

/** The journal's tag right now (null when there is none): a follower notices a journal that was replaced. */
function journalTag(dir: string): string | null {
  return readHeader(journalFile(dir))?.tag ?? null
}

/**
 * Follow the journal from `from`, calling `onChanges` with every batch of new changes (in journal order), until
 * `signal` aborts. Checks about every `intervalMs`; a change by any process shows within that interval.
 * Returns the cursor after the last change delivered.
 */
export async function followChanges(
  dir: string,
  from: Cursor,
  opts: { signal: AbortSignal; intervalMs?: number; onChanges: (changes: Change[]) => void | Promise<void> },
): Promise<Cursor> {
  let at = from
  const interval = opts.intervalMs ?? 200
  // At least one look, even when the signal is already aborted (`--timeout 0`: what is there, then stop).
  for (let first = true; first || !opts.signal.aborted; first = false) {
    const tag = journalTag(dir)
    if (tag !== null && tag !== at.tag) {
      throw new RefusedError('cursor', 'the change journal was replaced while it was being followed', {
        details: { cursor: formatCursor(at), journal: tag },
        next: [cmd('watch (from now)')],
      })
    }
    const { changes, next } = readChanges(dir, at)
    at = next
    if (changes.length > 0) {
      await opts.onChanges(changes)
      continue
    }
    if (!opts.signal.aborted) await sleep(interval, opts.signal)
  }
  return at
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = () => {
      clearTimeout(t)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const t = setTimeout(done, ms)
    signal.addEventListener('abort', done)
  })
}
