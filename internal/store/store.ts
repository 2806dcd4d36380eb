// The object store: one opened workspace. Reads are cheap (file names first,
// cached summaries next, full parses only where needed); every write of a shared
// object goes through a scoped lock, re-reads under it and writes atomically.

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { GitInfo } from '../adapters/git/discover.js'
import { closest } from '../base/closest.js'
import { MAX_SUGGESTIONS } from '../base/distance.js'
import { parseDuration } from '../base/duration.js'
import { ConflictError, FailureError, NotFoundError } from '../base/errors.js'
import { listAgentFiles, ROOT_ID, resolveIdentity } from '../domain/identity/identity.js'
import type { Signer } from '../domain/identity/signing.js'
import { projectOf } from '../domain/project/projects.js'
import { parseData } from '../format/flat.js'
import { isId, safeSegment } from '../format/ids.js'
import { appendToSection } from '../format/markdown.js'
import type { Broken, Identity, ProjectRecord, Status, TaskRecord, TaskSummary } from '../format/model.js'
import { brokenOf, fieldOf, STATUSES, stamp, taskFileName } from '../format/model.js'
import { taskIdInText } from '../format/rawtask.js'
import { type Candidate, matchRef, type ParsedRef, parseRef, pickOne, qualifiedRef } from '../format/refs.js'
import { readTaskRecord, recordOf } from '../format/taskfile.js'
import { type CheckedTask, listCriteria } from './criteria.js'
import { CacheFile, cachePath, type Section, type Stamp, stampOf } from './filecache.js'
import { assertNoLinks, atomicWrite, LinkError, linkOnPath, readText, removeFile, sweepTemps } from './fsio.js'
import { appendChange, type ChangeEntry } from './journal.js'
import type { LiveWorkspace } from './live.js'
import { acquireLock, type Lock, type LockOptions, withLock } from './lock.js'
import {
  deduplicated,
  type Listing,
  listProject,
  listTaskFiles,
  type SummarySection,
  type TaskFileRef,
  tasksDir,
  usedSeqs,
} from './taskindex.js'
import { type Config, locate, readConfig } from './workspace.js'

type Env = Readonly<Record<string, string | undefined>>

/** The parsing half of the store (yaml and friends), loaded on first need. */
const parsing = () => import('../format/parsing.js')

export interface TaskEdit {
  /** The task as read under the lock. */
  readonly before: TaskRecord
  /** The frontmatter document to edit (yaml Document API). */
  readonly doc: import('yaml').Document
  /** The body; assign to change it. */
  body: string
  /** Move the task to another status folder. */
  status: Status
  /** Append a `## Log` line. */
  log(verb: string, details?: string): void
  /**
   * Set a top-level key the way dacli writes it: a map in flow style (`claim: {by: a-x, at: …}`), a list of
   * maps one per line, each in flow style. (Assigning `flow` on a plain object would write a `flow: true` key.)
   */
  setFlow(key: string, value: Record<string, unknown> | Record<string, unknown>[]): void
  readonly actor: string
  readonly now: Date
}

export class Store {
  private identityPromise: Promise<Identity> | undefined

  private constructor(
    readonly root: string,
    readonly dir: string,
    readonly git: GitInfo | null,
    /** A linked worktree's own copy of `.dacli/`, ignored in favour of this store (doctor reports it). */
    readonly shadowed: string | null,
    readonly config: Config,
    readonly env: Env,
    readonly now: () => Date,
    /** A long-lived process's memory of this workspace (live.ts), shared by its calls; null for a command. */
    private readonly live: LiveWorkspace | null = null,
  ) {}

  /**
   * Open the workspace found from `cwd`. `live` (a server's: `mcp serve`, `board`) gives the memory of the workspace
   * its calls share, for the workspace at that folder; it takes in what other processes changed first.
   */
  static async open(
    cwd: string,
    env: Env,
    now: () => Date,
    live?: (dir: string) => LiveWorkspace | null,
  ): Promise<Store> {
    const loc = locate(cwd)
    const config = await readConfig(loc.dir, parseDuration)
    const memory = live?.(loc.dir) ?? null
    memory?.sync()
    return new Store(loc.root, loc.dir, loc.git, loc.shadowed, config, env, now, memory)
  }

  private roIds: Promise<Set<string>> | undefined

  /** Ids of identities with a read-only grant (cached for this invocation). */
  readOnlyIdentities(): Promise<Set<string>> {
    this.roIds ??= listAgentFiles(this.dir, this.root).then(
      (all) => new Set(all.filter((a) => a.grant === 'ro').map((a) => a.id)),
    )
    return this.roIds
  }

  private signerPromise: Promise<Signer> | undefined

  /**
   * The acting identity's signer (events, the agent files it spawns): an agent's key comes from its token;
   * root's is this clone's root key, kept in the git directory (`dacli/root-key`), never in the work tree.
   */
  signer(): Promise<Signer> {
    this.signerPromise ??= this.identity().then(async (who) => {
      const { agentSigner, rootSigner } = await import('../domain/identity/signing.js')
      if (who.id !== ROOT_ID) return agentSigner((this.env.DACLI_AGENT ?? '').trim())
      const keyFile =
        this.git === null
          ? path.join(this.dir, 'cache', 'root-key')
          : path.join(this.git.commonDir, 'dacli', 'root-key')
      return rootSigner(this.dir, keyFile)
    })
    return this.signerPromise
  }

  identity(): Promise<Identity> {
    this.identityPromise ??= resolveIdentity(this.env, this.dir, this.root)
    return this.identityPromise
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
    appendChange(this.dir, { at: stamp(this.now()), ...entry })
  }

  get locksDir(): string {
    return path.join(this.dir, 'locks')
  }

  /** Take the lock of `scope` (`DACLI_LOCK_WAIT_MS` bounds the wait); the caller releases it. */
  lock(scope: string): Promise<Lock> {
    return acquireLock(this.locksDir, scope, this.lockOptions())
  }

  /** Run `fn` holding the lock of `scope`; released however `fn` ends. */
  withLock<T>(scope: string, fn: () => Promise<T> | T): Promise<T> {
    return withLock(this.locksDir, scope, fn, this.lockOptions())
  }

  private lockOptions(): LockOptions {
    const wait = Number(this.env.DACLI_LOCK_WAIT_MS)
    return Number.isFinite(wait) && wait >= 0 ? { waitMs: wait } : {}
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
    const projects = path.join(this.dir, 'projects')
    const broken: Broken[] = []
    let ents: fs.Dirent[]
    try {
      if (linkOnPath(projects, this.dir) !== null) throw new LinkError(projects)
      ents = fs.readdirSync(projects, { withFileTypes: true })
    } catch (e) {
      // No projects folder is no projects; one that cannot be read is announced, never read as empty.
      if (e instanceof LinkError) broken.push(brokenOf(this.rel(projects), e))
      else if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        broken.push({
          path: this.rel(projects),
          reason: `cannot be read: ${(e as Error).message}`,
          code: 'unreadable-path',
        })
      }
      return { slugs: [], broken }
    }
    const slugs: string[] = []
    const relProjects = this.rel(projects)
    for (const e of ents) {
      const rel = `${relProjects}/${e.name}`
      if (e.isSymbolicLink())
        broken.push({ path: rel, reason: 'symbolic link (not followed)', code: 'symlink-in-workspace' })
      else if (!e.isDirectory()) continue
      else if (isId('project', e.name)) slugs.push(e.name)
      else if (!e.name.startsWith('.')) {
        broken.push({
          path: rel,
          reason: 'the folder name is not a project slug (a-z, 0-9, ".", "_", "-")',
          code: 'invalid-id',
        })
      }
    }
    return { slugs: slugs.sort(), broken }
  }

  /** Throws not-found (4) unless the project exists (and 1 when its folder is reached through a link). */
  requireProject(slug: string): string {
    const dir = this.projectDir(slug)
    const file = path.join(dir, 'project.md')
    assertNoLinks(file, this.dir)
    let present = true
    try {
      fs.statSync(file)
    } catch (e) {
      // Only a project.md that is not there means "no project"; any other failure is said as it is.
      const code = (e as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        throw new FailureError(`cannot read ${this.rel(file)}: ${(e as Error).message}`, {
          cause: e,
          details: { path: this.rel(file) },
        })
      }
      present = false
    }
    if (!present) {
      const known = this.projectSlugs()
      const near = closest(
        slug,
        known.map((k) => ({ value: k, names: [k] })),
      ).map((c) => ({ value: c.value }))
      throw new NotFoundError(`no project "${slug}"`, {
        details: { project: slug, known, given: slug, closest: near },
        next: known.length > 0 ? ['dacli project list'] : ['dacli project add "<title>"'],
      })
    }
    return dir
  }

  async readProject(slug: string): Promise<ProjectRecord> {
    const dir = this.requireProject(slug)
    const file = path.join(dir, 'project.md')
    try {
      return projectOf(await parseData(readText(file)), slug, this.rel(file))
    } catch (e) {
      throw new FailureError(`unreadable project file ${this.rel(file)}: ${(e as Error).message}`, {
        cause: e,
        details: { path: this.rel(file), ...fieldOf(e) },
        next: ['fix the file by hand (dacli never overwrites an unreadable file)', 'dacli doctor'],
      })
    }
  }

  async listProjects(): Promise<{ projects: ProjectRecord[]; broken: Broken[] }> {
    const projects: ProjectRecord[] = []
    const { slugs, broken } = this.projectEntries()
    for (const slug of slugs) {
      const file = path.join(this.dir, 'projects', slug, 'project.md')
      let text: string
      try {
        if (fs.lstatSync(file).isSymbolicLink()) {
          broken.push({ path: this.rel(file), reason: 'symbolic link (not followed)', code: 'symlink-in-workspace' })
          continue
        }
        text = readText(file)
        projects.push(projectOf(await parseData(text), slug, this.rel(file)))
      } catch (e) {
        // A folder without project.md is not a project; anything else that stops the read is reported.
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue
        broken.push(brokenOf(this.rel(file), e))
      }
    }
    return { projects, broken }
  }

  // ------------------------------------------------------------------ caches

  private readonly cacheFiles = new Map<string, CacheFile>()

  /**
   * A cache file under `.dacli/cache/` (`index`: the workspace's summaries; `records/<project>`: full task
   * records). One instance per store, written only by `flush()`.
   */
  cache(name: string): CacheFile {
    let c = this.cacheFiles.get(name)
    if (c === undefined) {
      c = new CacheFile(cachePath(this.dir, ...name.split('/')))
      this.cacheFiles.set(name, c)
    }
    return c
  }

  /**
   * Write what this invocation learnt into the caches: once, after the command's work (invoke() calls it;
   * a long-running caller may call it between units of work). Never fails: a cache only costs speed.
   */
  flush(): void {
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

  private paths() {
    return { root: this.root, dir: this.dir }
  }

  /** Listings already made by this invocation, per project (dropped when this store writes a task). */
  private listings = new Map<string, Listing>()

  private forget(project: string): void {
    this.listings.delete(project)
    this.live?.forget(project)
  }

  /** Cached summaries of one project's tasks (or every project's). */
  async listTasks(project?: string): Promise<Listing> {
    const slugs = project === undefined ? this.projectSlugs() : [project]
    if (project !== undefined) this.requireProject(project)
    const out: Listing = { tasks: [], broken: [], duplicates: [] }
    const index = this.cache('index')
    // A listing of every project drops the index sections of projects that no longer exist (their tasks, and
    // the criteria texts lint keeps beside them).
    if (project === undefined) {
      index.keepSections('tasks/', slugs)
      index.keepSections('criteria/', slugs)
    }
    for (const slug of slugs) {
      let l = this.listings.get(slug) ?? this.live?.listing(slug)
      if (l === undefined) {
        const mark = this.live?.mark(slug)
        l = await listProject(this.paths(), slug, () => index.section(`tasks/${slug}`, 'used'))
        if (mark !== undefined) this.live?.keep(slug, l, mark)
      }
      this.listings.set(slug, l)
      out.tasks.push(...l.tasks)
      out.broken.push(...l.broken)
      out.duplicates.push(...l.duplicates)
    }
    return out
  }

  /**
   * Resolve a reference to one task file. File names answer sequence and slug
   * forms without parsing; ids and aliases need the cached summaries.
   * `prefer` resolves an unqualified reference inside that project first.
   */
  async resolve(ref: string, opts: { prefer?: string } = {}): Promise<TaskFileRef & { id?: string }> {
    const r = parseRef(ref)
    if (r.project !== null) {
      safeSegment(r.project, 'project slug')
      try {
        this.requireProject(r.project)
      } catch (e) {
        // `ledgr/2`: the closest projects, with the rest of the reference kept.
        const near = (e as NotFoundError).details?.closest
        if (Array.isArray(near)) {
          ;(e as NotFoundError).details.given = ref
          ;(e as NotFoundError).details.closest = near.map((c: { value: string }) => ({
            value: `${c.value}/${r.form}`,
          }))
        }
        throw e
      }
    }
    const scopes = r.project !== null ? [r.project] : this.projectSlugs()
    const summariesOf = async (projects: string[]) => {
      const out: (Candidate & { file: TaskSummary })[] = []
      for (const p of projects) {
        for (const t of (await this.listTasks(p)).tasks) {
          out.push({ id: t.id, project: t.project, seq: t.seq, slug: t.slug, aliases: t.aliases, file: t })
        }
      }
      return out
    }
    const tryScopes = async (projects: string[]): Promise<(TaskFileRef & { id?: string })[]> => {
      if (r.kind !== 'id') {
        const files = projects.flatMap((p) => listTaskFiles(this.paths(), p).files)
        const hits = matchRef(r, files)
        // One file name in two folders (an interrupted move, a bad merge): let the listing pick the copy.
        const names = new Set(hits.map((h) => `${h.project}/${h.name}`))
        if (hits.length > 0 && names.size === hits.length) {
          if (r.kind !== 'seq') return hits
          // A bare number may also be another task's alias (a renumbering merge): then it names both.
          const summaries = await summariesOf(projects)
          const live = new Set(hits.map((h) => h.path))
          const aliased = summaries.filter((s) => !live.has(s.file.path) && s.aliases?.includes(r.seq as number))
          if (aliased.length === 0) return hits
          const ids = new Map(summaries.map((s) => [s.file.path, s.id as string]))
          return [
            ...hits.map((h) => ({ ...h, id: ids.get(h.path) ?? '' })),
            ...aliased.map((s) => ({ ...fileRefOf(this.root, s.file), id: s.id as string })),
          ]
        }
      }
      // Ids and aliases: consult the summaries.
      return matchRef(r, await summariesOf(projects)).map((s) => ({
        ...fileRefOf(this.root, s.file),
        id: s.id as string,
      }))
    }
    if (r.project === null && opts.prefer !== undefined && scopes.includes(opts.prefer)) {
      const local = await tryScopes([opts.prefer])
      if (local.length === 1) return local[0] as TaskFileRef
    }
    const hits = await tryScopes(scopes)
    if (hits.length === 0) {
      if (r.kind === 'id') await this.refuseUnreadableId(r.id as string, scopes)
      // A removed task is not found, but the error says so and where its tombstone is.
      const { findTombstone, removedError } = await import('../domain/task/tombstones.js')
      const tomb = await findTombstone(this, ref)
      throw tomb === null ? await this.noTaskMatches(ref, r, scopes) : removedError(ref, tomb)
    }
    return pickOne(ref, hits)
  }

  /**
   * A task id that no listed task has may still be a task dacli refused to read (a wrong-typed field,
   * bytes that are not UTF-8): then the answer is "unreadable task file" (1), never "no such task" (4).
   */
  private async refuseUnreadableId(id: string, scopes: readonly string[]): Promise<void> {
    for (const p of scopes) {
      for (const b of (await this.listTasks(p)).broken) {
        // Only files that were read and refused (never a link, a pipe or a second copy: nothing to match).
        if (!REFUSED_CONTENT.has(b.code)) continue
        let head = ''
        try {
          head = fs.readFileSync(path.join(this.root, b.path), 'latin1').slice(0, 4096)
        } catch {
          continue // a link, a pipe, gone: nothing to match
        }
        if (new RegExp(`^id:[ \\t]*["']?${id}["']?[ \\t]*$`, 'm').test(head)) {
          throw new FailureError(`unreadable task file ${b.path}: ${b.reason}`, {
            details: { path: b.path, code: b.code },
            next: ['fix the file by hand (dacli never overwrites an unreadable file)', 'dacli doctor'],
          })
        }
      }
    }
  }

  /** Not found, with the closest tasks in scope (by number, slug and title words) for "did you mean". */
  private async noTaskMatches(ref: string, r: ParsedRef, scopes: readonly string[]): Promise<NotFoundError> {
    const tasks: TaskSummary[] = []
    for (const p of scopes) tasks.push(...(await this.listTasks(p)).tasks)
    const short = (t: TaskSummary) => `${t.project}/${t.seq}`
    let near: TaskSummary[] = []
    if (r.kind === 'seq') {
      near = tasks
        .filter((t) => Math.abs(t.seq - (r.seq as number)) <= 2)
        .sort((a, b) => Math.abs(a.seq - (r.seq as number)) - Math.abs(b.seq - (r.seq as number)) || a.seq - b.seq)
        .slice(0, MAX_SUGGESTIONS)
    } else if (r.kind !== 'id') {
      const q = r.slug ?? r.form
      near = closest(
        q,
        tasks.map((t) => ({ value: short(t), names: [t.slug], title: t.title, t })),
      ).map((c) => c.t)
    }
    return new NotFoundError(`no task matches "${ref}"`, {
      details: {
        ref,
        given: ref,
        closest: near.map((t) => ({ value: short(t), ref: qualifiedRef(t), title: t.title })),
      },
      next: ['dacli task list', 'dacli task list --project <project>'],
    })
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
    const slugs = project === undefined ? this.projectSlugs() : [project]
    if (project !== undefined) this.requireProject(project)
    const records: TaskRecord[] = []
    const broken: Broken[] = []
    for (const slug of slugs) {
      for (let attempt = 1; ; attempt++) {
        const listed = listTaskFiles(this.paths(), slug, { stat: true })
        const got: TaskRecord[] = []
        const bad: Broken[] = [...listed.broken]
        let vanished = listed.vanished
        for (const f of listed.files) {
          try {
            got.push(await this.readTaskFile(f, f.stamp))
          } catch (e) {
            if (!fs.existsSync(f.abs))
              vanished = true // moved while listing: list again
            else bad.push(brokenOf(f.path, e instanceof FailureError && e.cause !== undefined ? e.cause : e))
          }
        }
        if (vanished && attempt < 8) continue
        records.push(...deduplicated(got).tasks)
        broken.push(...bad)
        break
      }
    }
    return { records, broken }
  }

  /**
   * Every task's summary with its acceptance criteria's texts (lint), through the index: each file parsed at
   * most once, no full records made. Copies of one task id are deduplicated as listRecords does.
   */
  async listWithCriteria(project?: string): Promise<{ tasks: CheckedTask[]; broken: Broken[] }> {
    const slugs = project === undefined ? this.projectSlugs() : [project]
    if (project !== undefined) this.requireProject(project)
    const index = this.cache('index')
    if (project === undefined) {
      index.keepSections('tasks/', slugs)
      index.keepSections('criteria/', slugs)
    }
    const tasks: CheckedTask[] = []
    const broken: Broken[] = []
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
   * A full task record, from the record cache when the file is unchanged (no YAML parsing). `known` is the
   * file's stamp when the caller has just taken it with lstat (a listing's: the file is no link).
   */
  async readTaskFile(f: TaskFileRef, known?: Stamp): Promise<TaskRecord> {
    const stamp = known ?? stampOf(f.abs)
    const cache: Section<TaskRecord> = this.cache(`records/${f.project}`).section('tasks', 'all')
    const key = `${f.status}/${f.name}`
    const hit = stamp === null ? undefined : cache.get(key, stamp)
    if (hit !== undefined) return hit
    let text: string
    try {
      this.assertNoLinksOnce(f.abs, known !== undefined)
      text = readText(f.abs, known?.size)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new FailureError(`cannot read ${f.path}`, { cause: e })
      throw unreadableTask(f.path, e)
    }
    const record = await this.parseTaskText(text, f)
    if (stamp !== null) cache.set(key, stamp, record)
    return record
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
   * Rewrite one task under its lock: re-read it, let `fn` edit it, bump `version`,
   * write atomically (moving it between status folders if its status changed).
   * `fn` returns false to write nothing (an `unchanged` outcome).
   */
  async editTask<R>(
    target: TaskFileRef & { id?: string },
    actor: string,
    fn: (edit: TaskEdit) => Promise<R | false> | R | false,
  ): Promise<{ result: R | false; task: TaskRecord; changed: boolean }> {
    const id = target.id ?? (await this.readTaskFile(target)).id
    return this.withLock(`task-${id}`, async () => {
      let file: TaskFileRef | null = fs.existsSync(target.abs) ? target : null
      if (file !== null) {
        const probe = await this.readTaskFile(file)
        if (probe.id !== id) file = null
      }
      file ??= await this.findById(id, target.project)
      if (file === null) throw new NotFoundError(`task ${id} disappeared while it was being changed`)
      const { parseTaskFull, renderEdited, recordOfText } = await parsing()
      const { record, parsed } = this.parseUnderLock(parseTaskFull, file)
      const doc = parsed.doc.clone()
      const now = this.now()
      const logLines: string[] = []
      const edit: TaskEdit = {
        before: record,
        doc,
        body: parsed.split.body,
        status: record.status,
        actor,
        now,
        log(verb, details = '') {
          logLines.push(
            `- ${stamp(now)} ${actor} ${verb}${details === '' ? '' : ` ${details.replace(/\s*\n\s*/g, ' ')}`}`,
          )
        },
        setFlow(key, value) {
          doc.set(key, flowNode(doc, value))
        },
      }
      const result = await fn(edit)
      if (result === false) return { result, task: record, changed: false }
      if (logLines.length > 0) edit.body = appendToSection(edit.body, 'Log', logLines)
      doc.set('version', record.version + 1)
      const out = renderEdited(parsed, doc, edit.body)
      const dest =
        edit.status === file.status
          ? file
          : {
              ...file,
              status: edit.status,
              abs: path.join(tasksDir(this.paths(), file.project), edit.status, file.name),
              path: this.rel(path.join(tasksDir(this.paths(), file.project), edit.status, file.name)),
            }
      atomicWrite(dest.abs, out)
      // The old copy goes last: a crash before this leaves two copies, and the newer version wins.
      // Copies left by an earlier interrupted move go too.
      this.removeCopies(file.project, file.name, id, dest.status)
      this.sweepProject(file.project)
      this.forget(file.project)
      const after = recordOfText(out, dest)
      this.journal(taskChangeOf(record, after, actor, logLines))
      return { result, task: after, changed: true }
    })
  }

  /** The task file as read under its lock; a file dacli will not rewrite (see unreadableTask) refuses. */
  private parseUnderLock<T>(parse: (text: string, f: TaskFileRef) => T, file: TaskFileRef): T {
    try {
      assertNoLinks(file.abs, this.dir)
      return parse(readText(file.abs), file)
    } catch (e) {
      throw unreadableTask(file.path, e)
    }
  }

  /** Move a task to `tasks/removed/` as a tombstone (its number is never reused). */
  async tombstoneTask(target: TaskFileRef & { id?: string }, actor: string): Promise<TaskRecord> {
    const id = target.id ?? (await this.readTaskFile(target)).id
    return this.withLock(`task-${id}`, async () => {
      const file = fs.existsSync(target.abs) ? target : await this.findById(id, target.project)
      if (file === null) throw new NotFoundError(`task ${id} disappeared while it was being removed`)
      const { parseTaskFull, renderEdited, recordOfText } = await parsing()
      const { record, parsed } = this.parseUnderLock(parseTaskFull, file)
      const now = stamp(this.now())
      const doc = parsed.doc.clone()
      doc.set('removed', flowNode(doc, { by: actor, at: now }))
      doc.set('version', record.version + 1)
      const text = renderEdited(parsed, doc, appendToSection(parsed.split.body, 'Log', [`- ${now} ${actor} removed`]))
      const dest = path.join(tasksDir(this.paths(), file.project), 'removed', file.name)
      atomicWrite(dest, text)
      this.removeCopies(file.project, file.name, id, 'removed')
      this.sweepProject(file.project)
      this.forget(file.project)
      this.journal({
        kind: 'task.moved',
        ref: qualifiedRef(record),
        id,
        project: record.project,
        actor,
        summary: `removed (was ${record.status})`,
        from: record.status,
        to: 'removed',
      })
      return recordOfText(text, { ...file, path: this.rel(dest) })
    })
  }

  /** Remove dead writers' temp files from every task folder of a project (a write elsewhere in it would not). */
  private sweepProject(project: string): void {
    for (const status of [...STATUSES, 'removed']) sweepTemps(path.join(tasksDir(this.paths(), project), status))
  }

  /** Remove copies of task `id` named `name` from every status folder but `keep` (only files that carry that id). */
  private removeCopies(project: string, name: string, id: string, keep: string): void {
    for (const status of STATUSES) {
      if (status === keep) continue
      const other = path.join(tasksDir(this.paths(), project), status, name)
      let text: string
      try {
        if (linkOnPath(other, this.dir) !== null) continue // never read or remove through a link
        text = fs.readFileSync(other, 'utf8')
      } catch {
        continue
      }
      if (taskIdInText(text) === id) removeFile(other)
    }
  }

  /** Allocate the next sequence number and create a task file, under the project's sequence lock. */
  async createTask(
    project: string,
    build: (existing: TaskSummary[]) => { slug: string; text: string; data: Record<string, unknown>; body: string },
  ): Promise<TaskRecord> {
    this.requireProject(project)
    return this.withLock(`seq-${project}`, async () => {
      this.forget(project) // list afresh under the lock: another process may have added a task
      const listing = await this.listTasks(project)
      const used = usedSeqs(this.paths(), project)
      for (const t of listing.tasks) for (const a of t.aliases) used.add(a)
      const seq = used.size === 0 ? 1 : Math.max(...used) + 1
      const { slug, text, data, body } = build(listing.tasks)
      const name = taskFileName(seq, slug)
      const abs = path.join(tasksDir(this.paths(), project), 'open', name)
      try {
        atomicWrite(abs, text, { exclusive: true })
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new ConflictError(`${this.rel(abs)} already exists`, { cause: e })
        }
        throw e
      }
      this.sweepProject(project)
      this.forget(project)
      // The record comes from the data just written, not from parsing it back (no YAML library needed).
      const created = recordOf(
        { data, split: { body } },
        {
          project,
          status: 'open',
          name,
          path: this.rel(abs),
        },
      )
      this.journal({
        kind: 'task.created',
        ref: qualifiedRef(created),
        id: created.id,
        project,
        actor: created.created_by,
        summary: created.title,
      })
      return created
    })
  }
}

/** A YAML node for a map (flow style) or a list of maps (block list of flow maps). */
function flowNode(doc: import('yaml').Document, value: Record<string, unknown> | Record<string, unknown>[]) {
  const node = doc.createNode(value) as { flow?: boolean; items?: { flow?: boolean }[] }
  if (Array.isArray(value)) for (const item of node.items ?? []) item.flow = true
  else node.flow = true
  return node
}

/** The journal line for one task rewrite: a claim taken or released, a move between folders, or a change. */
function taskChangeOf(
  before: TaskRecord,
  after: TaskRecord,
  actor: string,
  logLines: readonly string[],
): Omit<ChangeEntry, 'at'> {
  // Log lines read `- <stamp> <actor> <verb> <details>`: the summary is what they say after the actor.
  const said = logLines.map((l) => l.split(' ').slice(3).join(' ')).join('; ') || 'edited'
  const base = { ref: qualifiedRef(after), id: after.id, project: after.project, actor }
  const moved = before.status !== after.status ? { from: before.status, to: after.status } : {}
  if (after.owner !== null && after.owner !== before.owner && after.status !== 'done')
    return { kind: 'claim.taken', ...base, summary: `${after.owner}: ${said}`, ...moved }
  if (before.claim !== null && after.claim === null && after.owner === null && after.status !== 'done')
    return { kind: 'claim.released', ...base, summary: said, ...moved }
  if (before.status !== after.status)
    return { kind: 'task.moved', ...base, summary: `${before.status} → ${after.status}: ${said}`, ...moved }
  return { kind: 'task.changed', ...base, summary: said }
}

/** Skip codes of task files that were read and refused for their content. */
const REFUSED_CONTENT = new Set(['invalid-field', 'invalid-id', 'invalid-utf8', 'unparseable-object'])

/** Exit 1 for a task file dacli will not use (unparseable, an invalid id or field, not UTF-8, a link). */
function unreadableTask(rel: string, e: unknown): FailureError {
  if (e instanceof LinkError) return e
  return new FailureError(`unreadable task file ${rel}: ${(e as Error).message}`, {
    cause: e,
    details: { path: rel, ...fieldOf(e) },
    next: ['fix the file by hand (dacli never overwrites an unreadable file)', 'dacli doctor'],
  })
}

export function fileRefOf(root: string, t: TaskSummary): TaskFileRef {
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
