// Regenerable parse caches under `.dacli/cache/`. A cache file holds
// named sections (one per project and kind of object), each a map from an object
// file to the value parsed from it. An entry is trusted only while its file's
// size, modification time, change time and inode are unchanged (the change time
// moves on every write, even one that puts the modification time back). A file
// modified within the last seconds ("racily" fresh: a same-size rewrite in the
// same clock tick would keep its stamp) is never cached: it is parsed on every
// read until it settles. A file that cannot be parsed is never cached. Deleting
// the cache changes nothing but speed.
//
// A process reads a cache file once, parses only the sections it touches and
// writes the file at most once, when the command's work is done (Store.flush):
// never once per object, which made cold runs quadratic. Sections it did not
// touch are copied through as they were read.

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Proc } from '../base/system.js'
import { type CacheTrust, LineSigner } from './cachekey.js'
import { type Fresh, type Kept, type Line, RS, type Toc, type TocLine, tocOf, writeCache } from './cachelines.js'
import { linkOnPath, sweepTemps } from './fsio.js'
import { lstatStamp } from './lstat.js'

declare const __DACLI_VERSION__: string
declare const __DACLI_BUILD__: string

/** Bump when any cached value's shape changes (the release version and the build's code hash are in the header too). */
const FORMAT = 18
/**
 * The first line of every cache file: an older format, another release's parser or another build's code is never
 * trusted (some values are a function of the code, e.g. a task-list item rendered once: scripts/build.mjs).
 */
const HEADER = `dacli-cache ${FORMAT} ${typeof __DACLI_VERSION__ === 'string' ? __DACLI_VERSION__ : 'dev'} ${
  typeof __DACLI_BUILD__ === 'string' ? __DACLI_BUILD__ : 'dev'
}`

/** A file modified within this many ms is "racily" fresh: a same-size rewrite in the same clock tick keeps its stamp. */
export const RACY_MS = 3_000

export interface Stamp {
  size: number
  mtimeMs: number
  ctimeMs: number
  ino: number
}

/** A stamp as a cache entry stores it: [size, mtimeMs, ino, ctimeMs] (numbers: compared without building strings). */
type Stored = [number, number, number, number]

/**
 * The validation stamp of a file, or null when it is gone. Never through a link at its end, as every reader opens
 * it: a link is stamped as itself, so no value kept for the file it replaced is served (the read then refuses it).
 * Taken as a walk takes its stamps (lstatStamp).
 */
export function stampOf(file: string): Stamp | null {
  const out: number[] = []
  const st = lstatStamp(file, out)
  if (st === 'missing') return null
  if (st !== 'file') return stampFrom(st)
  const [size, mtimeMs, ino, ctimeMs] = out as [number, number, number, number]
  return { size, mtimeMs, ctimeMs, ino }
}

export const stampFrom = (st: fs.Stats): Stamp => ({
  size: st.size,
  mtimeMs: st.mtimeMs,
  ctimeMs: st.ctimeMs,
  ino: st.ino,
})

const matches = (s: Stored, stamp: Stamp) =>
  s[0] === stamp.size && s[1] === stamp.mtimeMs && s[2] === stamp.ino && s[3] === stamp.ctimeMs
const stored = (stamp: Stamp): Stored => [stamp.size, stamp.mtimeMs, stamp.ino, stamp.ctimeMs]

/** Racily fresh: changed within RACY_MS of now (by its modification or its change time). */
const racy = (stamp: Stamp) => Date.now() - Math.max(stamp.mtimeMs, stamp.ctimeMs) <= RACY_MS

/**
 * Values parsed from files, kept in this process's memory under the same rule as the cache files: served only while
 * the file's stamp (size, modification time, inode, change time) is the one it was parsed at, never kept while the
 * file is racily fresh. A long-lived process (`mcp serve`, `board`) reads an unchanged file's value from here
 * without parsing a cache section; a command, which reads each file once, gains nothing and loses nothing. At
 * most `max` values are kept (the oldest set goes first).
 */
export class StampMemo<T> {
  private readonly kept = new Map<string, Entry<T>>()
  constructor(private readonly max: number) {}

  get(key: string, stamp: Stamp): T | undefined {
    const hit = this.kept.get(key)
    return hit !== undefined && matches(hit[0], stamp) ? hit[1] : undefined
  }

  set(key: string, stamp: Stamp, value: T): void {
    if (racy(stamp)) return
    this.kept.delete(key)
    this.kept.set(key, [stored(stamp), value])
    if (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value as string)
  }
}

/** [validation stamp, value]. */
type Entry<T> = [Stored, T]

/**
 * How a section forgets: `used` keeps only the entries looked up or set in this process (for a listing, which
 * looks up every file of its folder, so the rest belong to files that are gone); `all` keeps every entry (for a
 * reader that looks up only some files: a task's summary, the files another section missed). A section is opened
 * once per process, by its first reader.
 */
export type Retain = 'used' | 'all'

/*
 * A section's text: one entry after another, each `<name>\t<stamp>\t<value JSON>`, separated by the record
 * separator (U+001E, `RS`: cachelines.ts writes the lines). The stamp is `size:mtimeMs:ino:ctimeMs` as numbers print. Neither separator can occur inside
 * a value (JSON escapes every control character) nor in a stamp, and a name holding a control character is never
 * cached, so splitting needs no parser: a reader splits the section into entries (cheap), compares an entry's stamp
 * as text and parses only the values it uses. Parsing whole sections of numbers and objects was the largest cost
 * of a listing (~60 ms of CPU for the 10,000 summaries of a workspace, measured).
 */

/**
 * A stamp as an entry writes it, the times in whole milliseconds (integers print several times faster than
 * fractions, and a listing prints one per file). That loses nothing: an entry is only written once its file has
 * been still for RACY_MS, so any later write moves the change time by more than RACY_MS.
 */
const stampKey = (size: number, mtimeMs: number, ino: number, ctimeMs: number) =>
  `${size}:${Math.trunc(mtimeMs)}:${ino}:${Math.trunc(ctimeMs)}`
const stampText = (s: Stamp) => stampKey(s.size, s.mtimeMs, s.ino, s.ctimeMs)

/**
 * Where the value starts in an entry `stamp\tvalue` whose stamp is exactly the one stampKey prints for these numbers,
 * else -1. The stamp is read as numbers rather than compared with a printed one: printing four numbers per file
 * (two of them thirteen digits long) was most of what serving an entry cost. Only what stampKey prints matches:
 * digits (a minus before a time before 1970), no leading zero, at most 16 of them (exact as a double), `:` between
 * and a tab after.
 */
function valueAfter(entry: string, a: number, b: number, c: number, d: number): number {
  let at = 0
  for (let field = 0; field < 4; field++) {
    const want = field === 0 ? a : field === 1 ? b : field === 2 ? c : d
    const negative = entry.charCodeAt(at) === 45 // a time before 1970
    if (negative) at++
    let n = 0
    let end = at
    for (; end < entry.length && end - at <= 16; end++) {
      const ch = entry.charCodeAt(end)
      if (ch < 48 || ch > 57) break
      n = n * 10 + (ch - 48)
    }
    const digits = end - at
    if (digits === 0 || digits > 16 || (digits > 1 && entry.charCodeAt(at) === 48)) return -1
    if ((negative ? (n === 0 ? Number.NaN : -n) : n) !== want) return -1
    if (entry.charCodeAt(end) !== (field === 3 ? 9 : 58)) return -1
    at = end + 1
  }
  return at
}

/** Names a section can hold: no control character (it could be mistaken for a separator). */
const CONTROL = /[\u0000-\u001f]/

/** Split a section's text into `name → "stamp\tvalue"` (an entry without both tabs is dropped). */
function entriesOf(text: string): Map<string, string> {
  const out = new Map<string, string>()
  if (text === '') return out
  for (const e of text.split(RS)) {
    const tab = e.indexOf('\t')
    if (tab <= 0 || e.indexOf('\t', tab + 1) === -1) continue
    out.set(e.slice(0, tab), e.slice(tab + 1))
  }
  return out
}

/** A section's text as `name → [stamp numbers, parsed value]` (for tools and tests that read a cache file). */
export function decodeSection(text: string): Record<string, [number[], unknown]> {
  const out: Record<string, [number[], unknown]> = {}
  for (const [name, rest] of entriesOf(text)) {
    const tab = rest.indexOf('\t')
    out[name] = [rest.slice(0, tab).split(':').map(Number), JSON.parse(rest.slice(tab + 1))]
  }
  return out
}

export class Section<T> {
  /**
   * Names looked up with an entry present, whether or not it was still valid (a listing looks each up once): their
   * files exist, so their entries stay. A stale one is harmless (no later file can carry its stamp: the change time
   * only moves forward) and is replaced when its file has settled and is parsed again; dropping it would rewrite
   * the whole cache file after every edit, for nothing.
   */
  private hits: string[] = []
  /** Entries set in this process: name → [stamp, value] (kept apart: each is written as it is, never joined). */
  private readonly sets = new Map<string, Fresh>()
  private keepOnly: Set<string> | null = null

  constructor(
    /** The entries as read: name → `stamp\tvalue`, values unparsed. */
    private readonly entries: Map<string, string>,
    private readonly retain: Retain,
  ) {}

  /** Nothing kept and nothing set: every file is read (a reader need not take stamps to check against it). */
  isEmpty(): boolean {
    return this.entries.size === 0 && this.sets.size === 0
  }

  /** The cached value's JSON text for `name` if its file is unchanged (not parsed: see `get`). */
  getText(name: string, stamp: Stamp): string | undefined {
    return this.textAt(name, stamp.size, stamp.mtimeMs, stamp.ino, stamp.ctimeMs)
  }

  /** getText for a stamp given as its four numbers (a walk keeps them so). */
  textAt(name: string, size: number, mtimeMs: number, ino: number, ctimeMs: number): string | undefined {
    const set = this.sets.get(name)
    if (set !== undefined)
      return valueAfter(set[0], size, Math.trunc(mtimeMs), ino, Math.trunc(ctimeMs)) === -1 ? undefined : set[1]
    const hit = this.entries.get(name)
    if (hit === undefined) return undefined
    this.hits.push(name)
    const at = valueAfter(hit, size, Math.trunc(mtimeMs), ino, Math.trunc(ctimeMs))
    return at === -1 ? undefined : hit.slice(at)
  }

  /** The cached value for `name` if its file is unchanged (a value that does not parse is no value). */
  get(name: string, stamp: Stamp): T | undefined {
    const text = this.getText(name, stamp)
    if (text === undefined) return undefined
    try {
      return JSON.parse(text) as T
    } catch {
      return undefined
    }
  }

  /** Keep a value, unless its file is racily fresh (then it is parsed again on the next read). */
  set(name: string, stamp: Stamp, value: T): void {
    if (racy(stamp) || CONTROL.test(name)) return
    this.sets.set(name, [`${stampText(stamp)}\t`, JSON.stringify(value)]) // JSON text holds no control character
  }

  /**
   * Keep a value given as its text (JSON, or fields of JSON joined by tabs: it may hold a tab, never a line break
   * or the record separator).
   */
  setText(name: string, stamp: Stamp, json: string): void {
    if (racy(stamp) || CONTROL.test(name) || /[\n\r\u001e]/.test(json)) return
    this.sets.set(name, [`${stampText(stamp)}\t`, json])
  }

  /** Forget every entry whose name is not in `names` (the files that exist now), even under `all`. */
  keep(names: Iterable<string>): void {
    this.keepOnly = new Set(names)
  }

  private unchanged(): boolean {
    return (
      this.sets.size === 0 && this.keepOnly === null && (this.retain === 'all' || this.hits.length >= this.entries.size)
    )
  }

  /**
   * The section's entries to write (name → the entry as read or as set, in order; none: the section goes) and how
   * many it adds, replaces or forgets (`pending`), or null when the section is unchanged.
   */
  changed(): { entries: Map<string, Kept>; pending: number } | null {
    if (this.unchanged()) return null // every entry still served (a listing touched them all) and nothing new
    const out = new Map<string, Kept>()
    const names = this.retain === 'all' ? this.entries.keys() : this.hits
    for (const n of names) {
      const e = this.entries.get(n)
      if (e !== undefined) out.set(n, e)
    }
    let added = 0
    for (const [n, e] of this.sets) {
      if (!out.has(n)) added++
      out.set(n, e)
    }
    if (this.keepOnly !== null) for (const n of out.keys()) if (!this.keepOnly.has(n)) out.delete(n)
    if (this.sets.size === 0 && out.size === this.entries.size) return null
    // Set (added or replaced), plus forgotten: the entries read less those still there apart from the added ones.
    const pending = this.sets.size + Math.max(0, this.entries.size - (out.size - added))
    return { entries: out, pending }
  }
}

/**
 * The table of contents of each cache file as this process last read it, by the file's stamp: a long-running
 * process (the MCP server) reads an unchanged file once, then only the byte ranges of the sections it needs.
 */
const tocs = new Map<string, { key: string; toc: Toc; stale: boolean }>()
/** How many cache files' tables a process remembers (the oldest learnt is forgotten first). */
const MAX_TOCS = 512
/**
 * A rewrite for entries set or forgotten since is put off while each of them stands for this many bytes of the file or
 * more: at 10,000 tasks a 5.7 MB index is rewritten (read and written whole, about 20 ms) once 22 such entries wait,
 * not after each command that parsed one settled file again (each waiting entry costs a command that needs it one
 * parse, about 0.1 ms). A file under this size is always rewritten.
 */
const DEFER_BYTES_PER_ENTRY = 256 * 1024
/** Whether the open file still has the stamp `key` (`size:mtimeMs:ino:ctimeMs`). */
function unchanged(fd: number, key: string): boolean {
  const st = fs.fstatSync(fd)
  return `${st.size}:${st.mtimeMs}:${st.ino}:${st.ctimeMs}` === key
}
/** How much of a cache file is read first: its header and table of contents (more is read when they are longer). */
const HEAD_BYTES = 64 * 1024

/**
 * One cache file: a header line, a table of contents, then one line per section, `<name>\t<its entries>` (see Section).
 * A reader reads the file's start and then only the byte ranges of the sections it asks for, which it decodes and
 * parses; the others are copied through as bytes when the file is rewritten (a task listing never holds the
 * notes' or events' text as a string, and `task show` reads one project's section of a 10,000-task index).
 */
export class CacheFile {
  /** The whole file's bytes, once read (otherwise sections are read by range). */
  private bytes: Buffer | null = null
  /** The stamp of the file the table of contents describes (null: no file). */
  private key: string | null = null
  private lines: Toc = new Map()
  private loaded = false
  /**
   * Ranges read so far, when this process learnt the table from the file itself (a command's first read): its
   * third section is read with the whole file (a listing of every project wants them all, while `task show` wants
   * one project's two); a process that knew the table already (the MCP server, on an unchanged file) keeps
   * reading ranges.
   */
  private ranges: number | null = null
  private readonly open = new Map<string, Section<unknown>>()
  /** Only these sections survive the next save (see `keepSections`). */
  private survivors: ((name: string) => boolean) | null = null
  private stale = false
  /** Sections whose code did not verify: never served, and left out of the next save. */
  private readonly rejected = new Set<string>()
  /** Signs and verifies this file's lines; null: the file is neither read nor written. */
  private signer: LineSigner | null = null
  /** The file, as this process read it, was found whole under the key (CacheTrust): its codes need no check. */
  private trusted = false
  /** The file's length when its table was learnt (0: no file). */
  private size = 0

  constructor(
    readonly file: string,
    /** The writing process (temp-file names, dead writers' temps swept). */
    private readonly sys: Proc,
    /** This cache's name under `cache/` (`index`, `records/<project>`): what its codes are bound to. */
    private readonly name: string,
    /** The clone's cache key, asked for when the file is first used, and the files found whole (cachekey.ts). */
    private readonly trust: CacheTrust,
  ) {}

  /** Learn where the sections are: from memory when the file is unchanged, else from the file's start. */
  private load(): void {
    if (this.loaded) return
    this.loaded = true
    // A cache reached through a link is neither read nor written (no links below .dacli/), nor one without a key to
    // tell its lines from planted ones.
    if (linkOnPath(this.file) !== null) return
    const key = this.trust.key()
    if (key === null) return
    this.signer = new LineSigner(key, `${HEADER}\n${this.name}\n`)
    this.withFile((fd, key, size, settled) => {
      const known = tocs.get(this.file)
      if (known !== undefined && known.key === key) {
        this.key = key
        this.size = size
        this.lines = known.toc
        this.stale = known.stale
      } else {
        this.readHead(fd, key, size)
        this.ranges = 0
      }
      this.trusted = this.trust.verified(this.name, key)
      if (!this.trusted && settled && !this.stale && this.lines.size > 0) this.checkWhole(fd, key, size)
    })
  }

  /**
   * Check every line's code of a settled file this clone has not found whole yet, and record it when all verify
   * (CacheTrust): the commands after this one read it without checking codes. A line that fails is never served.
   */
  private checkWhole(fd: number, key: string, size: number): void {
    if (this.bytes === null) this.readAll(fd, key, size)
    const bytes = this.bytes
    if (bytes === null) return
    const signer = this.signer as LineSigner
    for (const [name, line] of this.lines)
      if (!signer.verifies(bytes.subarray(line[0], line[2]), line[3])) {
        this.rejected.add(name)
        this.stale = true
      }
    if (this.rejected.size > 0) return
    this.trust.markVerified(this.name, key)
    this.trusted = true
  }

  /**
   * Run `fn` on the open file, its stamp (`size:mtimeMs:ino:ctimeMs`), its size and whether it has settled (not
   * changed for RACY_MS); nothing when it cannot be opened.
   */
  private withFile(fn: (fd: number, key: string, size: number, settled: boolean) => void): void {
    let fd: number
    try {
      // Never through a link at its end, and never waiting on a FIFO put in its place (which would hang every read).
      fd = fs.openSync(this.file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW)
    } catch {
      return // missing or unreadable: start empty
    }
    try {
      const st = fs.fstatSync(fd)
      if (!st.isFile()) return // a FIFO, socket or device: no cache
      fn(fd, `${st.size}:${st.mtimeMs}:${st.ino}:${st.ctimeMs}`, st.size, !racy(st))
    } catch {
      // unreadable: what was learnt so far stands
    } finally {
      fs.closeSync(fd)
    }
  }

  /** Read the table of contents from the file's start (the whole file only when the table reaches that far). */
  private readHead(fd: number, key: string, size: number): void {
    let n = Math.min(size, HEAD_BYTES)
    for (;;) {
      const head = Buffer.allocUnsafe(n)
      const got = fs.readSync(fd, head, 0, n, 0)
      const toc = tocOf(head.subarray(0, got), size, HEADER)
      if (toc === 'more' && got === n && n < size) {
        n = Math.min(size, n * 4)
        continue
      }
      this.learn(fd, key, toc === 'more' ? null : toc, size, n >= size ? head.subarray(0, got) : null)
      return
    }
  }

  /** Read the whole file (to copy its untouched sections into a rewrite). */
  private readAll(fd: number, key: string, size: number): void {
    const buf = fs.readFileSync(fd)
    const toc = tocOf(buf, buf.length, HEADER)
    this.learn(fd, key, toc === 'more' ? null : toc, size, buf)
  }

  /** What a read taught: the table (null: a file this release cannot use, ignored and rewritten at the next save). */
  private learn(fd: number, key: string, toc: Toc | null, size: number, whole: Buffer | null): void {
    this.key = key
    // A file replaced since it was found whole is another file: trusted only if it was found whole itself, and only
    // when it still has that stamp after the read (a write in between moves the change time).
    this.trusted = this.trust.verified(this.name, key) && unchanged(fd, key)
    this.size = size
    this.lines = toc ?? new Map()
    this.stale = toc === null && size > 0
    this.bytes = toc === null ? null : whole
    tocs.delete(this.file)
    tocs.set(this.file, { key, toc: this.lines, stale: this.stale })
    if (tocs.size > MAX_TOCS) tocs.delete(tocs.keys().next().value as string)
  }

  /**
   * The bytes of a section's entries: from the whole file when read, else read by range from the file the table
   * describes (read again when it was replaced since). A range that does not hold the named line is no section.
   */
  private textOf(name: string): string | undefined {
    this.load()
    let out: string | undefined
    const line = this.lines.get(name)
    if (line === undefined) return undefined
    if (this.bytes !== null) return this.sectionIn(this.bytes, name, line, 0)
    this.withFile((fd, key, size) => {
      if (key !== this.key || (this.ranges !== null && this.ranges++ >= 2)) {
        this.readAll(fd, key, size) // replaced since (read it again), or a third section wanted: read it whole
        const again = this.lines.get(name)
        out = again === undefined || this.bytes === null ? undefined : this.sectionIn(this.bytes, name, again, 0)
        return
      }
      const buf = Buffer.allocUnsafe(line[2] - line[0])
      if (fs.readSync(fd, buf, 0, buf.length, line[0]) !== buf.length) return
      // Written to since the stamp was taken (in place, between the stamp and the read): its codes are checked.
      if (this.trusted && !unchanged(fd, key)) this.trusted = false
      out = this.sectionIn(buf, name, line, line[0])
    })
    return out
  }

  /**
   * The text of the section `line` places in `buf` (which starts at file offset `at`), if the line is that section's
   * and its code verifies: a line this clone's dacli did not write (planted in the work tree, or copied from another
   * clone) is never served, and is left out of the next save.
   */
  private sectionIn(buf: Buffer, name: string, line: TocLine, at: number): string | undefined {
    if (!this.holds(buf, name, line, at) || this.rejected.has(name)) return undefined
    if (!this.trusted && !(this.signer as LineSigner).verifies(buf.subarray(line[0] - at, line[2] - at), line[3])) {
      this.rejected.add(name)
      this.stale = true
      return undefined
    }
    return buf.toString('utf8', line[1] - at, line[2] - at)
  }

  /** Does the range `line` of `buf` (starting at file offset `at`) hold the line of section `name`? */
  private holds(buf: Buffer, name: string, line: TocLine, at: number): boolean {
    const prefix = `${name}\t`
    if (line[1] - line[0] === Buffer.byteLength(prefix) && buf.toString('utf8', line[0] - at, line[1] - at) === prefix)
      return true
    this.stale = true // a table that does not describe its file: rewritten at the next save
    return false
  }

  /** The named section (parsed on first use; one instance per process). */
  section<T>(name: string, retain: Retain): Section<T> {
    let s = this.open.get(name) as Section<T> | undefined
    if (s !== undefined) return s
    // A torn or foreign line holds no entry that splits as one: the section starts with what does.
    s = new Section<T>(entriesOf(this.textOf(name) ?? ''), retain)
    this.open.set(name, s as Section<unknown>)
    return s
  }

  /** Sections named `<prefix><x>` survive the next save only when `x` is in `names` (projects that exist). */
  keepSections(prefix: string, names: Iterable<string>): void {
    const keep = new Set(names)
    const prev = this.survivors
    this.survivors = (n) => (prev === null || prev(n)) && (!n.startsWith(prefix) || keep.has(n.slice(prefix.length)))
  }

  /** Write the file if any section changed. One write, temp file and rename; a failed write only costs speed. */
  save(): void {
    // Nothing read from this file: nothing to write (sections of gone projects go with the next listing that
    // reads it).
    if (this.open.size === 0) {
      sweepTemps(this.sys, path.dirname(this.file)) // a dead writer's temp file here would otherwise wait for the next rewrite
      return
    }
    this.load()
    if (this.signer === null) return
    const names = [...new Set([...this.lines.keys(), ...this.open.keys()])].sort()
    const fresh = new Map<string, Map<string, Kept>>()
    let pending = 0
    for (const name of this.open.keys()) {
      const f = this.open.get(name)?.changed()
      if (f === undefined || f === null) continue
      fresh.set(name, f.entries)
      pending += f.pending
    }
    const kept = names.filter((n) => this.survivors === null || this.survivors(n))
    // A few entries to set or forget (files edited, made or removed since, now settled) are not worth copying a large
    // file for: until there are more, each costs the commands that need it one parse of its own file. Never a wrong
    // answer: an entry is served only while its file's stamp matches it.
    const deferred = pending * DEFER_BYTES_PER_ENTRY < this.size
    if (!this.stale && (fresh.size === 0 || deferred) && kept.length === names.length) {
      sweepTemps(this.sys, path.dirname(this.file)) // a dead writer's temp file here would otherwise wait for the next rewrite
      return
    }
    // Sections copied through need the whole file (read now if only ranges were read; if it was replaced
    // meanwhile, its sections are the ones to copy).
    if (this.bytes === null && this.key !== null) this.withFile((fd, key, size) => this.readAll(fd, key, size))
    const bytes = this.bytes ?? Buffer.alloc(0)
    const body: Line[] = []
    for (const name of names.filter((n) => this.survivors === null || this.survivors(n))) {
      const f = fresh.get(name)
      if (f !== undefined) {
        if (f.size > 0) body.push({ name, entries: f })
      } else {
        const l = this.lines.get(name)
        // Copied with its code only when the range holds that section's line (the table was checked against the
        // file), and not when its code was found false (a line never read here is copied as it is: a false one is
        // refused by whoever reads it).
        if (l !== undefined && !this.rejected.has(name) && this.holds(bytes, name, l, 0))
          body.push({ name, bytes: bytes.subarray(l[0], l[2]), code: l[3] })
      }
    }
    tocs.delete(this.file)
    writeCache(this.sys, this.file, HEADER, body, this.signer)
    this.stale = false
  }
}

export const cachePath = (dir: string, ...parts: string[]) => path.join(dir, 'cache', ...parts)
