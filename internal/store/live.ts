// A workspace kept in memory by a long-lived process (`mcp serve`, `board`): one per `.dacli/` folder per process,
// shared by every server the process runs over it (the board and an MCP server over HTTP in one process share one).
//
// What it keeps: each project's task listing, as the last call made it, with its summaries by file. A kept listing
// is served only while nothing may have changed it, which two sources tell:
//   - the change journal (journal.ts): every change any dacli process makes appends a line naming its project and
//     object, and the journal is read up to its end at the start of every call, so a call made right after another
//     process changed a task sees the change (no race with a file watcher's delivery);
//   - a watch of the task folders (a ChangeSource): a hand edit, a `git checkout`, a file another tool wrote. Each
//     call first lets the events the kernel has already queued be delivered (one turn of the event loop), so an edit
//     finished before the call was made is seen by it.
// Without a working watch nothing is kept across calls (each call lists afresh, through the index, as a command
// does). What changed is taken in file by file: a task file the watch names is read again (one `lstat`, one parse);
// a journal line about a task marks the files holding its id, and the project's status folders are listed again by
// name (no `lstat` per file) to find files made, moved or removed. Anything else that changed under a project (its
// folders, a file that is no task file, a link) drops the project's listing: the next call lists it again, each file
// checked against the index by its stamp (size, modification time, change time, inode). Nothing here is written to
// disk.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { type Broken, STATUSES, type Status, TASK_FILE, type TaskSummary } from '../format/model.js'
import { readTaskSummary, summaryNow } from '../format/taskfile.js'
import { readText } from './fsio.js'
import { changesSince, type JournalMark, journalMark } from './journal.js'
import { idKeysOf, type Kept, patched, statusNames } from './livekept.js'
import { candidate, deduplicated, type Listing, type Paths, type TaskFileRef, tasksDir } from './taskindex.js'

/**
 * What tells the memory that files changed: `onChange` gets the absolute path of what changed, or null when anything
 * may have (a watch that failed, a rescan that found folders replaced). `healthy` is false while the source cannot
 * vouch for every change (the memory then keeps nothing across calls).
 */
export interface ChangeSource {
  subscribe(onChange: (abs: string | null) => void): () => void
  readonly healthy: boolean
  /** Is every folder of the project's tasks watched now (a folder made since the last scan is not yet)? */
  covers(project: string): boolean
  /** Is every folder of the events watched now, each change in them reported? Absent: never. */
  coversEvents?(): boolean
  /** Is every folder of the project's notes watched now? Absent: never. */
  coversNotes?(project: string): boolean
  /** Is this folder watched now (each entry made, changed or removed in it reported)? Absent: never. */
  watches?(folder: string): boolean
}

/** Objects as a listing found them (listEvents, listNotes): served again while nothing may have changed them. */
export interface KeptList<E, B> {
  readonly items: readonly E[]
  readonly broken: readonly B[]
}

/** The names vouch() keeps for a folder where every change begins another epoch. */
const NO_NAMES: readonly string[] = Object.freeze([])

/** The journal kinds whose object is a task file. */
const TASK_KINDS = new Set(['task.created', 'task.changed', 'task.moved', 'claim.taken', 'claim.released'])

export class LiveWorkspace {
  private readonly kept = new Map<string, Kept>()
  /** Bumped by every change a project may have seen (per project, and for all at once). */
  private readonly generations = new Map<string, number>()
  private generation = 0
  /** Bumped when a project's listing is dropped (per project, and for all at once). */
  private readonly drops = new Map<string, number>()
  private dropped = 0
  /** Where the journal was read up to: its identity and the offset after its last complete line. */
  private journal: JournalMark | null = null
  private users = 0
  /** Bumped by every change the events may have seen; what was kept of them, and at which count. */
  private eventsGeneration = 0
  private events: { at: number; kept: KeptList<unknown, unknown> } | null = null
  private readonly eventsDir: string
  /** What was kept of each project's notes, at which count of their changes (see notesMark). */
  private readonly notes = new Map<string, { at: number; kept: KeptList<unknown, unknown> }>()
  private readonly notesGenerations = new Map<string, number>()
  /** Bumped by every change the projects' listing may have seen; what was kept of it, and at which count. */
  private projectsGeneration = 0
  private projects: { at: number; kept: unknown } | null = null
  /** Each task folder's entries the watch named since this memory began following it (see vouch). */
  private readonly reported = new Map<string, string[]>()
  /** Bumped whenever what `reported` holds cannot be trusted to be complete (a drop, a list cut short). */
  private epoch = 0
  private unsubscribe: (() => void) | null = null
  private readonly projectsDir: string

  constructor(
    /** The workspace's `.dacli/` folder. */
    readonly dir: string,
    private readonly source: ChangeSource | null,
  ) {
    this.projectsDir = path.join(dir, 'projects') + path.sep
    this.eventsDir = path.join(dir, 'events')
    this.journal = journalMark(dir)
    this.unsubscribe = source?.subscribe((abs) => this.changed(abs)) ?? null
  }

  /**
   * Take in what changed since the last call: first the watch's events the kernel already queued (one turn of the
   * event loop delivers them: an edit finished before this call was made is among them), then what other processes
   * wrote to the journal. Call at the start of every call.
   */
  async settle(): Promise<void> {
    if (this.source !== null) await new Promise<void>((r) => setImmediate(r))
    this.sync()
  }

  /** Take in what other processes changed since the last call (the journal). */
  sync(): void {
    // No journal then and none now (a fresh clone's: the journal is never committed) reads nothing: no dacli process
    // has written a change since, and the watch tells of every other. One made or sealed since is read on.
    const got = changesSince(this.dir, this.journal)
    if (got === null) {
      // Deleted, replaced or unreadable: anything may have changed.
      this.journal = journalMark(this.dir)
      this.forget()
      return
    }
    this.journal = got.mark
    for (const c of got.changes) {
      // Whatever is not a task may be an event (asked, added, answered, applied, dismissed).
      if (!TASK_KINDS.has(c.kind)) this.eventsChanged()
      if (c.project === null) this.forget()
      else if (TASK_KINDS.has(c.kind) && typeof c.id === 'string') this.taskChanged(c.project, c.id, inPlace(c))
      else this.forget(c.project)
    }
  }

  /** Where the events' changes stand: take it before listing them, and hand it to `keepEvents`. */
  eventsMark(): number {
    return this.eventsGeneration
  }

  /** The events as the last listing found them, when nothing can have changed them since. */
  keptEvents<E, B>(): KeptList<E, B> | undefined {
    const e = this.events
    return e !== null && e.at === this.eventsGeneration ? (e.kept as KeptList<E, B>) : undefined
  }

  /**
   * Keep a listing of the events made by this call, when no change reached them since `mark` was taken and the
   * watch vouches for every folder of them (a listing that reports files it could not read is not kept).
   */
  keepEvents<E, B>(kept: KeptList<E, B>, mark: number): void {
    if (mark !== this.eventsGeneration || kept.broken.length > 0) return
    if (this.source?.healthy === true && this.source.coversEvents?.() === true) this.events = { at: mark, kept }
  }

  /** Where the changes of the projects' listing stand: take it before listing them, and hand it to `keepProjects`. */
  projectsMark(): number {
    return this.projectsGeneration
  }

  /** The projects as the last listing found them, when nothing can have changed them since. */
  keptProjects<P>(): P | undefined {
    const k = this.projects
    return k !== null && k.at === this.projectsGeneration ? (k.kept as P) : undefined
  }

  /**
   * Keep a listing of the projects (`slugs`, each read whole) made since `mark`, when the watch vouches for `projects/`
   * and every project's folder: any change in them (a project made, moved or removed, its file edited) drops it.
   */
  keepProjects<P>(kept: P, mark: number, slugs: readonly string[]): void {
    const s = this.source
    if (mark !== this.projectsGeneration || s?.healthy !== true) return
    if (s.watches?.(this.projectsDir.slice(0, -1)) !== true || !slugs.every((p) => s.covers(p))) return
    // A folder that is no project yet (its project file not written) must be watched too: the file written next
    // would otherwise go unseen until the watch finds the folder.
    let folders: string[]
    try {
      folders = fs
        .readdirSync(this.projectsDir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
    } catch {
      return
    }
    if (folders.every((f) => s.watches?.(`${this.projectsDir}${f}`) === true)) this.projects = { at: mark, kept }
  }

  /** Where the changes of the project's notes stand: take it before listing them, and hand it to `keepNotes`. */
  notesMark(project: string): number {
    return this.dropsOf(project) + (this.notesGenerations.get(project) ?? 0)
  }

  /** The project's notes as the last listing found them, when nothing can have changed them since. */
  keptNotes<E, B>(project: string): KeptList<E, B> | undefined {
    const n = this.notes.get(project)
    return n !== undefined && n.at === this.notesMark(project) ? (n.kept as KeptList<E, B>) : undefined
  }

  /** Keep a listing of the project's notes made since `mark`, as keepEvents keeps the events. */
  keepNotes<E, B>(project: string, kept: KeptList<E, B>, mark: number): void {
    if (mark !== this.notesMark(project) || kept.broken.length > 0) return
    if (this.source?.healthy === true && this.source.coversNotes?.(project) === true)
      this.notes.set(project, { at: mark, kept })
  }

  /**
   * For a task folder (`projects/<p>/tasks/<status>`) the watch follows: the names of the entries it reported made,
   * changed or removed since `epoch` began (append-only while the epoch holds), so a caller that read the folder at
   * some point knows which entries to look at again instead of listing the folder (conflicts.ts). Null when the
   * folder is not followed now.
   */
  vouch(folder: string): { epoch: number; names: readonly string[] } | null {
    if (this.source?.healthy !== true || this.source.watches?.(folder) !== true) return null
    const rel =
      folder === this.projectsDir.slice(0, -1)
        ? []
        : folder.startsWith(this.projectsDir)
          ? folder.slice(this.projectsDir.length).split(path.sep)
          : null
    if (rel === null) return null
    // `projects/`, a project's folder and its `tasks/`: whatever the watch reports in them drops the project or
    // every project (changed), which begins another epoch, so no names are kept for them.
    if (rel.length < 2 || (rel.length === 2 && rel[1] === 'tasks')) return { epoch: this.epoch, names: NO_NAMES }
    // A status folder, and a project's notes folders: the names reported in them are kept.
    if (!(rel.length === 3 && rel[1] === 'tasks') && !(rel[1] === 'notes' && rel.length <= 3)) return null
    let names = this.reported.get(folder)
    if (names === undefined) {
      names = []
      this.reported.set(folder, names)
    }
    return { epoch: this.epoch, names }
  }

  private noteEntry(folder: string, name: string): void {
    const names = this.reported.get(folder)
    if (names === undefined) return
    names.push(name)
    if (names.length > 10_000) {
      this.reported.delete(folder)
      this.epoch++
    }
  }

  private notesChanged(project: string): void {
    this.notesGenerations.set(project, (this.notesGenerations.get(project) ?? 0) + 1)
    this.notes.delete(project)
  }

  private eventsChanged(): void {
    this.eventsGeneration++
    this.events = null
  }

  /** The listing kept for `project`, when nothing can have changed it since. */
  listing(project: string): Listing | undefined {
    const k = this.kept.get(project)
    return k !== undefined && k.dirty.size === 0 && k.ids.size === 0 && !k.rescan ? k.listing : undefined
  }

  /**
   * The listing kept for `project` brought up to date file by file (what changed since is read again), or
   * undefined when it cannot be (nothing kept, or a change that needs the project listed whole). The work is what
   * changed, not the project: the files read again are found by name or by id (idKeys), and when they still hold
   * the same tasks the kept listing is patched in their places.
   */
  async refreshed(project: string, p: Paths): Promise<Listing | undefined> {
    const k = this.kept.get(project)
    if (k === undefined) return undefined
    if (k.dirty.size === 0 && k.ids.size === 0 && !k.rescan) return k.listing
    const drops = this.dropsOf(project)
    const dirty = new Set(k.dirty)
    const ids = new Set(k.ids)
    let rescan = k.rescan
    k.dirty.clear()
    k.ids.clear()
    k.rescan = false
    // What was marked is taken now: a failure on the way must not leave the listing kept without it (the project is
    // then dropped, and listed whole from its files by this call and the next).
    try {
      /** What was read again, by file: its summary now, or undefined when it is gone. */
      const changes = new Map<string, TaskSummary | undefined>()
      const now = (key: string) => (changes.has(key) ? changes.get(key) : k.byKey.get(key))
      const base = tasksDir(p, project)
      /** The files that held a task a journal line named (in-place lines: each must still hold it, see below). */
      const held = new Map<string, string>()
      if (ids.size > 0) {
        const byId = idKeysOf(k)
        let found = 0
        for (const id of ids) {
          const keys = byId.get(id)
          if (keys === undefined) continue
          found++
          for (const key of keys) {
            dirty.add(key)
            held.set(key, id)
          }
        }
        // A task the kept listing does not hold (made, or moved in, since): only the folders can say where it is.
        if (found < ids.size) rescan = true
      }
      const relBase = `${path.relative(p.root, base).split(path.sep).join('/')}/`
      /** Read one file again; false when the project must be listed whole. */
      const reread = async (key: string): Promise<boolean> => {
        const [status, name] = key.split('/') as [Status, string]
        const m = TASK_FILE.exec(name)
        const abs = `${base}${path.sep}${status}${path.sep}${name}`
        const st = fs.lstatSync(abs, { throwIfNoEntry: false })
        if (st === undefined) {
          changes.set(key, undefined)
          return true
        }
        // What a listing would report rather than list (a link, no regular file, a name that is no task's): listed whole.
        if (m === null || !st.isFile()) return false
        const f: TaskFileRef = {
          project,
          status,
          name,
          seq: Number(m[1]),
          slug: m[2] as string,
          abs,
          path: `${relBase}${status}/${name}`,
        }
        try {
          const text = readText(abs, st.size)
          changes.set(key, summaryNow(text, f) ?? (await readTaskSummary(text, f)))
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') changes.set(key, undefined)
          else return false // unreadable or unparseable: the listing reports it
        }
        return true
      }
      for (const key of dirty) if (!(await reread(key))) return this.giveUp(project)
      // A line said a task changed in its file, and that file is gone or holds another task now (a rename, a move the
      // line did not say): the task is somewhere else, which only the folders' names can tell.
      for (const [key, id] of held) if (now(key)?.id !== id) rescan = true
      if (rescan) {
        const names = statusNames(base)
        if (names === null) return this.giveUp(project)
        const again = new Set<string>()
        for (const key of k.byKey.keys()) if (!names.has(key) && now(key) !== undefined) again.add(key)
        for (const key of changes.keys()) if (!names.has(key) && now(key) !== undefined) again.add(key)
        for (const key of names) if (now(key) === undefined) again.add(key)
        for (const key of again) if (!(await reread(key))) return this.giveUp(project)
      }
      // Kept unless the project was dropped meanwhile (what changed during the reads stays marked for the next call).
      const keep = this.kept.get(project) === k && this.dropsOf(project) === drops
      const listing = patched(k, changes, keep)
      if (listing === undefined) {
        const byKey = new Map(k.byKey)
        for (const [key, t] of changes) t === undefined ? byKey.delete(key) : byKey.set(key, t)
        const broken: Broken[] = []
        const { tasks, duplicates } = deduplicated([...byKey.values()], broken)
        const whole: Listing = { tasks, duplicates, broken }
        if (keep) {
          k.listing = whole
          k.byKey = byKey
          k.idKeys = null
        }
        return whole
      }
      // The same files (only their contents read again): the same file references.
      const files = this.files.get(k.listing)
      if (files !== undefined && listing !== k.listing) this.files.set(listing, files)
      if (keep) k.listing = listing
      return listing
    } catch {
      return this.giveUp(project)
    }
  }

  /** The task files of a listing this memory keeps (one of `refreshed`'s answers). */
  private readonly files = new WeakMap<Listing, readonly TaskFileRef[]>()
  /** A task file's reference by `<project>/<status>/<name>` (a pure function of those: kept while the memory is). */
  private readonly refs = new Map<string, TaskFileRef>()

  /**
   * The task files of `project` as its folders hold them, when `listing` is the listing kept for it now (brought up to
   * date by `refreshed`): a kept listing holds every file of the folders (one that reports a file it could not read is
   * never kept), so its files are what a walk of the folders finds. Undefined otherwise. Callers must not change them.
   */
  filesOf(project: string, listing: Listing, p: Paths): readonly TaskFileRef[] | undefined {
    const k = this.kept.get(project)
    if (k === undefined || k.listing !== listing || k.dirty.size > 0 || k.ids.size > 0 || k.rescan) return undefined
    let out = this.files.get(listing)
    if (out !== undefined) return out
    const base = tasksDir(p, project)
    const relBase = `${path.relative(p.root, base).split(path.sep).join('/')}/`
    const refs: TaskFileRef[] = []
    for (const key of k.byKey.keys()) {
      let f = this.refs.get(`${project}/${key}`)
      if (f === undefined) {
        const [status, name] = key.split('/') as [Status, string]
        const m = TASK_FILE.exec(name)
        if (m === null) return undefined
        f = {
          project,
          status,
          name,
          seq: Number(m[1]),
          slug: m[2] as string,
          abs: `${base}${path.sep}${status}${path.sep}${name}`,
          path: `${relBase}${status}/${name}`,
        }
        this.refs.set(`${project}/${key}`, f)
      }
      refs.push(f)
    }
    out = refs
    this.files.set(listing, out)
    return out
  }

  private giveUp(project: string): undefined {
    this.forget(project)
    return undefined
  }

  /** Where the project's changes stand: take it before listing, and hand it to `keep`. */
  mark(project: string): number {
    return this.generation + (this.generations.get(project) ?? 0)
  }

  private dropsOf(project: string): number {
    return this.dropped + (this.drops.get(project) ?? 0)
  }

  /**
   * Keep a listing made by this call, when no change reached the project since `mark` was taken and the change
   * source vouches for every folder of it. A listing that reports files it could not list (links, unreadable files)
   * is not kept: only a listing of every file can be brought up to date file by file.
   */
  keep(project: string, listing: Listing, mark: number): void {
    if (mark !== this.mark(project)) return
    if (listing.broken.length > 0 || listing.duplicates.length > 0) return
    if (this.source?.healthy === true && this.source.covers(project)) {
      const byKey = new Map<string, TaskSummary>()
      for (const t of listing.tasks) byKey.set(`${t.status}/${path.basename(t.path)}`, t)
      this.kept.set(project, { listing, byKey, dirty: new Set(), ids: new Set(), rescan: false, idKeys: null })
    }
  }

  /** Drop what is kept for `project` (or for every project). */
  forget(project?: string): void {
    this.projectsGeneration++
    this.projects = null
    if (project === undefined) {
      this.eventsChanged()
      this.generation++
      this.dropped++
      this.kept.clear()
      this.refs.clear()
      this.notes.clear()
      this.reported.clear()
      this.epoch++
    } else {
      this.generations.set(project, (this.generations.get(project) ?? 0) + 1)
      this.drops.set(project, (this.drops.get(project) ?? 0) + 1)
      this.kept.delete(project)
      this.notes.delete(project)
      for (const f of this.reported.keys())
        if (f.startsWith(`${this.projectsDir}${project}${path.sep}`)) this.reported.delete(f)
      this.epoch++
    }
  }

  /**
   * A task of `project` changed (a journal line): its files are read again; unless the line says the task stayed in
   * its file (`inPlace`), its folders are listed again by name too (see refreshed: a file that turns out gone or
   * another task's lists them anyway).
   */
  private taskChanged(project: string, id: string, inPlace: boolean): void {
    this.generations.set(project, (this.generations.get(project) ?? 0) + 1)
    const k = this.kept.get(project)
    if (k === undefined) return
    k.ids.add(id)
    if (!inPlace) k.rescan = true
  }

  /** A file or folder changed: the task file is read again; anything else under a project drops the project. */
  private changed(abs: string | null): void {
    if (abs === null) {
      this.forget()
      return
    }
    if (abs === this.eventsDir || abs.startsWith(this.eventsDir + path.sep)) {
      this.eventsChanged()
      return
    }
    // `projects/` itself (a change in it the watch could not name): anything under it may have changed.
    if (abs === this.projectsDir.slice(0, -1)) {
      this.forget()
      return
    }
    if (!abs.startsWith(this.projectsDir)) return
    const parts = abs.slice(this.projectsDir.length).split(path.sep)
    const project = parts[0]
    if (project === undefined || project === '') {
      this.forget()
      return
    }
    const [, tasks, status, name] = parts
    // A project's notes (their folders watched with the events): what changed there changes no task listing. The
    // notes folder itself (made, removed, or a change in it the watch could not name) is a change to the project's
    // folder, as anything else is.
    if (tasks === 'notes' && parts.length > 2) {
      this.noteEntry(path.dirname(abs), parts[parts.length - 1] as string)
      this.notesChanged(project)
      return
    }
    if (parts.length === 4 && tasks === 'tasks' && name !== undefined) {
      this.noteEntry(path.dirname(abs), name)
      // The tombstones' folder and what a listing never looks at (temp files, conflict copies) change no listing.
      if (!(STATUSES as readonly string[]).includes(status as string) || !candidate(name)) return
      this.generations.set(project, (this.generations.get(project) ?? 0) + 1)
      this.kept.get(project)?.dirty.add(`${status}/${name}`)
      return
    }
    this.forget(project)
  }

  retain(): this {
    this.users++
    return this
  }

  /** The last user's release stops listening and forgets the workspace. */
  release(): void {
    if (--this.users > 0) return
    this.unsubscribe?.()
    this.unsubscribe = null
    this.kept.clear()
    this.events = null
    this.projects = null
    this.notes.clear()
    this.reported.clear()
    live.delete(this.dir)
  }
}

/**
 * A journal line saying a task changed in the file it was in (no move between folders, no new file): its files are
 * read again, the folders not listed. Any other task line lists them by name.
 */
const inPlace = (c: { kind: string; from?: unknown; to?: unknown }) =>
  (c.kind === 'task.changed' || c.kind === 'claim.taken' || c.kind === 'claim.released') &&
  c.from === undefined &&
  c.to === undefined

const live = new Map<string, LiveWorkspace>()

/**
 * The process's memory of the workspace whose `.dacli/` folder is `dir`, made on first use with the change source
 * `source()` gives; each user retains it and releases it when done.
 */
export function liveWorkspace(dir: string, source: () => ChangeSource | null): LiveWorkspace {
  let w = live.get(dir)
  if (w === undefined) {
    w = new LiveWorkspace(dir, source())
    live.set(dir, w)
  }
  return w.retain()
}
