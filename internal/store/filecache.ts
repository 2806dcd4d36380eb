// Regenerable parse caches under `.dacli/cache/` (quality.md). A cache file holds
// named sections (one per project and kind of object), each a map from an object
// file to the value parsed from it. An entry is trusted only while its file's
// size, modification time and inode are unchanged; an entry written while its
// file was still "racily" fresh also carries a digest of the content it was
// parsed from. A file that cannot be parsed is never cached. Deleting the cache
// changes nothing but speed.
//
// A process reads a cache file once, parses only the sections it touches and
// writes the file at most once, when the command's work is done (Store.flush):
// never once per object, which made cold runs quadratic. Sections it did not
// touch are copied through as they were read.

import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { linkOnPath, mkdirNoLinks, sweepTemps, tempPathFor } from './fsio.js'

declare const __DACLI_VERSION__: string

/** Bump when any cached value's shape changes (the release version is part of the header too). */
const FORMAT = 10
/** The first line of every cache file: an older format or another release's parser is never trusted. */
const HEADER = `dacli-cache ${FORMAT} ${typeof __DACLI_VERSION__ === 'string' ? __DACLI_VERSION__ : 'dev'}`

const RACY_MS = 3_000

export interface Stamp {
  key: string
  mtimeMs: number
}

/** The validation stamp of a file, or null when it is gone. */
export function stampOf(file: string): Stamp | null {
  const st = fs.statSync(file, { throwIfNoEntry: false })
  return st === undefined ? null : { key: `${st.size}:${st.mtimeMs}:${st.ino}`, mtimeMs: st.mtimeMs }
}

/** Whether a file is past the racy window: a rewrite of it now would move its stamp. */
export const settled = (stamp: Stamp): boolean => Date.now() - stamp.mtimeMs > RACY_MS

/** [validation stamp, value] — plus a digest of the content when the file was racily fresh at caching time. */
type Entry<T> = [string, T] | [string, T, string]

const digest = (text: string) => createHash('sha1').update(text).digest('hex')

/**
 * How a section forgets: `used` keeps only the entries read or set in this process (a listing touches
 * every file of its folder, so the rest belong to files that are gone); `all` keeps every entry.
 */
export type Retain = 'used' | 'all'

export class Section<T> {
  /** Names served from the cache (a listing serves each once). */
  private hits: string[] = []
  /** Entries set, or rewritten on their stamp alone, in this process. */
  private readonly sets = new Map<string, Entry<T>>()
  private keepOnly: Set<string> | null = null

  constructor(
    private readonly entries: Record<string, Entry<T>>,
    private readonly retain: Retain,
  ) {}

  /**
   * The cached value for `name` if its file is unchanged. An entry cached while its file was racily fresh
   * is trusted only if the content still has the same digest (`read` gives the content; without it such an
   * entry is a miss) — reading and hashing is far cheaper than parsing.
   */
  get(name: string, stamp: Stamp, read?: () => string): T | undefined {
    const hit = this.sets.get(name) ?? this.entries[name]
    if (hit === undefined || hit[0] !== stamp.key) return undefined
    if (hit.length === 3) {
      let text: string
      try {
        if (read === undefined) return undefined
        text = read()
      } catch {
        return undefined
      }
      if (digest(text) !== hit[2]) return undefined
      if (Date.now() - stamp.mtimeMs > RACY_MS) {
        // No longer fresh: any later rewrite must move the stamp, so the stamp alone suffices from now on.
        this.sets.set(name, [hit[0], hit[1]])
        return hit[1]
      }
    }
    this.hits.push(name)
    return hit[1]
  }

  /**
   * Keep a value. A racily fresh file (modified within the last seconds: a same-size rewrite in the same
   * clock tick would not change its stamp) is kept with a digest of `text`, the content it was parsed from;
   * without `text` it is not kept at all.
   */
  set(name: string, stamp: Stamp, value: T, text?: string): void {
    const racy = Date.now() - stamp.mtimeMs <= RACY_MS
    if (racy && text === undefined) return
    this.sets.set(name, racy ? [stamp.key, value, digest(text as string)] : [stamp.key, value])
  }

  /** Count these entries as used (their files were validated another way), so `used` keeps them. */
  touch(names: readonly string[]): void {
    for (const n of names) this.hits.push(n)
  }

  /** Forget every entry whose name is not in `names` (the files that exist now), even under `all`. */
  keep(names: Iterable<string>): void {
    this.keepOnly = new Set(names)
  }

  private unchanged(): boolean {
    const count = Object.keys(this.entries).length
    return this.sets.size === 0 && this.keepOnly === null && (this.retain === 'all' || this.hits.length >= count)
  }

  /** The entries to write, or null when the section is unchanged. */
  changed(): Record<string, Entry<T>> | null {
    if (this.unchanged()) return null // every entry still served (a listing touched them all) and nothing new
    const count = Object.keys(this.entries).length
    const out: Record<string, Entry<T>> = {}
    const names = this.retain === 'all' ? Object.keys(this.entries) : this.hits
    for (const n of names) {
      const e = this.entries[n]
      if (e !== undefined) out[n] = e
    }
    for (const [n, e] of this.sets) out[n] = e
    if (this.keepOnly !== null) for (const n of Object.keys(out)) if (!this.keepOnly.has(n)) delete out[n]
    const same = this.sets.size === 0 && Object.keys(out).length === count
    return same ? null : out
  }
}

/** Where the sections of a cache file lie: name → [start of its line, start of its JSON, end of its line]. */
type Toc = Map<string, [number, number, number]>

/**
 * The table of contents of each cache file as this process last read it, by the file's stamp: a long-running
 * process (the MCP server) reads an unchanged file once, then only the byte ranges of the sections it needs.
 */
const tocs = new Map<string, { key: string; toc: Toc; stale: boolean }>()
/** How many cache files' tables a process remembers (the oldest learnt is forgotten first). */
const MAX_TOCS = 512

/**
 * One cache file: a header line, then one line per section, `<name>\t<JSON of its entries>`. Only the sections
 * asked for are decoded and parsed; the others are copied through as bytes when the file is rewritten (a task
 * listing never holds the notes' or events' text as a string).
 */
export class CacheFile {
  /** The whole file's bytes, once read (a known, unchanged file is read by ranges instead). */
  private bytes: Buffer | null = null
  /** The stamp of the file the table of contents describes (null: no file). */
  private key: string | null = null
  private lines: Toc = new Map()
  private loaded = false
  private readonly open = new Map<string, Section<unknown>>()
  /** Only these sections survive the next save (see `keepSections`). */
  private survivors: ((name: string) => boolean) | null = null
  private stale = false
  private linked = false

  constructor(readonly file: string) {}

  /** Learn where the sections are: from memory when the file is unchanged, else by reading it whole. */
  private load(): void {
    if (this.loaded) return
    this.loaded = true
    // A cache reached through a link is neither read nor written (no links below .dacli/).
    this.linked = linkOnPath(this.file) !== null
    if (this.linked) return
    this.withFile((fd, key) => {
      const known = tocs.get(this.file)
      if (known !== undefined && known.key === key) {
        this.key = key
        this.lines = known.toc
        this.stale = known.stale
      } else this.readAll(fd, key)
    })
  }

  /** Run `fn` on the open file and its stamp; nothing when it cannot be opened. */
  private withFile(fn: (fd: number, key: string) => void): void {
    let fd: number
    try {
      fd = fs.openSync(this.file, 'r')
    } catch {
      return // missing or unreadable: start empty
    }
    try {
      const st = fs.fstatSync(fd)
      fn(fd, `${st.size}:${st.mtimeMs}:${st.ino}`)
    } catch {
      // unreadable: what was learnt so far stands
    } finally {
      fs.closeSync(fd)
    }
  }

  private readAll(fd: number, key: string): void {
    let buf = fs.readFileSync(fd)
    const first = buf.indexOf(10)
    const stale = first === -1 || buf.toString('latin1', 0, first) !== HEADER
    const toc: Toc = new Map()
    if (stale) buf = Buffer.alloc(0)
    for (let at = first + 1; at > 0 && at < buf.length; ) {
      let end = buf.indexOf(10, at)
      if (end === -1) end = buf.length
      const tab = buf.indexOf(9, at)
      if (tab > at && tab < end) toc.set(buf.toString('latin1', at, tab), [at, tab + 1, end])
      at = end + 1
    }
    this.bytes = buf
    this.key = key
    this.lines = toc
    this.stale = stale && fs.fstatSync(fd).size > 0
    tocs.delete(this.file)
    tocs.set(this.file, { key, toc, stale: this.stale })
    if (tocs.size > MAX_TOCS) tocs.delete(tocs.keys().next().value as string)
  }

  /** The bytes of a section's JSON: from the whole file when read, else read by range (checked unchanged). */
  private jsonOf(name: string): string | undefined {
    this.load()
    let line = this.lines.get(name)
    if (line === undefined) return undefined
    if (this.bytes !== null) return this.bytes.toString('utf8', line[1], line[2])
    let out: string | undefined
    this.withFile((fd, key) => {
      if (key !== this.key) {
        this.readAll(fd, key) // replaced since: read it again
        line = this.lines.get(name)
        out = line === undefined || this.bytes === null ? undefined : this.bytes.toString('utf8', line[1], line[2])
        return
      }
      const [, from, to] = line as [number, number, number]
      const buf = Buffer.allocUnsafe(to - from)
      if (fs.readSync(fd, buf, 0, buf.length, from) === buf.length) out = buf.toString('utf8')
    })
    return out
  }

  /** The named section (parsed on first use; one instance per process). */
  section<T>(name: string, retain: Retain): Section<T> {
    let s = this.open.get(name) as Section<T> | undefined
    if (s !== undefined) return s
    let entries: Record<string, Entry<T>> = {}
    const json = this.jsonOf(name)
    if (json !== undefined) {
      try {
        const v = JSON.parse(json) as unknown
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) entries = v as Record<string, Entry<T>>
      } catch {
        // a torn or foreign line: the section starts empty
      }
    }
    s = new Section<T>(entries, retain)
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
      sweepTemps(path.dirname(this.file)) // a dead writer's temp file here would otherwise wait for the next rewrite
      return
    }
    this.load()
    if (this.linked) return
    const names = [...new Set([...this.lines.keys(), ...this.open.keys()])].sort()
    const fresh = new Map<string, Record<string, Entry<unknown>>>()
    for (const name of this.open.keys()) {
      const f = this.open.get(name)?.changed()
      if (f !== undefined && f !== null) fresh.set(name, f)
    }
    const kept = names.filter((n) => this.survivors === null || this.survivors(n))
    if (!this.stale && fresh.size === 0 && kept.length === names.length) {
      sweepTemps(path.dirname(this.file)) // a dead writer's temp file here would otherwise wait for the next rewrite
      return
    }
    // Sections copied through need the whole file (read now if only ranges were read; if it was replaced
    // meanwhile, its sections are the ones to copy).
    if (this.bytes === null && this.key !== null) this.withFile((fd, key) => this.readAll(fd, key))
    const bytes = this.bytes ?? Buffer.alloc(0)
    const parts: Buffer[] = [Buffer.from(`${HEADER}\n`, 'latin1')]
    const all = [...new Set([...this.lines.keys(), ...this.open.keys()])].sort()
    for (const name of all.filter((n) => this.survivors === null || this.survivors(n))) {
      const f = fresh.get(name)
      if (f !== undefined) {
        if (Object.keys(f).length > 0) parts.push(Buffer.from(`${name}\t${JSON.stringify(f)}\n`, 'utf8'))
      } else {
        const line = this.lines.get(name)
        if (line !== undefined) parts.push(bytes.subarray(line[0], line[2]), NEWLINE)
      }
    }
    tocs.delete(this.file)
    writeCache(this.file, Buffer.concat(parts))
    this.stale = false
  }
}

const NEWLINE = Buffer.from('\n')

/**
 * Temp file and rename, without fsync: a cache lost in a crash costs only speed, and a torn one fails its
 * header or its JSON and is ignored. Dead writers' temp files in the folder are swept first.
 */
function writeCache(file: string, text: Buffer): void {
  const dir = path.dirname(file)
  const tmp = tempPathFor(file)
  try {
    mkdirNoLinks(dir)
    sweepTemps(dir)
    fs.writeFileSync(tmp, text)
    fs.renameSync(tmp, file)
  } catch {
    fs.rmSync(tmp, { force: true })
  }
}

export const cachePath = (dir: string, ...parts: string[]) => path.join(dir, 'cache', ...parts)
