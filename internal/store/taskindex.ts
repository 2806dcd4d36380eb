// Listing a project's task files, with a regenerable cache of parsed summaries
// under `.dacli/cache/`. The cache is never trusted without
// validation: an entry is used only when the file's size, modification time and
// inode match, and entries written while their file was still "racily" fresh are
// re-read. Deleting the cache changes nothing but speed.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { FailureError } from '../base/errors.js'
import { byText } from '../base/order.js'
import {
  type Broken,
  brokenOf,
  STATUS_RANK,
  STATUSES,
  type Status,
  TASK_FILE,
  type TaskSummary,
} from '../format/model.js'
import { readTaskSummary, summaryNow } from '../format/taskfile.js'
import { type Compact, compact, compactOf, expand } from './compact.js'
import { isConflictCopy } from './conflicts.js'
import type { Section, Stamp } from './filecache.js'
import { isTempName, linkOnPath, notAFile, readText, readTextStamped } from './fsio.js'
import { lstatStamp } from './lstat.js'

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
  /** Its validation stamp, when the listing was asked to take it (listTaskFiles with `stat`). */
  stamp?: Stamp
}

export interface Paths {
  /** The folder holding `.dacli/`. */
  root: string
  /** `<root>/.dacli` */
  dir: string
}

export const tasksDir = (p: Paths, project: string) => path.join(p.dir, 'projects', project, 'tasks')

/**
 * Task files of a project by file name only (no parsing), plus files that cannot be tasks. With `stat`, each
 * file's stamp is taken too (walkProject), in the one call that also tells a regular file from a link (a listing
 * stats every file anyway; this spares a second call and the folder entries' type objects).
 */
export function listTaskFiles(
  p: Paths,
  project: string,
  opts: { stat?: boolean } = {},
): { files: TaskFileRef[]; broken: Broken[]; vanished: boolean } {
  const w = walkProject(p, project, opts.stat === true)
  return { files: filesOf(w), broken: w.broken, vanished: w.vanished }
}

/**
 * One walk of a project's task folders, kept compact (a listing of 10,000 tasks keeps it alive until its answer
 * is written): each task file's status folder, name and stamp, in the order the folders listed them, plus what
 * cannot be a task. `filesOf` gives the file references.
 */
export interface Walk {
  readonly project: string
  /** The tasks folder, absolute. */
  readonly base: string
  /** The tasks folder relative to the workspace root, with a trailing `/`. */
  readonly relBase: string
  readonly statuses: Status[]
  readonly names: string[]
  /**
   * Four numbers per file: size, modification time (ms), inode, change time (ms); NaN for a file whose stamp the
   * walk did not take (walkProject with `stamps` false), until its reader sets it (`setStampAt`).
   */
  readonly stamps: number[]
  readonly broken: Broken[]
  /** A file moved or was removed while the folders were read. */
  readonly vanished: boolean
}

/**
 * Walk a project's task folders, taking one `lstat` per task file (never following a link). With `stamps` false the
 * kind of each entry comes from its folder's listing instead and no stamp is taken: for a reader with nothing kept
 * to check a stamp against (a first listing, a cold cache), which opens every file anyway and takes each stamp from
 * the open file (`readTextStamped`, `setStampAt`).
 */
export function walkProject(p: Paths, project: string, stamps = true): Walk {
  return stamps ? walkStamped(p, project) : walkNamed(p, project)
}

function walkStamped(p: Paths, project: string): Walk {
  const statuses: Status[] = []
  const names: string[] = []
  const stamps: number[] = []
  const broken: Broken[] = []
  let vanished = false
  const { base, relBase } = pathsOf(p, project)
  taskFolders(
    p,
    project,
    broken,
    (dir: string) => fs.readdirSync(dir),
    (status, dir, ents) => {
      const folder = `${relBase}${status}/`
      for (const name of ents) {
        if (!candidate(name)) continue
        // Paths by concatenation: this loop runs once per task file on every listing.
        const file = `${dir}${path.sep}${name}`
        // A task file's stamp is taken as numbers; anything else (a link, a folder, a name that is not
        // NNN-slug.md) comes as its Stats, to say what it is.
        const st = TASK_FILE.test(name)
          ? lstatStamp(file, stamps)
          : (fs.lstatSync(file, { throwIfNoEntry: false }) ?? 'missing')
        if (st === 'file') {
          statuses.push(status)
          names.push(name)
          continue
        }
        if (st === 'missing') {
          vanished = true // moved or removed while listing
          continue
        }
        refused(st, name, folder, broken) // a regular file with a task file's name was 'file' above: this is none
      }
    },
  )
  return { project, base, relBase, statuses, names, stamps, broken, vanished }
}

function walkNamed(p: Paths, project: string): Walk {
  const statuses: Status[] = []
  const names: string[] = []
  const stamps: number[] = []
  const broken: Broken[] = []
  const { base, relBase } = pathsOf(p, project)
  taskFolders(
    p,
    project,
    broken,
    (dir: string) => fs.readdirSync(dir, { withFileTypes: true }),
    (status, _dir, ents) => {
      const folder = `${relBase}${status}/`
      for (const e of ents) {
        const name = e.name
        if (!candidate(name) || refused(e, name, folder, broken)) continue
        statuses.push(status)
        names.push(name)
        stamps.push(Number.NaN, Number.NaN, Number.NaN, Number.NaN)
      }
    },
  )
  return { project, base, relBase, statuses, names, stamps, broken, vanished: false }
}

/** A task file's text; a reference without a stamp gets the stamp of what was read, taken from the open file. */
export function readTaskText(f: TaskFileRef): string {
  if (f.stamp !== undefined) return readText(f.abs, f.stamp.size)
  const { text, stamp } = readTextStamped(f.abs)
  f.stamp = stamp
  return text
}

/** Did the walk take the stamp of its `i`th file (or has its reader set it since)? */
export const stampTaken = (w: Walk, i: number) => !Number.isNaN(w.stamps[4 * i])

/** Set the stamp of a walk's `i`th file, taken by its reader from the open file. */
export function setStampAt(w: Walk, i: number, s: Stamp): void {
  w.stamps.splice(4 * i, 4, s.size, s.mtimeMs, s.ino, s.ctimeMs)
}

/** The file references of a walk, each with its stamp (only the files whose name `where` keeps, when given). */
export function filesOf(w: Walk, where?: (name: string) => boolean): TaskFileRef[] {
  const out: TaskFileRef[] = []
  for (let i = 0; i < w.names.length; i++)
    if (where === undefined || where(w.names[i] as string)) out.push(fileAt(w, i))
  return out
}

/** The text of `section`'s entry `key` while it is the walk's `i`th file's (its stamp unchanged): Section.textAt. */
export function textAtWalk(section: Section<unknown>, key: string, w: Walk, i: number): string | undefined {
  const s = w.stamps
  return section.textAt(key, s[4 * i] as number, s[4 * i + 1] as number, s[4 * i + 2] as number, s[4 * i + 3] as number)
}

/** The reference of a walk's `i`th file, with its stamp when taken. */
export function fileAt(w: Walk, i: number): TaskFileRef {
  const status = w.statuses[i] as Status
  const name = w.names[i] as string
  const m = TASK_FILE.exec(name) as RegExpExecArray
  const f: TaskFileRef = {
    project: w.project,
    status,
    name,
    seq: Number(m[1]),
    slug: m[2] as string,
    abs: `${w.base}${path.sep}${status}${path.sep}${name}`,
    path: `${w.relBase}${status}/${name}`,
  }
  if (stampTaken(w, i)) {
    const s = w.stamps
    f.stamp = {
      size: s[4 * i] as number,
      mtimeMs: s[4 * i + 1] as number,
      ino: s[4 * i + 2] as number,
      ctimeMs: s[4 * i + 3] as number,
    }
  }
  return f
}

/**
 * A folder entry that may be a task file (temp files and dot files are not looked at). `.MD` in another case is
 * looked at too, to be reported: its number is held (usedSeqs), so a task nobody sees must not be passed over.
 */
export const candidate = (name: string) =>
  (name.endsWith('.md') || /\.md$/i.test(name)) && !name.startsWith('.') && !isTempName(name)

/**
 * Is this entry no task file (a link, not a regular file, a name that is not NNN-slug.md)? It is added to `broken`,
 * named `<folder><name>` (`folder`: its status folder's path from the root, with the slash; the path is built only
 * for an entry refused, as this runs once per task file on every listing).
 */
function refused(kind: fs.Dirent | fs.Stats, name: string, folder: string, broken: Broken[]): boolean {
  if (kind.isFile() && TASK_FILE.test(name)) return false
  const rel = `${folder}${name}`
  if (kind.isSymbolicLink()) {
    broken.push({ path: rel, reason: 'symbolic link (not followed)', code: 'symlink-in-workspace' })
    return true
  }
  if (!kind.isFile()) {
    broken.push(notAFile(kind, rel, 'a task file'))
    return true
  }
  if (!TASK_FILE.test(name)) {
    broken.push({ path: rel, reason: 'file name is not NNN-slug.md', code: 'unparseable-object' })
    return true
  }
  return false
}

/**
 * Visit each status folder of a project's tasks folder that is there and is no link, with its entries as `read`
 * lists them. No folder on the way is read through a link (projects/<p>, tasks, tasks/<status>): it is reported in
 * `broken` instead, as is a folder dacli cannot read (never read as empty). No tasks folder yet is no tasks.
 */
function taskFolders<T>(
  p: Paths,
  project: string,
  broken: Broken[],
  read: (dir: string) => T[],
  visit: (status: Status, dir: string, ents: T[]) => void,
): void {
  const base = tasksDir(p, project)
  const link = linkOnPath(base, p.dir)
  if (link !== null) {
    broken.push(linkBroken(p, link))
    return
  }
  // The status folders there are (one listing, rather than a failed call for each missing one).
  let present: fs.Dirent[]
  try {
    present = fs.readdirSync(base, { withFileTypes: true })
  } catch (e) {
    if (!missing(e)) broken.push(unreadableDir(p, base, e))
    return
  }
  for (const status of STATUSES) {
    const folder = present.find((e) => e.name === status)
    if (folder === undefined) continue
    const dir = `${base}${path.sep}${status}`
    if (folder.isSymbolicLink()) {
      broken.push(linkBroken(p, dir))
      continue
    }
    let ents: T[]
    try {
      ents = read(dir)
    } catch (e) {
      if (!missing(e)) broken.push(unreadableDir(p, dir, e))
      continue
    }
    visit(status, dir, ents)
  }
  // Anything else there holds no task any reader sees: said, never passed over (a task moved by hand into a folder
  // named for a status dacli does not have would otherwise drop out of every listing, and its number be reused).
  for (const e of present) if (!knownInTasks(e.name)) broken.push(strayBroken(p, base, e))
}

/**
 * The entries a tasks folder may hold: its status folders, `removed/`, hidden or temporary names, and a record
 * pull's conflict copy of a task (reported as a conflict by doctor and status, conflicts.ts).
 */
const knownInTasks = (name: string) =>
  (STATUSES as readonly string[]).includes(name) ||
  name === 'removed' ||
  name.startsWith('.') ||
  isTempName(name) ||
  isConflictCopy(name)

/** What is wrong with an entry of a tasks folder that is neither a status folder nor `removed/`. */
function strayBroken(p: Paths, base: string, e: fs.Dirent): Broken {
  const abs = path.join(base, e.name)
  if (e.isSymbolicLink()) return linkBroken(p, abs)
  const rel = path.relative(p.root, abs).split(path.sep).join('/')
  if (e.isDirectory())
    return {
      path: rel,
      reason: `not a status folder (${STATUSES.join(', ')}; removed for tombstones): nothing in it is read; move each task to the folder of its status`,
      code: 'unparseable-object',
    }
  if (e.isFile())
    return {
      path: rel,
      reason: 'not in a status folder: not read; move it to the folder of its status',
      code: 'unparseable-object',
    }
  return { path: rel, reason: 'not a regular file (not read)', code: 'special-file' }
}

/** A project's tasks folder, absolute and relative to the workspace root (with a trailing `/`). */
function pathsOf(p: Paths, project: string): { base: string; relBase: string } {
  const base = tasksDir(p, project)
  return { base, relBase: `${path.relative(p.root, base).split(path.sep).join('/')}/` }
}

const missing = (e: unknown) => {
  const code = (e as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

const unreadableDir = (p: Paths, abs: string, e: unknown): Broken => ({
  path: path.relative(p.root, abs).split(path.sep).join('/'),
  reason: `cannot be read: ${(e as Error).message}`,
  code: 'unreadable-path',
})

const linkBroken = (p: Paths, abs: string): Broken => ({
  path: path.relative(p.root, abs).split(path.sep).join('/'),
  reason: 'symbolic link (not followed)',
  code: 'symlink-in-workspace',
})

/** A file holding the same task id as a preferred copy: an interrupted move (versions differ) or a bad merge. */
export interface DuplicateCopy {
  id: string
  kept: string
  ignored: string
  interrupted: boolean
}

/** A listing is shared by the calls that get it (joinListings): its arrays are never changed. */
export interface Listing {
  readonly tasks: readonly TaskSummary[]
  readonly broken: readonly Broken[]
  readonly duplicates: readonly DuplicateCopy[]
}

export { joinListings } from './livekept.js'

/** The cached summaries of one project's tasks (a section of the workspace index). */
export type SummarySection = Section<Compact>

/*
 * No summaries are kept in memory between listings, not even by a long-running process (the MCP server): every
 * listing takes them from the index, checked against each file's stamp. Kept summaries of 10,000 tasks held
 * ~10 MB alive for good, and V8 lets the old generation grow to several times what stays alive before it
 * collects in full — the server's resident memory at 10,000 tasks was ~20 MB higher with them (measured with
 * bench/mcp-memory.mjs), while reading the index per call keeps MCP latency at 1,000 tasks within its target.
 */

/**
 * How many passes a reader makes over a project's task folders while files move under it. A file that moves
 * while the folders are read (a claim moves open → active: the new copy is written first, the old one removed
 * last) can be missed by one pass; a pass that saw a file vanish is redone, and the last one allowed stands.
 * Every per-file reader of task folders (listings, ids, list items, records, criteria, search) follows it.
 */
export const MOVE_PASSES = 8

/**
 * Summaries of every parseable task in a project (deduplicated by id), using the index. `walked` is a walk of the
 * project this invocation already took (the one its ids were read from): its files are checked against the same
 * stamps rather than walked a second time.
 */
export async function listProject(
  p: Paths,
  project: string,
  section: () => SummarySection,
  walked?: Walk,
  took?: (w: Walk) => void,
): Promise<Listing> {
  for (let attempt = 1; ; attempt++) {
    // Nothing kept for the project (a cold cache): every file is read, and its stamp taken from the open file.
    const cache = section()
    const w = attempt === 1 && walked !== undefined ? walked : walkProject(p, project, !cache.isEmpty())
    const { listing, vanished } = await listOnce(w, cache)
    if (!vanished || attempt >= MOVE_PASSES) {
      took?.(w) // the walk the listing came from, every file's stamp taken by now (a reader may reuse it)
      return listing
    }
  }
}

async function listOnce(listed: Walk, cache: SummarySection): Promise<{ listing: Listing; vanished: boolean }> {
  const broken = [...listed.broken]
  let vanished = listed.vanished
  const all: TaskSummary[] = []
  for (let i = 0; i < listed.names.length; i++) {
    const status = listed.statuses[i] as Status
    const name = listed.names[i] as string
    const key = `${status}/${name}`
    const text = stampTaken(listed, i) ? textAtWalk(cache, key, listed, i) : undefined
    const hit = text === undefined ? undefined : compactOf(text)
    if (hit !== undefined) {
      // The walk took only names TASK_FILE matches (NNN-slug.md): number and slug are the name's two parts.
      const dash = name.indexOf('-')
      const seq = Number(name.slice(0, dash))
      const rel = `${listed.relBase}${key}`
      all.push(expand(hit, { seq, slug: name.slice(dash + 1, -3), project: listed.project, status, path: rel }))
      continue
    }
    const f = fileAt(listed, i)
    let summary: TaskSummary
    try {
      const body = readTaskText(f)
      if (!stampTaken(listed, i)) setStampAt(listed, i, f.stamp as Stamp)
      summary = summaryNow(body, f) ?? (await readTaskSummary(body, f))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') vanished = true
      else broken.push(brokenOf(f.path, e))
      continue
    }
    cache.set(key, f.stamp as Stamp, compact(summary))
    all.push(summary)
  }
  const { tasks, duplicates } = deduplicated(all, broken)
  return { listing: { tasks, duplicates, broken }, vanished }
}

/**
 * One task id in two folders: the newer copy wins (a move interrupted between writing the new file and
 * removing the old one); at equal versions (a bad merge), the more terminal one. In sequence order. Each
 * copy not listed is added to `broken` when given: a skip like any other, announced.
 */
export function deduplicated<T extends Pick<TaskSummary, 'id' | 'version' | 'status' | 'seq' | 'path'>>(
  all: readonly T[],
  broken?: Broken[],
): { tasks: T[]; duplicates: DuplicateCopy[] } {
  const byId = new Map<string, T>()
  const duplicates: DuplicateCopy[] = []
  for (const t of all) {
    const prev = byId.get(t.id)
    if (prev === undefined) byId.set(t.id, t)
    else {
      const [keep, drop] = preferred(t, prev) ? [t, prev] : [prev, t]
      byId.set(t.id, keep)
      const interrupted = keep.version !== drop.version
      duplicates.push({ id: t.id, kept: keep.path, ignored: drop.path, interrupted })
      broken?.push({
        path: drop.path,
        reason: `another copy of task ${t.id}; ${keep.path} is the one listed`,
        code: interrupted ? 'interrupted-move' : 'duplicate-task-file',
      })
    }
  }
  const tasks = [...byId.values()].sort((a, b) => a.seq - b.seq || byText(a.path, b.path))
  return { tasks, duplicates }
}

/**
 * Of two copies of one task, is `a` the one to keep? Higher version first, then the more terminal folder, then the
 * path first in code-unit order: never the order the copies were seen in (a server's memory sees a new copy after the
 * ones it kept, a walk in the folders' order), so every reader keeps the same copy.
 */
function preferred(
  a: Pick<TaskSummary, 'version' | 'status' | 'path'>,
  b: Pick<TaskSummary, 'version' | 'status' | 'path'>,
): boolean {
  if (a.version !== b.version) return a.version > b.version
  if (a.status !== b.status) return STATUS_RANK[a.status] > STATUS_RANK[b.status]
  return byText(a.path, b.path) < 0
}

/**
 * Every sequence number a project has ever used: live files, tombstones, unparseable files, and any file named
 * like a task anywhere in its tasks folder (a folder that is not a status folder, a file beside the folders): a
 * number a person put there by hand is never handed out again.
 */
export function usedSeqs(p: Paths, project: string): Set<number> {
  const used = new Set<number>()
  const base = tasksDir(p, project)
  const take = (names: string[]) => {
    for (const n of names) {
      const m = /^(\d{3,})-/.exec(n)
      if (m && !isTempName(n)) used.add(Number(m[1]))
    }
  }
  // A number in a folder dacli cannot read could be handed out twice: refuse rather than guess.
  const unreadable = (dir: string, e: unknown) =>
    new FailureError(`cannot read ${dir}: ${(e as Error).message}`, { cause: e })
  let present: fs.Dirent[]
  try {
    if (linkOnPath(base, p.dir) !== null) return used // writing there is refused anyway
    present = fs.readdirSync(base, { withFileTypes: true })
  } catch (e) {
    if (missing(e)) return used
    throw unreadable(base, e)
  }
  take(present.filter((e) => !e.isDirectory()).map((e) => e.name))
  for (const e of present) {
    if (!e.isDirectory()) continue // a link to a folder is not followed (and is reported by every listing)
    const dir = path.join(base, e.name)
    try {
      take(fs.readdirSync(dir))
    } catch (err) {
      if (!missing(err)) throw unreadable(dir, err)
    }
  }
  return used
}
