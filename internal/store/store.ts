// The object store: one opened workspace. Reads are cheap (names first, cached summaries next, full parses where
// needed); every write of a shared object goes through a scoped lock, re-reads under it and writes atomically.

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { GitInfo } from '../adapters/git/discover.js'
import type { Deadline } from '../adapters/git/remote.js'
import { cmd } from '../base/commands.js'
import { parseDuration } from '../base/duration.js'
import { FailureError } from '../base/errors.js'
import type { System } from '../base/system.js'
import { safeSegment } from '../format/ids.js'
import type { Broken, ProjectRecord, TaskRecord, TaskSummary } from '../format/model.js'
import { fieldOf, stamp } from '../format/model.js'
import { readTaskRecord } from '../format/taskfile.js'
import { type CacheTrust, cacheTrust } from './cachekey.js'
import { type CheckedTask, listCriteria } from './criteria.js'
import { CacheFile, cachePath, type Section, type Stamp, StampMemo, stampOf } from './filecache.js'
import { assertNoLinks, LinkError, readText } from './fsio.js'
import { appendChange, type ChangeEntry } from './journal.js'
import type { LiveWorkspace } from './live.js'
import { acquireLock, type Lock, type LockOptions, lockHeld, withLock } from './lock.js'
import { useLstatNumbers } from './lstat.js'
import { listProjectEntries, listProjectFiles, projectsIn, readProjectFile, requireProjectDir } from './projects.js'
import { resolveRef } from './resolve.js'
import {
  filesOf,
  joinListings,
  type Listing,
  listProject,
  listTaskFiles,
  type SummarySection,
  type TaskFileRef,
  type Walk,
} from './taskindex.js'
import {
  type IdEntry,
  type IdWant,
  idsAfterWrite,
  idsOfListing,
  listIds,
  listProjectRecords,
  summaryAlone,
  walkAfterWrite,
} from './taskitems.js'
import { createTaskFile, editTaskFile, type TaskEdit, type TaskFileBuilder, tombstoneTaskFile } from './taskwrite.js'
import { type Config, checkRecordBranch, locate, readConfig, remoteDeadline } from './workspace.js'

// Where the layers above have always found them (they live beside what uses them: task writes, the workspace).
export type { TaskEdit } from './taskwrite.js'
export { remoteDeadline } from './workspace.js'

type Env = Readonly<Record<string, string | undefined>>

/** The parsing half of the store (yaml and friends), loaded on first need. */
const _parsing = () => import('../format/parsing.js')

/** The full records a long-lived server has read, by file, under the caches' stamp rule (see readTaskFile). */
const liveRecords = new StampMemo<TaskRecord>(1_000)

export class Store {
  private constructor(
    readonly root: string,
    readonly dir: string,
    readonly git: GitInfo | null,
    /** A linked worktree's own copy of `.dacli/`, ignored in favour of this store (doctor reports it). */
    readonly shadowed: string | null,
    readonly config: Config,
    readonly env: Env,
    readonly now: () => Date,
    /** The running process, as the bin handed it down (temp-file names, lock holders, liveness). */
    readonly system: System,
    /** A long-lived process's memory of this workspace (live.ts), shared by its calls; null for a command. */
    readonly live: LiveWorkspace | null = null,
  ) {}

  /**
   * Open the workspace found from `cwd`. `live` (a server's: `mcp serve`, `board`) gives the memory of the workspace
   * its calls share, for the workspace at that folder; it takes in what other processes changed first.
   */
  static async open(
    cwd: string,
    env: Env,
    now: () => Date,
    system: System,
    live?: (dir: string) => LiveWorkspace | null,
  ): Promise<Store> {
    useLstatNumbers(system.lstatNumbers ?? null)
    const loc = locate(cwd)
    const config = await readConfig(loc.dir, parseDuration)
    if (config.raw.record_branch !== undefined && config.raw.record_branch !== null) {
      checkRecordBranch(config.record_branch, '.dacli/config.yml', loc.git)
    }
    const memory = live?.(loc.dir) ?? null
    await memory?.settle()
    return new Store(loc.root, loc.dir, loc.git, loc.shadowed, config, env, now, system, memory)
  }

  /** The deadline of every remote operation (`remote_timeout`), and how to end the git process group on expiry. */
  get remoteDeadline(): Deadline {
    return remoteDeadline(this.system, this.config.remote_timeout_ms)
  }

  private readonly memos = new Map<string, Promise<unknown>>()

  /**
   * What the layers above derive from this workspace once per invocation (the acting identity, its signer,
   * the read-only identities): computed on first use under `key`, the same promise after that.
   */
  once<T>(key: string, make: () => Promise<T>): Promise<T> {
    const p = (this.memos.get(key) as Promise<T> | undefined) ?? make()
    this.memos.set(key, p)
    return p
  }

  /**
   * Which store this invocation talks to (whoami, status): its root and `.dacli/` folder, the caller's work
   * tree (null outside git) and whether that is a linked worktree sharing the main worktree's store.
   */
  where(): { root: string; dir: string; worktree: string | null; linked: boolean } {
    return { root: this.root, dir: this.dir, worktree: this.git?.workTree ?? null, linked: this.git?.linked ?? false }
  }

  /** A path relative to the workspace root, with forward slashes (what documents show). */
  rel(abs: string): string {
    return path.relative(this.root, abs).split(path.sep).join('/')
  }

  /** Append a line to the change journal (what `watch` follows); call it after the change is written. */
  journal(entry: Omit<ChangeEntry, 'at'>): void {
    // DACLI_JOURNAL_SEGMENT_BYTES sets the size at which a segment is sealed (tests use a small one). A server's
    // memory takes the line in at once (live.ts sync), so the rest of the call reads what the call wrote.
    const bytes = Number(this.env.DACLI_JOURNAL_SEGMENT_BYTES)
    appendChange(this.dir, { at: stamp(this.now()), ...entry }, bytes > 0 ? { segmentBytes: bytes } : {})
    this.live?.sync()
  }

  get locksDir(): string {
    return path.join(this.dir, 'locks')
  }

  /** Take the lock of `scope` (`DACLI_LOCK_WAIT_MS` bounds the wait); the caller releases it. */
  lock(scope: string): Promise<Lock> {
    return acquireLock(this.locksDir, scope, this.lockOptions())
  }

  /** Is the lock of `scope` held by a writer now? (A task's is `task-<id>`, a project's numbering `seq-<slug>`.) */
  lockHeld(scope: string): boolean {
    return lockHeld(this.locksDir, scope)
  }

  /** Run `fn` holding the lock of `scope`; released however `fn` ends. */
  withLock<T>(scope: string, fn: () => Promise<T> | T): Promise<T> {
    return withLock(this.locksDir, scope, fn, this.lockOptions())
  }

  private lockOptions(): LockOptions {
    const wait = Number(this.env.DACLI_LOCK_WAIT_MS)
    return Number.isFinite(wait) && wait >= 0 ? { system: this.system, waitMs: wait } : { system: this.system }
  }

  // ---------------------------------------------------------------- projects
  projectDir(slug: string): string {
    return path.join(this.dir, 'projects', safeSegment(slug, 'project slug'))
  }

  /** Project slugs (folders under projects/ holding a project.md), sorted. */
  projectSlugs(): string[] {
    return this.projectEntries().slugs
  }

  /** The project folders, and what under projects/ cannot be one (links, names that are not slugs). */
  projectEntries(): { slugs: string[]; broken: Broken[] } {
    return listProjectEntries(this)
  }

  /** Throws not-found (4) unless the project exists (and 1 when its folder is reached through a link). */
  requireProject(slug: string): string {
    return requireProjectDir(this, slug)
  }

  readProject(slug: string): Promise<ProjectRecord> {
    return readProjectFile(this, slug)
  }

  listProjects(): Promise<{ projects: ProjectRecord[]; broken: Broken[] }> {
    return listProjectFiles(this)
  }

  // ------------------------------------------------------------------ caches
  private readonly cacheFiles = new Map<string, CacheFile>()
  private trust: CacheTrust | undefined
  /** The clone's cache key, asked for when a cache is first used, and the cache files found whole (cachekey.ts). */
  cacheTrust(): CacheTrust {
    this.trust ??= cacheTrust(this, this.system)
    return this.trust
  }

  /** A cache file under `.dacli/cache/` (`index`, `items`, `records/<project>`): one per store, written by `flush()`. */
  cache(name: string): CacheFile {
    const c =
      this.cacheFiles.get(name) ??
      new CacheFile(cachePath(this.dir, ...name.split('/')), this.system, name, this.cacheTrust())
    this.cacheFiles.set(name, c)
    return c
  }

  private readonly flushHooks: (() => void)[] = []
  /** Run `fn` (which never throws) at the next flush, once: a cache a room above keeps (the search index). */
  atFlush(fn: () => void): void {
    this.flushHooks.push(fn)
  }

  /**
   * Write what this invocation learnt into the caches: once, after the command's work (invoke() calls it;
   * a long-running caller may call it between units of work). Never fails: a cache only costs speed.
   */
  flush(): void {
    for (const fn of this.flushHooks.splice(0)) fn()
    for (const [name, c] of this.cacheFiles) {
      if (name.startsWith('records/')) {
        // Records of files that no longer exist go, when this invocation listed the project.
        const listed = this.listings.get(name.slice('records/'.length))
        if (listed !== undefined) {
          c.section('tasks', 'all').keep(listed.tasks.map((t) => `${t.status}/${path.basename(t.path)}`))
        }
      }
      try {
        c.save()
      } catch {
        // an unwritable cache is not an error
      }
    }
  }

  // ------------------------------------------------------------------- tasks
  /** The workspace's root and `.dacli/` folder, as the task index takes them. */
  paths() {
    return { root: this.root, dir: this.dir }
  }

  /** Listings already made by this invocation, per project (dropped when this store writes a task), and the walks. */
  private listings = new Map<string, Listing>()
  private walks = new Map<string, Walk>()

  /** Drop what this invocation listed of `project` (it changed, or may have). */
  forget(project: string): void {
    this.listings.delete(project)
    this.walks.delete(project)
    this.idEntries.delete(project)
    this.live?.forget(project)
  }

  /**
   * This invocation rewrote task file `from` as `to` (the same task, maybe in another status folder): its listings
   * are dropped, but the ids it read (and their walk) are brought up to date for that one file, not read again
   * (another process's writes since are seen no more and no less than before the write).
   */
  wrote(from: TaskFileRef, to: TaskFileRef, task: { id: string; version: number; aliases: readonly number[] }): void {
    const project = from.project
    const kept = this.idEntries.get(project)
    const walked = this.walks.get(project)
    this.forget(project)
    const now = kept === undefined ? null : idsAfterWrite(kept, from, to, task)
    if (now !== null) this.idEntries.set(project, now)
    const walk = now?.walk ?? (walked === undefined ? null : walkAfterWrite(walked, from, to))
    if (walk !== null) this.walks.set(project, walk)
  }

  /** Cached summaries of one project's tasks (or every project's, and in `broken` the folders not read as one). */
  async listTasks(project?: string): Promise<Listing> {
    const { slugs, broken } = projectsIn(this, project)
    const index = this.cache('index')
    // A listing of every project drops the index sections of projects gone (their tasks, lint's criteria texts).
    if (project === undefined) {
      index.keepSections('tasks/', slugs)
      index.keepSections('criteria/', slugs)
      index.keepSections('ids/', slugs)
    }
    const parts: Listing[] = []
    for (const slug of slugs) parts.push(await this.listingOf(slug, index))
    const joined = joinListings(parts)
    return broken.length === 0 ? joined : { ...joined, broken: Object.freeze([...broken, ...joined.broken]) }
  }

  /** Each project's tasks by id as this invocation read them, and the walk they came from. */
  private idEntries = new Map<string, { ids: IdEntry[]; walk: Walk }>()

  /**
   * Every task of a project with its id, version and aliases (copies of one id deduplicated). From the listing
   * when this invocation (or a server's memory) has one; else read per file through the index, without the
   * summaries.
   */
  async idsIn(project: string): Promise<readonly IdEntry[]> {
    this.requireProject(project)
    if (this.live !== null || this.listings.has(project))
      return idsOfListing((await this.projectListing(project)).tasks)
    const got = this.idEntries.get(project) ?? (await this.readIds(project))
    this.idEntries.set(project, got)
    return got.ids
  }

  /**
   * The tasks of a project `want` names (an id, or the tasks keeping old numbers): from every task's ids when this
   * invocation has them, else read as idsIn reads them, parsing only the kept entries that may be wanted.
   */
  async idsWhere(project: string, want: IdWant): Promise<readonly IdEntry[]> {
    if (this.live !== null || this.listings.has(project) || this.idEntries.has(project))
      return (await this.idsIn(project)).filter(want.entry)
    this.requireProject(project)
    const got = await this.readIds(project, want)
    this.walks.set(project, got.walk) // the project's files as they are now: shared with the invocation's reads
    return got.ids
  }

  /** A project's ids (those `want` names) per file through the index, on this invocation's walk if it took one. */
  private readIds(project: string, want?: IdWant): Promise<{ ids: IdEntry[]; walk: Walk }> {
    const index = this.cache('index')
    const ids = () => index.section(`ids/${project}`, 'used')
    const tasks = (): SummarySection => index.section(`tasks/${project}`, 'all')
    return listIds(this.paths(), project, ids, tasks, want, this.walks.get(project))
  }

  /**
   * One task file's summary (null when it is gone or unreadable): from the listing when this invocation (or a
   * server's memory) has one, else that file alone through the index.
   */
  async summaryOf(f: TaskFileRef): Promise<TaskSummary | null> {
    if (this.live !== null || this.listings.has(f.project)) {
      return (await this.projectListing(f.project)).tasks.find((t) => t.path === f.path) ?? null
    }
    return summaryAlone(f, ++this.singleSummaries, () => this.cache('index').section(`tasks/${f.project}`, 'all'))
  }

  /** Summaries asked for one by one (summaryOf) in this invocation. */
  private singleSummaries = 0

  /** Whether this store serves a long-running process (its listings kept in memory, live.ts). */
  get serving(): boolean {
    return this.live !== null
  }

  /**
   * Every project's listing (as listTasks() without a project reads them, in its order), never to be changed by the
   * caller: a server's are the ones its memory keeps, the same objects while nothing changed them.
   */
  async projectListings(): Promise<Readonly<Listing>[]> {
    const slugs = this.projectSlugs()
    const index = this.cache('index')
    index.keepSections('tasks/', slugs)
    index.keepSections('criteria/', slugs)
    const out: Listing[] = []
    for (const slug of slugs) out.push(await this.listingOf(slug, index))
    return out
  }

  /**
   * One project's listing as this invocation made it (a server's may be the one its memory keeps, shared across
   * calls): never to be changed by the caller. listTasks gives a copy to keep.
   */
  async projectListing(project: string): Promise<Readonly<Listing>> {
    this.requireProject(project)
    return this.listingOf(project, this.cache('index'))
  }

  private async listingOf(slug: string, index: CacheFile): Promise<Listing> {
    let l = this.listings.get(slug) ?? (await this.live?.refreshed(slug, this.paths()))
    if (l === undefined) {
      const mark = this.live?.mark(slug)
      // The walk idsIn or idsWhere took, when one did: one walk of the project per invocation, not two.
      const walked = this.idEntries.get(slug)?.walk ?? this.walks.get(slug)
      const section = (): SummarySection => index.section(`tasks/${slug}`, 'used')
      l = await listProject(this.paths(), slug, section, walked, (w) => this.walks.set(slug, w))
      if (mark !== undefined) this.live?.keep(slug, l, mark)
    }
    this.listings.set(slug, l)
    return l
  }

  /**
   * The task files of a project by name (not parsed; what cannot be a task left out): a server's from the listing
   * its memory keeps up to date, else from the walk this invocation read the ids from (idsIn), else a walk.
   */
  async taskFiles(project: string, where?: (name: string) => boolean): Promise<readonly TaskFileRef[]> {
    const only = (files: readonly TaskFileRef[]) => (where === undefined ? files : files.filter((f) => where(f.name)))
    if (this.live !== null) {
      const kept = this.live.filesOf(project, await this.projectListing(project), this.paths())
      if (kept !== undefined) return only(kept)
    }
    const walked = this.idEntries.get(project)?.walk ?? this.walks.get(project)
    return walked !== undefined ? filesOf(walked, where) : only(listTaskFiles(this.paths(), project).files)
  }

  /**
   * Resolve a reference to one task file (resolve.ts). `prefer` resolves an unqualified reference inside that
   * project first.
   */
  resolve(ref: string, opts: { prefer?: string } = {}): Promise<TaskFileRef & { id?: string }> {
    return resolveRef(this, ref, opts)
  }

  /** The full task record for a reference. */
  async readTask(ref: string, opts: { prefer?: string } = {}): Promise<TaskRecord> {
    return (await this.load(ref, opts)).task
  }

  /**
   * Resolve and read a task. Another process may move the file between the two
   * steps (a claim moves open → active), so a vanished file is resolved again.
   */
  async load(
    ref: string,
    opts: { prefer?: string } = {},
  ): Promise<{ target: TaskFileRef & { id: string }; task: TaskRecord }> {
    for (let attempt = 0; ; attempt++) {
      // A listing made before the move would name the old path again: list afresh on a retry.
      if (attempt > 0) {
        this.listings.clear()
        this.walks.clear()
        this.idEntries.clear()
        this.live?.forget()
      }
      const target = await this.resolve(ref, opts)
      if (!fs.existsSync(target.abs) && attempt < 5) continue
      try {
        const task = await this.readTaskFile(target)
        return { target: { ...target, id: task.id }, task }
      } catch (e) {
        if (attempt < 5 && !fs.existsSync(target.abs)) continue
        throw e
      }
    }
  }

  /**
   * Full records of one project's tasks (or every project's), each through the record cache and parsed at most
   * once — for commands that read every task in full (lint), rather than a listing and then every file again.
   */
  async listRecords(project?: string): Promise<{ records: TaskRecord[]; broken: Broken[] }> {
    const { slugs, broken: folders } = projectsIn(this, project)
    const records: TaskRecord[] = []
    const broken: Broken[] = [...folders] // as listTasks: the folders not read as projects
    for (const slug of slugs) {
      const walked = this.walks.get(slug) ?? this.idEntries.get(slug)?.walk // one walk a project, not two
      const got = await listProjectRecords(this.paths(), slug, (f) => this.recordOf(f, f.stamp), walked)
      records.push(...got.records)
      broken.push(...got.broken)
    }
    return { records, broken }
  }

  /**
   * Every task's summary with its acceptance criteria's texts (lint), through the index: each file parsed at
   * most once, no full records made. Copies of one task id are deduplicated as listRecords does.
   */
  async listWithCriteria(project?: string): Promise<{ tasks: CheckedTask[]; broken: Broken[] }> {
    const { slugs, broken: folders } = projectsIn(this, project)
    const index = this.cache('index')
    if (project === undefined) {
      index.keepSections('tasks/', slugs)
      index.keepSections('criteria/', slugs)
      index.keepSections('ids/', slugs)
    }
    const tasks: CheckedTask[] = []
    const broken: Broken[] = [...folders] // as listTasks: the folders not read as projects
    for (const slug of slugs) {
      const summaries: SummarySection = index.section(`tasks/${slug}`, 'used')
      const l = await listCriteria(this.paths(), slug, summaries, index.section(`criteria/${slug}`, 'used'))
      tasks.push(...l.tasks)
      broken.push(...l.broken)
    }
    return { tasks, broken }
  }

  /** Folders this invocation has found free of links (a task read checks its folder once, then the file). */
  private readonly linkFree = new Set<string>()

  /**
   * assertNoLinks for a file, its folder's chain checked once per invocation; `leafChecked` when the caller's
   * own lstat has just found the file itself a regular file (a listing's).
   */
  private assertNoLinksOnce(abs: string, leafChecked: boolean): void {
    const dir = path.dirname(abs)
    if (!this.linkFree.has(dir)) {
      assertNoLinks(dir, this.dir)
      this.linkFree.add(dir)
    }
    if (!leafChecked && fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink()) throw new LinkError(abs)
  }

  /**
   * A full task record, parsed from its file (`known`: its stamp, when the caller has just taken it with lstat: no
   * link). Never from the project's record cache, which holds every record once a command listed them (`overview`,
   * `metrics`): a megabyte at 1,000 tasks, read to find one entry. `shared`: a server's kept record itself, not a
   * copy, for a caller that only reads it.
   */
  async readTaskFile(f: TaskFileRef, known?: Stamp, shared = false): Promise<TaskRecord> {
    if (this.live === null) return this.parseTaskText(this.readTaskText(f, known), f)
    // A server keeps the records it read, by file and stamp, and hands out copies (a caller may change its record).
    const stamp = known ?? stampOf(f.abs)
    const kept = stamp === null ? undefined : liveRecords.get(f.abs, stamp)
    if (kept !== undefined) return shared ? kept : structuredClone(kept)
    const record = await this.parseTaskText(this.readTaskText(f, known), f)
    if (stamp !== null) liveRecords.set(f.abs, stamp, shared ? record : structuredClone(record))
    return record
  }

  /** A record for listRecords: from the project's record cache while its file is unchanged, else parsed and kept. */
  private async recordOf(f: TaskFileRef, known?: Stamp): Promise<TaskRecord> {
    if (this.live !== null) return this.readTaskFile(f, known)
    const stamp = known ?? stampOf(f.abs)
    const cache: Section<TaskRecord> = this.cache(`records/${f.project}`).section('tasks', 'all')
    const key = `${f.status}/${f.name}`
    const hit = stamp === null ? undefined : cache.get(key, stamp)
    if (hit !== undefined) return hit
    const record = await this.parseTaskText(this.readTaskText(f, known), f)
    if (stamp !== null) cache.set(key, stamp, record)
    return record
  }

  /** A task file's text, never through a link (exit 1 when it cannot be read, naming the file). */
  private readTaskText(f: TaskFileRef, known?: Stamp): string {
    try {
      this.assertNoLinksOnce(f.abs, known !== undefined)
      return readText(f.abs, known?.size)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new FailureError(`cannot read ${f.path}`, { cause: e })
      throw unreadableTask(f.path, e)
    }
  }

  private async parseTaskText(text: string, f: TaskFileRef): Promise<TaskRecord> {
    try {
      return await readTaskRecord(text, f)
    } catch (e) {
      throw unreadableTask(f.path, e)
    }
  }

  /** The task with this id (`t-<ULID>`), wherever it lives now. */
  async findById(id: string, project: string): Promise<TaskFileRef | null> {
    this.forget(project) // it may have moved since this invocation last listed
    const l = await this.listTasks(project)
    const t = l.tasks.find((x) => x.id === id)
    return t === undefined ? null : fileRefOf(this.root, t)
  }

  /**
   * Rewrite one task under its lock (taskwrite.ts): re-read it, let `fn` edit it, bump `version`, write
   * atomically (moving it between status folders if its status changed). `fn` returns false to write nothing.
   */
  editTask<R>(
    target: TaskFileRef & { id?: string },
    actor: string,
    fn: (edit: TaskEdit) => Promise<R | false> | R | false,
  ): Promise<{ result: R | false; task: TaskRecord; changed: boolean }> {
    return editTaskFile(this, target, actor, fn)
  }

  /** Move a task to `tasks/removed/` as a tombstone (its number is never reused). */
  tombstoneTask(target: TaskFileRef & { id?: string }, actor: string): Promise<TaskRecord> {
    return tombstoneTaskFile(this, target, actor)
  }

  /** Allocate the next sequence number and create a task file, under the project's sequence lock. */
  createTask(project: string, build: TaskFileBuilder): Promise<TaskRecord> {
    return createTaskFile(this, project, build)
  }
}

/** Skip codes of task files that were read and refused for their content. */
export const REFUSED_CONTENT = new Set(['invalid-field', 'invalid-id', 'invalid-utf8', 'unparseable-object'])

/** Exit 1 for a task file dacli will not use (unparseable, an invalid id or field, not UTF-8, a link). */
export function unreadableTask(rel: string, e: unknown): FailureError {
  if (e instanceof LinkError) return e
  return new FailureError(`unreadable task file ${rel}: ${(e as Error).message}`, {
    cause: e,
    details: { path: rel, ...fieldOf(e) },
    next: ['fix the file by hand (dacli never overwrites an unreadable file)', cmd('doctor')],
  })
}

export function fileRefOf(
  root: string,
  t: Pick<TaskSummary, 'project' | 'status' | 'path' | 'seq' | 'slug'>,
): TaskFileRef {
  const abs = path.join(root, t.path)
  return {
    project: t.project,
    status: t.status,
    name: path.basename(t.path),
    seq: t.seq,
    slug: t.slug,
    abs,
    path: t.path,
  }
}
