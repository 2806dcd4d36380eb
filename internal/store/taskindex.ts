// Listing a project's task files, with a regenerable cache of parsed summaries
// under `.dacli/cache/` (quality.md). The cache is never trusted without
// validation: an entry is used only when the file's size, modification time and
// inode match, and entries written while their file was still "racily" fresh are
// re-read. Deleting the cache changes nothing but speed.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { atomicWrite, isTempName } from './fsio.js'
import {
  type Broken,
  STATUS_RANK,
  STATUSES,
  type Status,
  summaryOf,
  TASK_FILE,
  type TaskRecord,
  type TaskSummary,
} from './model.js'

export interface TaskFileRef {
  project: string
  status: Status
  name: string
  seq: number
  slug: string
  /** Absolute path. */
  abs: string
  /** Path relative to the workspace root. */
  path: string
}

export interface Paths {
  /** The folder holding `.dacli/`. */
  root: string
  /** `<root>/.dacli` */
  dir: string
}

export const tasksDir = (p: Paths, project: string) => path.join(p.dir, 'projects', project, 'tasks')

/** Task files of a project by file name only (no parsing), plus files that cannot be tasks. */
export function listTaskFiles(p: Paths, project: string): { files: TaskFileRef[]; broken: Broken[] } {
  const files: TaskFileRef[] = []
  const broken: Broken[] = []
  for (const status of STATUSES) {
    const dir = path.join(tasksDir(p, project), status)
    let ents: fs.Dirent[]
    try {
      ents = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      continue
    }
    for (const e of ents) {
      if (!e.name.endsWith('.md') || e.name.startsWith('.') || isTempName(e.name)) continue
      const abs = path.join(dir, e.name)
      const rel = path.relative(p.root, abs)
      if (e.isSymbolicLink()) {
        broken.push({ path: rel, reason: 'symbolic link (not followed)' })
        continue
      }
      if (!e.isFile()) continue
      const m = TASK_FILE.exec(e.name)
      if (m === null) {
        broken.push({ path: rel, reason: 'file name is not NNN-slug.md' })
        continue
      }
      files.push({ project, status, name: e.name, seq: Number(m[1]), slug: m[2] as string, abs, path: rel })
    }
  }
  return { files, broken }
}

type Parser = (text: string, f: TaskFileRef) => TaskRecord

interface CacheEntry {
  size: number
  mtime: string
  ino: number
  summary: TaskSummary
}

interface CacheFile {
  v: number
  entries: Record<string, CacheEntry>
}

const CACHE_VERSION = 2
/** Files modified this recently are not cached: a same-size rewrite within the clock's granularity would look unchanged. */
const RACY_MS = 3_000

export interface Listing {
  tasks: TaskSummary[]
  broken: Broken[]
  /** Files holding the same task id as a more terminal copy (a bad merge). */
  duplicates: { id: string; kept: string; ignored: string }[]
}

function cachePath(p: Paths, project: string): string {
  return path.join(p.dir, 'cache', 'tasks', `${project}.json`)
}

function readCache(file: string): CacheFile {
  try {
    const c = JSON.parse(fs.readFileSync(file, 'utf8')) as CacheFile
    if (c.v === CACHE_VERSION && c.entries !== null && typeof c.entries === 'object') return c
  } catch {
    // missing or unreadable: rebuild
  }
  return { v: CACHE_VERSION, entries: {} }
}

/** Summaries of every parseable task in a project (deduplicated by id), using the cache. */
export async function listProject(p: Paths, project: string, loadParser: () => Promise<Parser>): Promise<Listing> {
  const { files, broken } = listTaskFiles(p, project)
  const cfile = cachePath(p, project)
  const cache = readCache(cfile)
  const next: Record<string, CacheEntry> = {}
  let dirty = false
  let parser: Parser | null = null
  const now = Date.now()
  const all: TaskSummary[] = []
  for (const f of files) {
    let st: fs.BigIntStats
    try {
      st = fs.statSync(f.abs, { bigint: true })
    } catch {
      continue // removed while listing
    }
    const key = `${f.status}/${f.name}`
    const mtime = st.mtimeNs.toString()
    const hit = cache.entries[key]
    if (hit && hit.size === Number(st.size) && hit.mtime === mtime && hit.ino === Number(st.ino)) {
      all.push(hit.summary)
      next[key] = hit
      continue
    }
    dirty = true
    parser ??= await loadParser()
    let rec: TaskRecord
    try {
      rec = parser(fs.readFileSync(f.abs, 'utf8'), f)
    } catch (e) {
      broken.push({ path: f.path, reason: (e as Error).message })
      continue
    }
    const summary = summaryOf(rec)
    all.push(summary)
    if (now - Number(st.mtimeMs) > RACY_MS) {
      next[key] = { size: Number(st.size), mtime, ino: Number(st.ino), summary }
    }
  }
  if (dirty || Object.keys(cache.entries).length !== Object.keys(next).length) {
    try {
      atomicWrite(cfile, JSON.stringify({ v: CACHE_VERSION, entries: next }))
    } catch {
      // A cache that cannot be written only costs speed.
    }
  }
  // One task id in two folders: the more terminal copy wins.
  const byId = new Map<string, TaskSummary>()
  const duplicates: Listing['duplicates'] = []
  for (const t of all) {
    const prev = byId.get(t.id)
    if (prev === undefined) byId.set(t.id, t)
    else {
      const [keep, drop] = STATUS_RANK[t.status] > STATUS_RANK[prev.status] ? [t, prev] : [prev, t]
      byId.set(t.id, keep)
      duplicates.push({ id: t.id, kept: keep.path, ignored: drop.path })
    }
  }
  const tasks = [...byId.values()].sort((a, b) => a.seq - b.seq || a.path.localeCompare(b.path))
  return { tasks, broken, duplicates }
}

/** Every sequence number a project has ever used (live files, tombstones, unparseable files). */
export function usedSeqs(p: Paths, project: string): Set<number> {
  const used = new Set<number>()
  for (const status of [...STATUSES, 'removed']) {
    let names: string[]
    try {
      names = fs.readdirSync(path.join(tasksDir(p, project), status))
    } catch {
      continue
    }
    for (const n of names) {
      const m = /^(\d{3,})-/.exec(n)
      if (m && !isTempName(n)) used.add(Number(m[1]))
    }
  }
  return used
}
