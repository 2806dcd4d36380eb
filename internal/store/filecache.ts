// A regenerable cache of parsed object files under `.dacli/cache/` (quality.md).
// An entry is trusted only while its file's size, modification time and inode
// are unchanged; entries written while their file was still "racily" fresh are
// not kept (a same-size rewrite within the clock's granularity would look
// unchanged), and a file that cannot be parsed is never cached. Deleting the
// cache changes nothing but speed.

import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { atomicWrite, linkOnPath, sweepTemps } from './fsio.js'

const RACY_MS = 3_000

export interface Stamp {
  key: string
  mtimeMs: number
}

/** The validation stamp of a file, or null when it is gone. */
export function stampOf(file: string): Stamp | null {
  try {
    const st = fs.statSync(file)
    return { key: `${st.size}:${st.mtimeMs}:${st.ino}`, mtimeMs: st.mtimeMs }
  } catch {
    return null
  }
}

interface Stored<T> {
  v: number
  entries: Record<string, Entry<T>>
}

/** [validation stamp, value] — plus a digest of the content when the file was racily fresh at caching time. */
type Entry<T> = [string, T] | [string, T, string]

const digest = (text: string) => createHash('sha1').update(text).digest('hex')

export class FileCache<T> {
  private entries: Record<string, Entry<T>>
  private next: Record<string, Entry<T>> = {}
  private dirty = false

  /** `version` changes whenever the cached shape changes, so older caches are ignored. */
  constructor(
    private readonly file: string,
    private readonly version: number,
  ) {
    this.entries = {}
    try {
      if (linkOnPath(file) !== null) throw new Error('a cache reached through a link is not read (nor written)')
      const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Stored<T>
      if (stored.v === version && stored.entries && typeof stored.entries === 'object') this.entries = stored.entries
      else this.dirty = true
    } catch {
      // missing or unreadable: start empty (and write it)
      this.dirty = true
    }
  }

  /**
   * The cached value for `name` if its file is unchanged; it is kept for the next save. An entry cached
   * while its file was racily fresh is trusted only if the content still has the same digest (`read`
   * gives the content; without it such an entry is a miss) — reading and hashing is far cheaper than parsing.
   */
  get(name: string, stamp: Stamp, read?: () => string): T | undefined {
    const hit = this.entries[name]
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
        this.next[name] = [hit[0], hit[1]]
        this.dirty = true
        return hit[1]
      }
    }
    this.next[name] = hit
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
    this.next[name] = racy ? [stamp.key, value, digest(text as string)] : [stamp.key, value]
    this.dirty = true
  }

  /** Write the entries used or set since loading (stale ones drop out). A failed write only costs speed. */
  save(opts: { prune: boolean }): void {
    const keep = opts.prune ? this.next : { ...this.entries, ...this.next }
    if (!this.dirty && Object.keys(keep).length === Object.keys(this.entries).length) {
      // Nothing to write, but a dead writer's temp file here would otherwise wait for the next rewrite.
      sweepTemps(path.dirname(this.file))
      return
    }
    try {
      atomicWrite(this.file, JSON.stringify({ v: this.version, entries: keep }))
    } catch {
      // an unwritable cache is not an error
    }
  }
}

export const cacheFile = (dir: string, ...parts: string[]) => path.join(dir, 'cache', ...parts)
