// The change journal (`.dacli/journal/changes.jsonl`): one JSON line appended by
// the store after every mutation it makes, by any process. `watch` and the board
// follow it; a cursor is the journal's tag and a byte offset just after a line,
// so resuming from a cursor replays exactly the lines written after it.
//
// Why a journal as well as comparing file stamps (which `watch` also does, for
// changes made by hand or by git): two changes to one task between two looks
// would collapse into one, a stopped watcher could not tell what it missed, and
// only the journal knows who made a change. The journal is cut into bounded
// segments (`changes-<n>.jsonl` sealed, `changes.jsonl` current); a cursor names
// its segment, and readers go on from one segment to the next. Appends are
// single O_APPEND writes of one short line, so concurrent writers never
// interleave; readers consume only complete lines.
// The journal is local state, like locks: never committed (its folder ignores
// itself) and never recorded; deleting it only invalidates old cursors.

import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { cmd } from '../base/commands.js'
import { timerDelay } from '../base/duration.js'
import { FailureError, RefusedError, UsageError } from '../base/errors.js'
import { linkOnPath, mkdirNoLinks } from './fsio.js'

const CHANGE_KINDS = [
  'task.created',
  'task.changed',
  'task.moved',
  'claim.taken',
  'claim.released',
  'note.added',
  'note.changed',
  'note.removed',
  'event.added',
  'event.applied',
  'event.dismissed',
  'question.asked',
  'question.answered',
  'project.created',
  'project.changed',
  'project.removed',
  'risk.added',
  'risk.changed',
  'risk.removed',
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
/** A segment is sealed (and a new one started) once it is past this many bytes. */
const SEGMENT_BYTES = 1024 * 1024
/** Sealed segments kept besides the current one; older ones are deleted when a segment is sealed. */
const SEGMENTS_KEPT = 8
/**
 * A cursor's offset is `segment × SPAN + byte offset in that segment`, so a journal written before segments
 * existed (segment 0, one file) keeps its cursors: they are plain byte offsets.
 */
const SPAN = 2 ** 32

export const journalFile = (dir: string) => path.join(dir, JOURNAL_DIR, FILE)
const sealedFile = (dir: string, segment: number) => path.join(dir, JOURNAL_DIR, `changes-${segment}.jsonl`)

interface Header {
  tag: string
  /** The offset just after the header line. */
  start: number
  /** Which segment the file is (0 for a journal written before segments). */
  segment: number
}

/** The journal's header, creating the journal (header line) when it does not exist yet. */
function ensureJournal(dir: string): Header {
  const file = journalFile(dir)
  const existing = readHeader(file)
  if (existing !== null) return existing
  const folder = path.dirname(file)
  mkdirNoLinks(folder, dir)
  const ignore = path.join(folder, '.gitignore')
  try {
    // wx: created only where nothing is, so never through a link planted in its place
    fs.writeFileSync(ignore, '# local change journal (what `watch` reads); never committed\n*\n', { flag: 'wx' })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  }
  const tmp = writeHeaderFile(folder, randomBytes(6).toString('hex'), 0)
  try {
    fs.linkSync(tmp, file) // exclusive: two first writers agree on one header
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  } finally {
    fs.rmSync(tmp, { force: true })
  }
  const h = readHeader(file)
  if (h === null) {
    // Something else holds the journal's place (a hand-written file, a FIFO, a folder): said as it is, never a crash.
    const rel = path.join(path.basename(dir), JOURNAL_DIR, FILE)
    throw new FailureError(`${rel} is not a change journal (it has no valid header line)`, {
      details: { path: rel },
      next: [`move ${rel} aside: the next change starts a new journal, and watchers start again from it`],
    })
  }
  return h
}

/** A temp file in `folder` holding only a header line; the caller links or renames it into place. */
function writeHeaderFile(folder: string, tag: string, segment: number): string {
  const tmp = path.join(folder, `.${FILE}.${randomBytes(6).toString('hex')}`)
  fs.writeFileSync(tmp, `${JSON.stringify({ journal: HEADER_KIND, version: 2, tag, segment })}\n`, { flag: 'wx' })
  return tmp
}

function readHeader(file: string): Header | null {
  let fd: number
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
  } catch {
    return null
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return null
    const buf = Buffer.alloc(256)
    const n = fs.readSync(fd, buf, 0, buf.length, 0)
    const nl = buf.subarray(0, n).indexOf(10)
    if (nl < 0) return null
    const h = JSON.parse(buf.subarray(0, nl).toString('utf8')) as {
      journal?: unknown
      tag?: unknown
      segment?: unknown
    }
    if (h.journal !== HEADER_KIND || typeof h.tag !== 'string' || !TAG_RE.test(h.tag)) return null
    const segment = h.segment === undefined ? 0 : h.segment
    if (typeof segment !== 'number' || !Number.isSafeInteger(segment) || segment < 0) return null
    return { tag: h.tag, start: nl + 1, segment }
  } catch {
    return null
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Append one change. Never fails the command that made it: the change itself is already written. A segment past
 * `segmentBytes` is sealed after the append (FORMAT.md, "The change journal").
 */
export function appendChange(dir: string, entry: ChangeEntry, opts: { segmentBytes?: number } = {}): void {
  try {
    // Never through a link: a linked journal folder or file is left alone (doctor reports it).
    if (linkOnPath(journalFile(dir), dir) !== null) return
    ensureJournal(dir)
    const clean: ChangeEntry = { ...entry, summary: oneLine(entry.summary, MAX_SUMMARY) }
    const fd = fs.openSync(
      journalFile(dir),
      fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
    )
    let size: number
    try {
      const st = fs.fstatSync(fd)
      if (!st.isFile()) return
      // A line torn by a writer that died mid-write has no newline: this one starts on a line of its own, or the two
      // would read as one unparseable line and this change would be lost. (An extra empty line is skipped.)
      const torn = st.size > 0 && lastByte(fd, st.size) !== 10
      fs.writeSync(fd, `${torn ? '\n' : ''}${JSON.stringify(clean)}\n`)
      size = fs.fstatSync(fd).size
    } finally {
      fs.closeSync(fd)
    }
    if (size > (opts.segmentBytes ?? SEGMENT_BYTES)) seal(dir)
  } catch {
    // A full disk or a read-only folder: the mutation stands; watchers miss this one line.
  }
}

/** The byte at `size - 1` of an open file (-1 when it cannot be read). */
function lastByte(fd: number, size: number): number {
  const b = Buffer.alloc(1)
  try {
    return fs.readSync(fd, b, 0, 1, size - 1) === 1 ? (b[0] as number) : -1
  } catch {
    return -1
  }
}

/**
 * Seal the current segment: it keeps its bytes under `changes-<n>.jsonl` and a new `changes.jsonl` (segment n+1,
 * same tag) takes its place. One process seals at a time (an exclusive lock file, taken over when a sealer died);
 * a line appended to the old file while it is being sealed is still in it, where readers find it.
 */
function seal(dir: string): void {
  const folder = path.join(dir, JOURNAL_DIR)
  const lock = path.join(folder, 'seal.lock')
  try {
    fs.writeFileSync(lock, '', { flag: 'wx' })
  } catch {
    try {
      if (Date.now() - fs.statSync(lock).mtimeMs > 10_000) fs.rmSync(lock, { force: true }) // a dead sealer's
    } catch {
      // gone meanwhile
    }
    return // another process is sealing (or the next append will)
  }
  try {
    const file = journalFile(dir)
    const h = readHeader(file)
    if (h === null) return
    const ino = fs.statSync(file).ino
    const sealed = sealedFile(dir, h.segment)
    try {
      fs.linkSync(file, sealed)
    } catch (e) {
      // A sealer that died after linking left the same file under both names; anything else is not ours to touch.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || fs.statSync(sealed).ino !== ino) return
    }
    fs.renameSync(writeHeaderFile(folder, h.tag, h.segment + 1), file)
    for (const name of fs.readdirSync(folder)) {
      const m = /^changes-(\d+)\.jsonl$/.exec(name)
      if (m !== null && Number(m[1]) <= h.segment - SEGMENTS_KEPT) fs.rmSync(path.join(folder, name), { force: true })
    }
  } finally {
    fs.rmSync(lock, { force: true })
  }
}

const oneLine = (s: string, max: number) => {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > max ? `${t.slice(0, max - 1)}…` : t
}

export interface Cursor {
  tag: string
  /** `segment × 2^32 + the byte offset just after a line in that segment's file`. */
  offset: number
}

export const formatCursor = (c: Cursor) => `${c.tag}:${c.offset}`
const segmentOf = (c: Cursor) => Math.floor(c.offset / SPAN)
const byteOf = (c: Cursor) => c.offset % SPAN
const cursorAt = (tag: string, segment: number, byte: number): Cursor => ({ tag, offset: segment * SPAN + byte })

export function parseCursor(text: string): Cursor {
  const m = /^([0-9a-f]{12}):(\d{1,16})$/.exec(text.trim())
  if (m === null || !Number.isSafeInteger(Number(m[2]))) {
    throw new UsageError(`"${text.slice(0, 60)}" is not a watch cursor (it looks like 0123456789ab:1234)`, {
      details: { cursor: text.slice(0, 200) },
      next: ['use the cursor of the last event you saw (its "cursor" field)', cmd('watch (from now)')],
    })
  }
  return { tag: m[1] as string, offset: Number(m[2]) }
}

/**
 * The cursor of "now": the end of the current segment's complete lines. It reads the header and the last few
 * kilobytes only, however long the journal is.
 */
export function headCursor(dir: string): Cursor {
  const { tag, start, segment } = ensureJournal(dir)
  const size = fs.statSync(journalFile(dir)).size
  return cursorAt(tag, segment, Math.max(start, completeEnd(journalFile(dir), start, size)))
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

/** The file holding a cursor's segment (the current one, or a sealed one), or null when it is gone. */
function segmentFile(dir: string, current: Header, segment: number): { file: string; start: number } | null {
  if (segment === current.segment) return { file: journalFile(dir), start: current.start }
  const file = sealedFile(dir, segment)
  const h = segment < current.segment ? readHeader(file) : null
  return h === null || h.tag !== current.tag ? null : { file, start: h.start }
}

/** Check that a cursor belongs to this journal, to a segment it still keeps, and points just after a line. */
export function validateCursor(dir: string, c: Cursor): void {
  const current = ensureJournal(dir)
  const refuse = (why: string) =>
    new RefusedError('cursor', `cannot resume from ${formatCursor(c)}: ${why}`, {
      details: { cursor: formatCursor(c), journal: current.tag },
      next: [cmd('watch (from now)')],
    })
  if (c.tag !== current.tag) throw refuse('it belongs to another change journal (this one was created after it)')
  const segment = segmentOf(c)
  if (segment > current.segment) throw refuse('it is beyond the end of the change journal')
  const seg = segmentFile(dir, current, segment)
  if (seg === null) throw refuse('the journal no longer keeps that change (older segments are deleted as it grows)')
  const offset = byteOf(c)
  const size = fs.statSync(seg.file).size
  if (offset < seg.start || offset > size) throw refuse('it is beyond the end of the change journal')
  if (offset > seg.start) {
    const fd = fs.openSync(seg.file, 'r')
    try {
      const b = Buffer.alloc(1)
      fs.readSync(fd, b, 0, 1, offset - 1)
      if (b[0] !== 10) throw refuse('it does not point at the end of a change')
    } finally {
      fs.closeSync(fd)
    }
  }
}

/**
 * The changes written after `from`, and the cursor after the last complete one, reading on across segments
 * (a sealed segment to its end, then the next). Lines that do not parse (a hand-edited journal) are skipped but
 * still advance the cursor.
 */
export function readChanges(dir: string, from: Cursor, max = 10_000): { changes: Change[]; next: Cursor } {
  const current = readHeader(journalFile(dir))
  if (current === null || current.tag !== from.tag) return { changes: [], next: from }
  const changes: Change[] = []
  let at = from
  for (;;) {
    const segment = segmentOf(at)
    const seg = segmentFile(dir, current, segment)
    if (seg === null) break
    const got = readLines(seg.file, Math.max(byteOf(at), seg.start), max - changes.length)
    for (const { entry, end } of got.lines)
      changes.push({ ...entry, cursor: formatCursor(cursorAt(from.tag, segment, end)) })
    at = cursorAt(from.tag, segment, got.end)
    if (segment >= current.segment || changes.length >= max || !got.atEnd) break
    // A sealed segment read to its end: on to the next one, from just after its header.
    const next = segmentFile(dir, current, segment + 1)
    if (next === null) break
    at = cursorAt(from.tag, segment + 1, next.start)
  }
  return { changes, next: at }
}

/** Where a follower stands in the journal: the current file's inode and the offset after its last complete line. */
export interface JournalMark {
  ino: number
  offset: number
}

/**
 * The journal's inode and size now (where a follower that has read it all stands), or null when there is none;
 * `file` is false when what is there is no regular file (a link planted in its place: never read through).
 */
export function journalMark(dir: string): (JournalMark & { file: boolean }) | null {
  const st = fs.lstatSync(journalFile(dir), { throwIfNoEntry: false })
  return st === undefined ? null : { ino: st.ino, offset: st.size, file: st.isFile() }
}

/**
 * What a long-lived process (live.ts) takes in at each call: the changes written since `last` (null: there was no
 * journal then) and where it stands after them. Read on from `last` in the file it knows by inode, which a seal since
 * has renamed `changes-<n>.jsonl` (its rest, then the new current file from its header); a journal made since is
 * read from its header. Null when what changed cannot be told: the journal was deleted or replaced, sealed more than
 * once since, cut short, holds a complete line that does not parse, or more lines than one read takes.
 */
export function changesSince(
  dir: string,
  last: JournalMark | null,
): { changes: ChangeEntry[]; mark: JournalMark | null } | null {
  const now = journalMark(dir)
  if (now === null) return last === null ? { changes: [], mark: null } : null
  if (!now.file) return null
  if (last !== null && now.ino === last.ino) {
    if (now.offset < last.offset) return null
    if (now.offset === last.offset) return { changes: [], mark: { ino: last.ino, offset: last.offset } }
  }
  const got = readSince(dir, now, last)
  // Read by name: a seal meanwhile would have put another file under it.
  return got === null || journalMark(dir)?.ino !== now.ino ? null : got
}

function readSince(
  dir: string,
  now: JournalMark,
  last: JournalMark | null,
): { changes: ChangeEntry[]; mark: JournalMark } | null {
  if (last !== null && now.ino === last.ino) {
    const got = readLines(journalFile(dir), last.offset, MAX_LINES)
    if (got.skipped > 0 || !got.atEnd) return null
    return { changes: got.lines.map((l) => l.entry), mark: { ino: now.ino, offset: got.end } }
  }
  const current = readHeader(journalFile(dir))
  if (current === null) return null
  const changes: ChangeEntry[] = []
  if (last === null) {
    // Made since the last look: the first segment, every line in it new.
    if (current.segment !== 0) return null
  } else {
    // Sealed since: the file known by inode is the segment before the current one, whose rest is read first.
    const sealed = sealedFile(dir, current.segment - 1)
    if (fs.lstatSync(sealed, { throwIfNoEntry: false })?.ino !== last.ino) return null
    const rest = readLines(sealed, last.offset, MAX_LINES)
    if (rest.skipped > 0 || !rest.atEnd) return null
    for (const l of rest.lines) changes.push(l.entry)
  }
  const got = readLines(journalFile(dir), current.start, MAX_LINES)
  if (got.skipped > 0 || !got.atEnd) return null
  for (const l of got.lines) changes.push(l.entry)
  return { changes, mark: { ino: now.ino, offset: got.end } }
}

/** The most lines one read takes (a follower that is further behind than this starts afresh). */
const MAX_LINES = 10_000

/** Complete lines of `file` after byte `from` (at most `max` entries); `atEnd` when nothing complete is left. */
function readLines(
  file: string,
  from: number,
  max: number,
): { lines: { entry: ChangeEntry; end: number }[]; end: number; atEnd: boolean; skipped: number } {
  let size: number
  try {
    size = fs.statSync(file).size
  } catch {
    return { lines: [], end: from, atEnd: true, skipped: 0 }
  }
  if (size <= from) return { lines: [], end: from, atEnd: true, skipped: 0 }
  const fd = fs.openSync(file, 'r')
  const lines: { entry: ChangeEntry; end: number }[] = []
  let end = from
  let atEnd = false
  let skipped = 0
  try {
    const buf = Buffer.alloc(Math.min(size - from, 4 * 1024 * 1024))
    const n = fs.readSync(fd, buf, 0, buf.length, from)
    let pos = 0
    while (pos < n && lines.length < max) {
      const nl = buf.indexOf(10, pos)
      if (nl < 0 || nl >= n) break
      const line = buf.subarray(pos, nl).toString('utf8')
      pos = nl + 1
      end = from + pos
      const entry = entryOf(line)
      if (entry !== null) lines.push({ entry, end })
      else if (line.trim() !== '') skipped++
    }
    atEnd = from + n >= size && buf.indexOf(10, pos) < 0
  } finally {
    fs.closeSync(fd)
  }
  return { lines, end, atEnd, skipped }
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
 * `signal` aborts. Looks about every `intervalMs`, or sooner when `woken()` resolves (a watch of the files fired);
 * `afterLook` runs after every look (the watch compares the files there). A change by any process shows within
 * that interval. Returns the cursor after the last change delivered.
 */
export async function followChanges(
  dir: string,
  from: Cursor,
  opts: {
    signal: AbortSignal
    intervalMs?: number
    onChanges: (changes: Change[]) => void | Promise<void>
    afterLook?: () => void | Promise<void>
    woken?: () => Promise<void>
  },
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
    if (changes.length > 0) await opts.onChanges(changes)
    await opts.afterLook?.()
    if (changes.length > 0) continue
    if (!opts.signal.aborted) await sleep(interval, opts.signal, opts.woken?.())
  }
  return at
}

function sleep(ms: number, signal: AbortSignal, early?: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    let over = false
    const done = () => {
      if (over) return
      over = true
      clearTimeout(t)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const t = setTimeout(done, timerDelay(ms))
    signal.addEventListener('abort', done)
    early?.then(done, done)
  })
}
