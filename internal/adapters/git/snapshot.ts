// The workspace as git would store it: every file under `.dacli/` (minus
// `locks/`, `cache/`, `worktrees/` and temp files; a link or a special file stops
// the record, so it never records a deletion that did not happen) hashed into blobs and trees, without
// writing anything. A stat cache (`.dacli/cache/record-stat.json`, validated by
// size, modification time and inode like git's index) spares re-reading the
// files that did not change, so an incremental record hashes only what moved.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { FailureError } from '../../base/errors.js'
import { system } from '../../base/system.js'
import { isTempName, LinkError, linkOnPath, mkdirNoLinks } from '../../store/fsio.js'
import { EXEC_MODE, FILE_MODE, objectId, TREE_MODE, type TreeItem, treeBody } from './objects.js'

export interface LocalFile {
  oid: string
  mode: string
  abs: string
  /** The bytes, when this run read them (a cache miss). */
  content?: Buffer
}

export interface LocalDir {
  oid: string
  files: Map<string, LocalFile>
  dirs: Map<string, LocalDir>
  /** The tree body (to write it without recomputing). */
  body: Buffer
}

/**
 * Top-level folders of `.dacli/` that are never recorded (`worktrees/` holds task checkouts: coordination.md;
 * `journal/` is this clone's local change journal).
 */
const UNRECORDED = new Set(['locks', 'cache', 'journal', 'worktrees'])

const CACHE_VERSION = 1
/** Entries younger than this are not cached: a same-size rewrite within the clock's granularity would look unchanged. */
const RACY_MS = 3_000

type CacheEntry = [size: number, mtimeNs: string, ino: number, oid: string]

interface StatCache {
  v: number
  entries: Record<string, CacheEntry>
}

function readCache(file: string): StatCache {
  try {
    if (linkOnPath(file) !== null) return { v: CACHE_VERSION, entries: {} } // never through a link
    const c = JSON.parse(fs.readFileSync(file, 'utf8')) as StatCache
    if (c.v === CACHE_VERSION && c.entries !== null && typeof c.entries === 'object') return c
  } catch {
    // missing or unreadable: hash everything again
  }
  return { v: CACHE_VERSION, entries: {} }
}

function treeOf(files: Map<string, LocalFile>, dirs: Map<string, LocalDir>): LocalDir {
  const items: TreeItem[] = []
  for (const [name, f] of files) items.push({ name, mode: f.mode, oid: f.oid })
  for (const [name, d] of dirs) items.push({ name, mode: TREE_MODE, oid: d.oid })
  const body = treeBody(items)
  return { oid: objectId('tree', body), files, dirs, body }
}

/**
 * Hash the folder `dir` (the `.dacli/` folder). Returns null when it holds no
 * recordable file. `cacheFile` is read and, when entries changed, rewritten.
 */
export function snapshotDir(dir: string, cacheFile: string | null, now = Date.now()): LocalDir | null {
  const cache = cacheFile === null ? { v: CACHE_VERSION, entries: {} } : readCache(cacheFile)
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
          next: ['remove it (dacli doctor lists such files)'],
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
      const mode = (Number(st.mode) & 0o111) !== 0 ? EXEC_MODE : FILE_MODE
      const mtime = st.mtimeNs.toString()
      const hit = cache.entries[childRel]
      if (hit && hit[0] === Number(st.size) && hit[1] === mtime && hit[2] === Number(st.ino)) {
        files.set(e.name, { oid: hit[3], mode, abs: childAbs })
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
      // A file changed moments ago is hashed again next time rather than cached (and is no reason to rewrite).
      if (now - Number(st.mtimeMs) > RACY_MS) {
        next[childRel] = [Number(st.size), mtime, Number(st.ino), oid]
        dirty = true
      }
    }
    if (files.size === 0 && dirs.size === 0) return null
    return treeOf(files, dirs)
  }

  const root = walk(dir, '')
  if (cacheFile !== null && (dirty || Object.keys(cache.entries).some((k) => !seen.has(k)))) {
    writeCache(cacheFile, { v: CACHE_VERSION, entries: next })
  }
  return root
}

/** Temp file and rename, without fsync: a lost cache costs only speed. */
function writeCache(file: string, cache: StatCache): void {
  try {
    mkdirNoLinks(path.dirname(file))
    const tmp = `${file}.${system().pid}.tmp`
    fs.writeFileSync(tmp, JSON.stringify(cache))
    fs.renameSync(tmp, file)
  } catch {
    // A cache that cannot be written only costs speed.
  }
}

/** Wrap a folder's tree in the folders above it (`.dacli` → root tree holding `.dacli/`). */
export function wrapIn(tree: LocalDir, prefix: readonly string[]): LocalDir {
  let cur = tree
  for (let i = prefix.length - 1; i >= 0; i--) cur = treeOf(new Map(), new Map([[prefix[i] as string, cur]]))
  return cur
}
