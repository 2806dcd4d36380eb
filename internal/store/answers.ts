// The answer memo: a read-only command's --json document, kept under
// `.dacli/cache/answers/` with the walk keys (taskindex.ts walkKeyOf) of every project it was computed from. A
// later call with the same name is answered from the memo only when a fresh walk of each project in scope gives
// exactly the same keys: the same task files, each with the same size, modification time and inode, none racily
// fresh; anything else is a miss and the command runs. The keys are compared whole (no digest stands for them),
// so a stale answer cannot be served. Deleting the folder changes nothing but speed.
//
// One file per answer: a header line; a JSON line with the answer's name, the notes the command wrote (replayed on
// a hit) and how many stamps follow; a JSON line with what the key spells as text (the folder and name of every
// file, the projects, the extra); the stamps (size, modification time, inode of every file, 8-byte floats, little
// endian: compared as bytes, never turned into text); then the document's bytes. A file that is not exactly that
// is a miss.

import { isUtf8 } from 'node:buffer'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { cachePath, writeAll } from './filecache.js'
import { linkOnPath, mkdirNoLinks } from './fsio.js'

declare const __DACLI_VERSION__: string

/** Bump when the file's layout or what a key covers changes (the release version is part of the header too). */
const FORMAT = 1
const HEADER = `dacli-answer ${FORMAT} ${typeof __DACLI_VERSION__ === 'string' ? __DACLI_VERSION__ : 'dev'}`

/** How many answers the folder keeps; writing one more removes the least recently written. */
export const MAX_ANSWERS = 32

/**
 * A temp file older than this is a dead writer's, removed by the next writer. (Answer temp files are named without
 * the store's host tag, which takes a hash: a read-only command that keeps an answer loads no crypto.)
 */
const STALE_TEMP_MS = 60_000
let temps = 0

/** A note the command wrote while computing the answer: replayed, in order, when the answer is served. */
export type AnswerNote = readonly ['warn' | 'note', string]

export interface Answer {
  /** The document's JSON, as the command wrote it (without the final newline). */
  bytes: Buffer
  notes: readonly AnswerNote[]
}

/** What an answer was computed from (Store.answerMemo builds it from the walks). */
export interface AnswerKey {
  text: string
  stamps: Float64Array
}

/** The stamps as the file holds them (little endian, whatever the machine's order). */
function stampBytes(stamps: Float64Array): Buffer {
  const out = Buffer.allocUnsafe(stamps.length * 8)
  for (let i = 0; i < stamps.length; i++) out.writeDoubleLE(stamps[i] as number, i * 8)
  return out
}

/**
 * The file of an answer's name: its characters outside [A-Za-z0-9=-] spelt as _<hex>_, so never a path, never a dot
 * file (a temp file's form); null for a name too long to be a file name.
 */
export function answerFile(dir: string, name: string): string | null {
  const safe = name.replace(/[^A-Za-z0-9=-]/g, (c) => `_${c.codePointAt(0)?.toString(16)}_`)
  return safe.length === 0 || safe.length > 200 ? null : cachePath(dir, 'answers', safe)
}

/**
 * The answer kept under `name` for exactly `key`, or null (none, another key, another release, a torn file). The
 * file is read in steps: its first two lines, then the key's range, and the document only when the key matched, so
 * a miss (the first run after an edit) never reads a document of megabytes.
 */
export function readAnswer(dir: string, name: string, key: AnswerKey): Answer | null {
  const file = answerFile(dir, name)
  if (file === null || linkOnPath(file) !== null) return null
  let fd: number
  try {
    const st = fs.lstatSync(file, { throwIfNoEntry: false })
    if (st === undefined || !st.isFile()) return null
    fd = fs.openSync(file, 'r')
  } catch {
    return null
  }
  try {
    return answerIn(fd, fs.fstatSync(fd).size, name, key)
  } catch {
    return null
  } finally {
    fs.closeSync(fd)
  }
}

/** `length` bytes of `fd` from `at`, or null when the file is shorter. */
function bytesAt(fd: number, at: number, length: number): Buffer | null {
  const buf = Buffer.allocUnsafe(length)
  let got = 0
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, at + got)
    if (n === 0) return null
    got += n
  }
  return buf
}

function answerIn(fd: number, size: number, name: string, key: AnswerKey): Answer | null {
  // The header and the name-and-notes line (notes can be long: read on until both lines are in).
  let head: Buffer | null = null
  let a = -1
  let b = -1
  for (let n = Math.min(size, 64 * 1024); ; n = Math.min(size, n * 4)) {
    head = bytesAt(fd, 0, n)
    if (head === null) return null
    a = head.indexOf(10)
    b = a === -1 ? -1 : head.indexOf(10, a + 1)
    if (b !== -1 || n === size) break
  }
  if (b === -1 || head.toString('latin1', 0, a) !== HEADER) return null
  const wanted = Buffer.concat([Buffer.from(`${key.text}\n`), stampBytes(key.stamps)])
  const start = b + 1 + wanted.length
  if (start > size) return null
  const got = bytesAt(fd, b + 1, wanted.length)
  if (got === null || !got.equals(wanted)) return null
  let meta: unknown
  try {
    meta = JSON.parse(head.toString('utf8', a + 1, b))
  } catch {
    return null
  }
  if (meta === null || typeof meta !== 'object') return null
  const m = meta as { name?: unknown; notes?: unknown; stamps?: unknown }
  if (m.name !== name || m.stamps !== key.stamps.length || !Array.isArray(m.notes) || !m.notes.every(isNote))
    return null
  const bytes = bytesAt(fd, start, size - start)
  return bytes !== null && isDocument(bytes) ? { bytes, notes: m.notes as AnswerNote[] } : null
}

const DOC_START = Buffer.from('{"schema":"')

/**
 * Bytes as writeJSON writes a document, as far as a cheap look can tell: UTF-8, one line starting with its schema,
 * no control character (JSON escapes every one). A kept file is trusted no further than that: what it holds goes
 * to stdout as it is, so a hand-planted escape sequence or a torn write is a miss, never printed.
 */
function isDocument(bytes: Buffer): boolean {
  if (!bytes.subarray(0, DOC_START.length).equals(DOC_START) || !isUtf8(bytes)) return false
  for (let c = 0; c < 0x20; c++) if (bytes.indexOf(c) !== -1) return false
  return true
}

const isNote = (n: unknown): n is AnswerNote =>
  Array.isArray(n) && n.length === 2 && (n[0] === 'warn' || n[0] === 'note') && typeof n[1] === 'string'

/**
 * Keep an answer (temp file and rename, no fsync: a memo lost in a crash costs only speed). The folder keeps the
 * MAX_ANSWERS most recently written; a failed write is not an error.
 */
export function writeAnswer(
  dir: string,
  name: string,
  key: AnswerKey,
  pieces: readonly string[],
  notes: readonly AnswerNote[],
): void {
  const file = answerFile(dir, name)
  if (file === null) return
  const folder = path.dirname(file)
  let tmp: string | null = null
  try {
    if (linkOnPath(folder) !== null) return
    mkdirNoLinks(folder)
    tmp = path.join(
      folder,
      `.${path.basename(file)}.tmp-${Date.now()}-${temps++}-${Math.random().toString(16).slice(2, 10)}`,
    )
    const fd = fs.openSync(tmp, 'w')
    try {
      const meta = JSON.stringify({ name, notes, stamps: key.stamps.length })
      writeAll(fd, `${HEADER}\n${meta}\n${key.text}\n`)
      writeAll(fd, stampBytes(key.stamps))
      for (const p of pieces) writeAll(fd, p)
    } finally {
      fs.closeSync(fd)
    }
    fs.renameSync(tmp, file)
    tmp = null
    prune(folder)
  } catch {
    if (tmp !== null) fs.rmSync(tmp, { force: true })
  }
}

/** Remove the least recently written answers past MAX_ANSWERS, and dead writers' temp files. */
function prune(folder: string): void {
  const kept: { file: string; mtime: number }[] = []
  const now = Date.now()
  for (const n of fs.readdirSync(folder)) {
    const file = path.join(folder, n)
    const st = fs.lstatSync(file, { throwIfNoEntry: false })
    if (st === undefined) continue
    if (n.startsWith('.')) {
      if (now - st.mtimeMs > STALE_TEMP_MS) fs.rmSync(file, { force: true })
    } else if (st.isFile()) kept.push({ file, mtime: st.mtimeMs })
  }
  if (kept.length <= MAX_ANSWERS) return
  kept.sort((x, y) => y.mtime - x.mtime)
  for (const k of kept.slice(MAX_ANSWERS)) fs.rmSync(k.file, { force: true })
}
