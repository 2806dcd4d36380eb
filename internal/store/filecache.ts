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
const FORMAT = 9
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

  /** Forget every entry whose name is not in `names` (the files that exist now), even under `all`. */
  keep(names: Iterable<string>): void {
    this.keepOnly = new Set(names)
  }

  /** The entries to write, or null when the section is unchanged. */
  changed(): Record<string, Entry<T>> | null {
    const count = Object.keys(this.entries).length
    if (this.sets.size === 0 && this.keepOnly === null && (this.retain === 'all' || this.hits.length >= count)) {
      return null // every entry still served (a listing touched them all) and nothing new
    }
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

/** One cache file: a header line, then one line per section, `<name>\t<JSON of its entries>`. */
export class CacheFile {
  /** Section name → its line's JSON text, as read (null until the file is read). */
  private raw: Map<string, string> | null = null
  private readonly open = new Map<string, Section<unknown>>()
  /** Only these sections survive the next save (see `keepSections`). */
  private survivors: ((name: string) => boolean) | null = null
  private stale = false
  private linked = false

  constructor(readonly file: string) {}

  private load(): Map<string, string> {
    if (this.raw !== null) return this.raw
    const raw = new Map<string, string>()
    let text = ''
    try {
      // A cache reached through a link is neither read nor written (no links below .dacli/).
      this.linked = linkOnPath(this.file) !== null
      if (!this.linked) text = fs.readFileSync(this.file, 'utf8')
    } catch {
      // missing or unreadable: start empty
    }
    let at = text.indexOf('\n')
    if (at === -1 || text.slice(0, at) !== HEADER) this.stale = text !== ''
    else {
      while (at < text.length - 1) {
        const end = text.indexOf('\n', at + 1)
        const line = text.slice(at + 1, end === -1 ? text.length : end)
        const tab = line.indexOf('\t')
        if (tab > 0) raw.set(line.slice(0, tab), line.slice(tab + 1))
        if (end === -1) break
        at = end
      }
    }
    this.raw = raw
    return raw
  }

  /** The named section (parsed on first use; one instance per process). */
  section<T>(name: string, retain: Retain): Section<T> {
    let s = this.open.get(name) as Section<T> | undefined
    if (s !== undefined) return s
    let entries: Record<string, Entry<T>> = {}
    const json = this.load().get(name)
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
    const raw = this.load()
    if (this.linked) return
    const lines: string[] = [HEADER]
    let changed = this.stale
    const names = new Set([...raw.keys(), ...this.open.keys()])
    for (const name of [...names].sort()) {
      if (this.survivors !== null && !this.survivors(name)) {
        changed = true
        continue
      }
      const fresh = this.open.get(name)?.changed()
      if (fresh !== undefined && fresh !== null) {
        changed = true
        if (Object.keys(fresh).length > 0) lines.push(`${name}\t${JSON.stringify(fresh)}`)
      } else {
        const json = raw.get(name)
        if (json !== undefined) lines.push(`${name}\t${json}`)
      }
    }
    if (!changed) {
      // Nothing to write, but a dead writer's temp file here would otherwise wait for the next rewrite.
      sweepTemps(path.dirname(this.file))
      return
    }
    writeCache(this.file, `${lines.join('\n')}\n`)
    this.stale = false
  }
}

/**
 * Temp file and rename, without fsync: a cache lost in a crash costs only speed, and a torn one fails its
 * header or its JSON and is ignored. Dead writers' temp files in the folder are swept first.
 */
function writeCache(file: string, text: string): void {
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
