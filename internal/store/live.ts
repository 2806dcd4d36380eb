// A workspace kept in memory by a long-lived process (`mcp serve`, `board`): one per `.dacli/` folder per process,
// shared by every server the process runs over it (the board and an MCP server over HTTP in one process share one).
//
// What it keeps: each project's task listing, as the last call made it. A kept listing is served only while nothing
// may have changed it, which two sources tell:
//   - the change journal (journal.ts): every change any dacli process makes appends a line naming its project, and
//     the journal is read up to its end at the start of every call, so a call made right after another process
//     changed a task sees the change (no race with a file watcher's delivery);
//   - a watch of the task folders (a ChangeSource): a hand edit, a `git checkout`, a file another tool wrote.
// Without a working watch nothing is kept across calls (each call lists afresh, through the index, as a command
// does). A project whose folders changed, or that the journal names, is listed again by the next call: its files
// are walked and each is checked against the index by its stamp (size, modification time, change time, inode), so one
// changed file costs one parse. Nothing here is written to disk.

import { lstatSync } from 'node:fs'
import * as path from 'node:path'
import { journalFile, readChangesAt } from './journal.js'
import type { Listing } from './taskindex.js'

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
}

export class LiveWorkspace {
  private readonly listings = new Map<string, Listing>()
  /** Bumped by every change a project may have seen (per project, and for all at once). */
  private readonly generations = new Map<string, number>()
  private generation = 0
  /** Where the journal was read up to: its identity and the offset after its last complete line. */
  private journal: { ino: number; offset: number } | null = null
  private users = 0
  private unsubscribe: (() => void) | null = null
  private readonly projectsDir: string

  constructor(
    /** The workspace's `.dacli/` folder. */
    readonly dir: string,
    private readonly source: ChangeSource | null,
  ) {
    this.projectsDir = path.join(dir, 'projects') + path.sep
    this.journal = journalMark(dir)
    this.unsubscribe = source?.subscribe((abs) => this.changed(abs)) ?? null
  }

  /** Take in what other processes changed since the last call (the journal): call at the start of every call. */
  sync(): void {
    const mark = journalMark(this.dir)
    const last = this.journal
    this.journal = mark
    if (mark === null || last === null || mark.ino !== last.ino || mark.offset < last.offset) {
      this.forget()
      return
    }
    if (mark.offset === last.offset) return
    const { changes, next } = readChangesAt(journalFile(this.dir), last.offset)
    // From the end of the last complete line: a line still being written is read whole by the next call.
    this.journal = { ino: mark.ino, offset: next }
    for (const c of changes) {
      if (c.project === null) this.forget()
      else this.forget(c.project)
    }
    // Lines read that named nothing (a line that does not parse): anything may have changed.
    if (changes.length === 0 && next > last.offset) this.forget()
  }

  /** The listing kept for `project`, when nothing can have changed it since. */
  listing(project: string): Listing | undefined {
    return this.listings.get(project)
  }

  /** Where the project's changes stand: take it before listing, and hand it to `keep`. */
  mark(project: string): number {
    return this.generation + (this.generations.get(project) ?? 0)
  }

  /**
   * Keep a listing made by this call, when no change reached the project since `mark` was taken and the change
   * source vouches for every folder of it.
   */
  keep(project: string, listing: Listing, mark: number): void {
    if (mark !== this.mark(project)) return
    if (this.source?.healthy === true && this.source.covers(project)) this.listings.set(project, listing)
  }

  /** Drop what is kept for `project` (or for every project). */
  forget(project?: string): void {
    if (project === undefined) {
      this.generation++
      this.listings.clear()
    } else {
      this.generations.set(project, (this.generations.get(project) ?? 0) + 1)
      this.listings.delete(project)
    }
  }

  /** A file or folder changed: drop the project it lies in (anything outside a project drops nothing). */
  private changed(abs: string | null): void {
    if (abs === null) this.forget()
    else if (abs.startsWith(this.projectsDir)) {
      const project = abs.slice(this.projectsDir.length).split(path.sep)[0]
      this.forget(project === '' ? undefined : project)
    }
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
    this.listings.clear()
    live.delete(this.dir)
  }
}

/** The journal's inode and size now, or null when there is none. */
function journalMark(dir: string): { ino: number; offset: number } | null {
  const st = statOrNull(journalFile(dir))
  return st === null ? null : { ino: st.ino, offset: st.size }
}

function statOrNull(file: string) {
  try {
    return lstatSync(file)
  } catch {
    return null
  }
}

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
