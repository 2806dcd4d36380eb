// The workspace as git would store it: every file under `.dacli/` (minus
// `locks/`, `cache/`, `worktrees/` and temp files; a link or a special file stops
// the record, so it never records a deletion that did not happen) hashed into blobs and trees, without
// writing anything. A stat cache (`.dacli/cache/record-stat.json`, validated by
// size, modification time and inode like git's index) spares re-reading the
// files that did not change, so an incremental record hashes only what moved. Its entries are checked by size,
// modification time, inode and change time (the change time moves on every write, even one that puts the
// modification time back), and an entry that is not one (a cache garbled by hand) is no entry.

import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { FILE_MODE, type LocalDir, type LocalFile, objectId, treeOf } from '../adapters/git/objects.js'
import { cmd } from '../base/commands.js'
import { FailureError } from '../base/errors.js'
import { seal, unseal } from './cachekey.js'
import { isTempName, LinkError, linkOnPath, mkdirNoLinks, readText } from './fsio.js'

/**
 * Top-level folders of `.dacli/` that are never recorded (`worktrees/` holds task checkouts;
 * `journal/` is this clone's local change journal).
 */
export const UNRECORDED: ReadonlySet<string> = new Set(['locks', 'cache', 'journal', 'worktrees'])

const CACHE_VERSION = 2
/** Entries younger than this are not cached: a same-size rewrite within the clock's granularity would look unchanged. */
const RACY_MS = 3_000

type CacheEntry = [size: number, mtimeNs: string, ino: number, ctimeNs: string, oid: string]

const OID = /^[0-9a-f]{40}$/

interface StatCache {
  v: number
  entries: Record<string, CacheEntry>
}

/** The stat cache's name under `cache/`, what its seal is bound to. */
const STAT_CACHE = 'record-stat.json'

function readCache(file: string, key: Buffer): StatCache {
  try {
    if (linkOnPath(file) !== null) return { v: CACHE_VERSION, entries: {} } // never through a link
    // A FIFO here is refused, never waited on; a file this clone's dacli did not seal is no cache (a planted entry
    // would have a file recorded as another blob).
    const body = unseal(key, STAT_CACHE, readText(file))
    const c = (body === null ? null : JSON.parse(body)) as StatCache | null
    if (c !== null && c.v === CACHE_VERSION && c.entries !== null && typeof c.entries === 'object') return c
  } catch {
    // missing or unreadable: hash everything again
  }
  return { v: CACHE_VERSION, entries: {} }
}

/**
 * Hash the folder `dir` (the `.dacli/` folder). Returns null when it holds no recordable file. The stat cache
 * (`.dacli/cache/record-stat.json`, sealed under the clone's cache `key`; null: none is used) is read and, when entries
 * changed, rewritten.
 */
export function snapshotDir(dir: string, key: Buffer | null, now = Date.now()): LocalDir | null {
  const cacheFile = key === null ? null : path.join(dir, 'cache', STAT_CACHE)
  const cache = cacheFile === null || key === null ? { v: CACHE_VERSION, entries: {} } : readCache(cacheFile, key)
  const next: Record<string, CacheEntry> = {}
  /** Files met on this walk: a cached entry not among them belongs to a deleted file. */
  const seen = new Set<string>()
  let dirty = false

  const walk = (abs: string, rel: string): LocalDir | null => {
    let ents: fs.Dirent[]
    try {
      ents = fs.readdirSync(abs, { withFileTypes: true })
    } catch {
      return null
    }
    const files = new Map<string, LocalFile>()
    const dirs = new Map<string, LocalDir>()
    for (const e of ents) {
      if (rel === '' && UNRECORDED.has(e.name)) continue
      if (isTempName(e.name)) continue
      const childAbs = path.join(abs, e.name)
      // A link or a special file where a file or folder was would be recorded as a deletion nobody made.
      if (e.isSymbolicLink()) throw new LinkError(childAbs)
      if (!e.isDirectory() && !e.isFile()) {
        throw new FailureError(`${childAbs} is not a regular file or folder; dacli will not record around it`, {
          details: { path: childAbs, code: 'special-file' },
          next: [`remove it (${cmd('doctor')} lists such files)`],
        })
      }
      const childRel = rel === '' ? e.name : `${rel}/${e.name}`
      if (e.isDirectory()) {
        const sub = walk(childAbs, childRel)
        if (sub !== null) dirs.set(e.name, sub)
        continue
      }
      if (!e.isFile()) continue
      let st: fs.BigIntStats
      try {
        st = fs.statSync(childAbs, { bigint: true })
      } catch {
        continue // removed while walking
      }
      seen.add(childRel)
      // Every file is recorded as a plain file: an executable bit means nothing to dacli, a pull writes none, and a
      // clone on a file system without one (Windows) would take it away again on each record (clones that never agree).
      const mode = FILE_MODE
      const mtime = st.mtimeNs.toString()
      const ctime = st.ctimeNs.toString()
      const hit = Object.hasOwn(cache.entries, childRel) ? cache.entries[childRel] : undefined
      if (
        Array.isArray(hit) &&
        hit[0] === Number(st.size) &&
        hit[1] === mtime &&
        hit[2] === Number(st.ino) &&
        hit[3] === ctime &&
        typeof hit[4] === 'string' &&
        OID.test(hit[4])
      ) {
        files.set(e.name, { oid: hit[4], mode, abs: childAbs })
        next[childRel] = hit
        continue
      }
      let content: Buffer
      try {
        content = fs.readFileSync(childAbs)
      } catch {
        continue
      }
      const oid = objectId('blob', content)
      files.set(e.name, { oid, mode, abs: childAbs, content })
      // A file changed moments ago (its contents or, by its change time, anything else) is hashed again next time
      // rather than cached (and is no reason to rewrite).
      if (now - Math.max(Number(st.mtimeMs), Number(st.ctimeMs)) > RACY_MS) {
        next[childRel] = [Number(st.size), mtime, Number(st.ino), ctime, oid]
        dirty = true
      }
    }
    if (files.size === 0 && dirs.size === 0) return null
    return treeOf(files, dirs)
  }

  const root = walk(dir, '')
  if (cacheFile !== null && key !== null && (dirty || Object.keys(cache.entries).some((k) => !seen.has(k)))) {
    writeCache(cacheFile, seal(key, STAT_CACHE, JSON.stringify({ v: CACHE_VERSION, entries: next })))
  }
  return root
}

/** Temp file and rename, without fsync: a lost cache costs only speed. */
function writeCache(file: string, text: string): void {
  try {
    mkdirNoLinks(path.dirname(file))
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`
    fs.writeFileSync(tmp, text)
    fs.renameSync(tmp, file)
  } catch {
    // A cache that cannot be written only costs speed.
  }
}
