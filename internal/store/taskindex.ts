// Listing a project's task files, with a regenerable cache of parsed summaries
// under `.dacli/cache/` (quality.md). The cache is never trusted without
// validation: an entry is used only when the file's size, modification time and
// inode match, and entries written while their file was still "racily" fresh are
// re-read. Deleting the cache changes nothing but speed.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { byText } from '../base/order.js'
import { type Section, stampOf } from './filecache.js'
import { isTempName, linkOnPath, readText } from './fsio.js'
import {
  type Broken,
  brokenOf,
  STATUS_RANK,
  STATUSES,
  type Status,
  summaryOf,
  TASK_FILE,
  type TaskSummary,
} from './model.js'
import { readTaskRecord } from './taskfile.js'

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
  const base = tasksDir(p, project)
  const relBase = `${path.relative(p.root, base).split(path.sep).join('/')}/`
  // No folder on the way is read through a link (projects/<p>, tasks, tasks/<status>): it is reported instead.
  const link = linkOnPath(base, p.dir)
  if (link !== null) {
    broken.push(linkBroken(p, link))
    return { files, broken }
  }
  // The status folders there are (one listing, rather than a failed call for each missing one).
  let present: fs.Dirent[]
  try {
    present = fs.readdirSync(base, { withFileTypes: true })
  } catch {
    return { files, broken }
  }
  for (const status of STATUSES) {
    const folder = present.find((e) => e.name === status)
    if (folder === undefined) continue
    const dir = `${base}${path.sep}${status}`
    if (folder.isSymbolicLink()) {
      broken.push(linkBroken(p, dir))
      continue
    }
    let ents: fs.Dirent[]
    try {
      ents = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      continue
    }
    for (const e of ents) {
      const name = e.name
      if (!name.endsWith('.md') || name.startsWith('.') || isTempName(name)) continue
      // Paths by concatenation: this loop runs once per task file on every listing.
      const abs = `${dir}${path.sep}${name}`
      const rel = `${relBase}${status}/${name}`
      if (e.isSymbolicLink()) {
        broken.push({ path: rel, reason: 'symbolic link (not followed)', code: 'symlink-in-workspace' })
        continue
      }
      if (!e.isFile()) {
        broken.push({ path: rel, reason: 'not a regular file (not read)', code: 'special-file' })
        continue
      }
      const m = TASK_FILE.exec(name)
      if (m === null) {
        broken.push({ path: rel, reason: 'file name is not NNN-slug.md', code: 'unparseable-object' })
        continue
      }
      files.push({ project, status, name, seq: Number(m[1]), slug: m[2] as string, abs, path: rel })
    }
  }
  return { files, broken }
}

const linkBroken = (p: Paths, abs: string): Broken => ({
  path: path.relative(p.root, abs).split(path.sep).join('/'),
  reason: 'symbolic link (not followed)',
  code: 'symlink-in-workspace',
})

/** What the cache keeps of a summary: no field the file's location gives, no field at its default. */
type Compact = Partial<TaskSummary> &
  Pick<TaskSummary, 'id' | 'title' | 'version' | 'acceptance_done' | 'acceptance_total'>

const LOCATION = new Set(['seq', 'slug', 'project', 'status', 'path'])

function compact(s: TaskSummary): Compact {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(s)) {
    if (LOCATION.has(k) || v === null || v === false || (Array.isArray(v) && v.length === 0)) continue
    out[k] = v
  }
  return out as Compact
}

function expand(c: Compact, f: TaskFileRef): TaskSummary {
  return {
    id: c.id,
    seq: f.seq,
    slug: f.slug,
    project: f.project,
    status: f.status,
    path: f.path,
    title: c.title,
    owner: c.owner ?? null,
    claim: c.claim ?? null,
    priority: c.priority ?? null,
    estimate: c.estimate ?? null,
    depends_on: c.depends_on ?? [],
    parent: c.parent ?? null,
    version: c.version,
    aliases: c.aliases ?? [],
    github: c.github ?? null,
    created: c.created ?? null,
    created_by: c.created_by ?? null,
    tags: c.tags ?? [],
    acceptance_done: c.acceptance_done,
    acceptance_total: c.acceptance_total,
    unverified: c.unverified ?? false,
    blocked_by: c.blocked_by ?? null,
    worktree: c.worktree ?? null,
  }
}

export interface Listing {
  tasks: TaskSummary[]
  broken: Broken[]
  /** Files holding the same task id as a preferred copy: an interrupted move (versions differ) or a bad merge. */
  duplicates: { id: string; kept: string; ignored: string; interrupted: boolean }[]
}

/** The cached summaries of one project's tasks (a section of the workspace index). */
export type SummarySection = Section<Compact>

/** Summaries of every parseable task in a project (deduplicated by id), using the index. */
export async function listProject(p: Paths, project: string, cache: SummarySection): Promise<Listing> {
  // A file that moves while the folders are read (a claim moves open → active: the new copy is written
  // first, the old one removed last) can be missed by one pass; a pass that saw a file vanish is redone.
  for (let attempt = 1; ; attempt++) {
    const { listing, vanished } = await listOnce(p, project, cache)
    if (!vanished || attempt >= 8) return listing
  }
}

async function listOnce(
  p: Paths,
  project: string,
  cache: SummarySection,
): Promise<{ listing: Listing; vanished: boolean }> {
  let vanished = false
  const { files, broken } = listTaskFiles(p, project)
  const all: TaskSummary[] = []
  for (const f of files) {
    const stamp = stampOf(f.abs)
    if (stamp === null) {
      vanished = true // moved or removed while listing
      continue
    }
    const key = `${f.status}/${f.name}`
    const hit = cache.get(key, stamp, () => readText(f.abs))
    if (hit !== undefined) {
      all.push(expand(hit, f))
      continue
    }
    let summary: TaskSummary
    let text: string
    try {
      text = readText(f.abs)
      summary = summaryOf(await readTaskRecord(text, f))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') vanished = true
      else broken.push(brokenOf(f.path, e))
      continue
    }
    cache.set(key, stamp, compact(summary), text)
    all.push(summary)
  }
  // One task id in two folders: the newer copy wins (a move interrupted between writing the new
  // file and removing the old one); at equal versions (a bad merge), the more terminal one.
  const byId = new Map<string, TaskSummary>()
  const duplicates: Listing['duplicates'] = []
  for (const t of all) {
    const prev = byId.get(t.id)
    if (prev === undefined) byId.set(t.id, t)
    else {
      const [keep, drop] = preferred(t, prev) ? [t, prev] : [prev, t]
      byId.set(t.id, keep)
      duplicates.push({ id: t.id, kept: keep.path, ignored: drop.path, interrupted: keep.version !== drop.version })
    }
  }
  const tasks = [...byId.values()].sort((a, b) => a.seq - b.seq || byText(a.path, b.path))
  return { listing: { tasks, broken, duplicates }, vanished }
}

/** Of two copies of one task, is `a` the one to keep? Higher version first, then the more terminal folder. */
export function preferred(
  a: Pick<TaskSummary, 'version' | 'status'>,
  b: Pick<TaskSummary, 'version' | 'status'>,
): boolean {
  return a.version !== b.version ? a.version > b.version : STATUS_RANK[a.status] > STATUS_RANK[b.status]
}

/** Every sequence number a project has ever used (live files, tombstones, unparseable files). */
export function usedSeqs(p: Paths, project: string): Set<number> {
  const used = new Set<number>()
  for (const status of [...STATUSES, 'removed']) {
    let names: string[]
    const dir = path.join(tasksDir(p, project), status)
    try {
      if (linkOnPath(dir, p.dir) !== null) continue // writing there is refused anyway
      names = fs.readdirSync(dir)
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
