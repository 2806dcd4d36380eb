// A regenerable cache of parsed object files under `.dacli/cache/` (quality.md).
// An entry is trusted only while its file's size, modification time and inode
// are unchanged; entries written while their file was still "racily" fresh are
// not kept (a same-size rewrite within the clock's granularity would look
// unchanged), and a file that cannot be parsed is never cached. Deleting the
// cache changes nothing but speed.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { atomicWrite, sweepTemps } from './fsio.js'

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
  entries: Record<string, [string, T]>
}

export class FileCache<T> {
  private entries: Record<string, [string, T]>
  private next: Record<string, [string, T]> = {}
  private dirty = false

  /** `version` changes whenever the cached shape changes, so older caches are ignored. */
  constructor(
    private readonly file: string,
    private readonly version: number,
  ) {
    this.entries = {}
    try {
      const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Stored<T>
      if (stored.v === version && stored.entries && typeof stored.entries === 'object') this.entries = stored.entries
      else this.dirty = true
    } catch {
      // missing or unreadable: start empty (and write it)
      this.dirty = true
    }
  }

  /** The cached value for `name` if its file is unchanged; it is kept for the next save. */
  get(name: string, stamp: Stamp): T | undefined {
    const hit = this.entries[name]
    if (hit === undefined || hit[0] !== stamp.key) return undefined
    this.next[name] = hit
    return hit[1]
  }

  /**
   * A racily fresh file's value is not kept, so it alone is no reason to rewrite the cache (a durable write) on
   * every read for the next few seconds — a long-lived MCP server reads constantly while agents write. A stale
   * entry dropped for it still changes the count, which `save` notices.
   */
  set(name: string, stamp: Stamp, value: T): void {
    if (Date.now() - stamp.mtimeMs <= RACY_MS) return
    this.next[name] = [stamp.key, value]
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
