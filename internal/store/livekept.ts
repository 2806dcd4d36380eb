// A project's listing as a long-lived server keeps it (live.ts): its summaries by file, what changed since, and how
// the files read again are patched into it.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { type Broken, STATUSES, TASK_FILE, type TaskSummary } from '../format/model.js'
import { candidate, type DuplicateCopy, type Listing } from './taskindex.js'

/** A project's kept listing, its summaries by file (`<status>/<name>`), and what changed since. */
export interface Kept {
  listing: Listing
  byKey: Map<string, TaskSummary>
  /** Files to read again. */
  dirty: Set<string>
  /** Task ids whose files changed (a journal line): their files are read again. */
  ids: Set<string>
  /** List the status folders again by name (files made, moved or removed). */
  rescan: boolean
  /** The files by task id (idKeysOf), or null until asked for. */
  idKeys: Map<string, string[]> | null
}

/**
 * The kept listing with the summaries read again in their files' places, when every one is a file the listing held,
 * still holding the same task (its id, number, path and status: its place in the order); undefined otherwise (the summaries
 * are then deduplicated and ordered afresh). With `keep`, the kept summaries by file and by id follow.
 */
export function patched(
  k: Kept,
  changes: ReadonlyMap<string, TaskSummary | undefined>,
  keep: boolean,
): Listing | undefined {
  if (k.listing.duplicates.length > 0 || k.listing.broken.length > 0) return undefined
  let tasks: TaskSummary[] | null = null
  const swaps: [TaskSummary, TaskSummary][] = []
  for (const [key, t] of changes) {
    const was = k.byKey.get(key)
    if (t === was) continue
    if (t === undefined || was === undefined || t.id !== was.id || t.seq !== was.seq || t.path !== was.path)
      return undefined
    if (t.status !== was.status) return undefined
    tasks ??= k.listing.tasks.slice()
    const at = tasks.indexOf(was)
    if (at === -1) return undefined
    tasks[at] = t
    swaps.push([was, t])
  }
  if (tasks === null) return k.listing
  // Same ids in the same files: the index by id stands.
  // (A file read again that the listing never held and that is gone again is no change: it is not kept.)
  if (keep) for (const [key, t] of changes) if (t !== undefined) k.byKey.set(key, t)
  patches.set(tasks, { from: k.listing.tasks, swaps })
  return { tasks, duplicates: [], broken: [] }
}

/** How a listing's tasks were patched from another's: that one's tasks, and each summary replaced by another. */
export interface Patch {
  readonly from: readonly TaskSummary[]
  /** [was, now]: the same task (id, number, path, status) in the same place, its summary read again. */
  readonly swaps: readonly (readonly [TaskSummary, TaskSummary])[]
}

const patches = new WeakMap<readonly TaskSummary[], Patch>()

/**
 * When a server's listing was patched from the one before it (a few files read again, each still holding the same
 * task in the same status), how: what is worked out once per listing can be worked out from the one before and the
 * summaries replaced, instead of from every task again. Undefined for any other listing.
 */
export const patchOf = (tasks: readonly TaskSummary[]): Patch | undefined => patches.get(tasks)

/** The kept files by task id, made when a journal line first names a task, kept while the files hold the same ids. */
export function idKeysOf(k: Kept): Map<string, string[]> {
  if (k.idKeys !== null) return k.idKeys
  const out = new Map<string, string[]>()
  for (const [key, t] of k.byKey) {
    const keys = out.get(t.id)
    if (keys === undefined) out.set(t.id, [key])
    else keys.push(key)
  }
  k.idKeys = out
  return out
}

/**
 * The task files of a project's status folders by name (`<status>/<name>`, candidates only), or null when a folder
 * cannot be listed as a listing would (a link, an unreadable folder, a name that is no task file's).
 */
export function statusNames(base: string): Set<string> | null {
  const out = new Set<string>()
  let present: fs.Dirent[]
  try {
    present = fs.readdirSync(base, { withFileTypes: true })
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? out : null
  }
  for (const status of STATUSES) {
    const folder = present.find((e) => e.name === status)
    if (folder === undefined) continue
    if (!folder.isDirectory()) return null
    let names: string[]
    try {
      names = fs.readdirSync(`${base}${path.sep}${status}`)
    } catch {
      return null
    }
    for (const n of names) {
      if (!candidate(n)) continue
      if (!TASK_FILE.test(n)) return null
      out.add(`${status}/${n}`)
    }
  }
  return out
}

const NO_LISTING: Listing = Object.freeze({
  tasks: Object.freeze([]),
  broken: Object.freeze([]),
  duplicates: Object.freeze([]),
})

interface Join {
  parts: readonly Listing[]
  joined: Listing
}

/** The listings `joinListings` made, by their first part's tasks and their number of parts (see there). */
const joins = new WeakMap<readonly TaskSummary[], Map<number, Join>>()

/**
 * Several projects' listings as one, in their order. Parts that are the very listings of the last join with the same
 * first part and count (a long-lived server whose memory still holds each project's listing: live.ts) give the very
 * same listing again, so what callers work out from a listing by identity (the plan's tasks by id) is not made again
 * per call; parts each the same as the last join's or patched from it (patchOf) make a join patched from that one.
 * A joined listing is shared: its arrays are frozen, so a caller that would change one fails loudly.
 */
export function joinListings(parts: readonly Listing[]): Listing {
  const first = parts[0]
  if (first === undefined) return NO_LISTING
  let byCount = joins.get(first.tasks)
  const last = byCount?.get(parts.length)
  if (last?.parts.every((p, i) => p === parts[i])) return last.joined
  const tasks: TaskSummary[] = []
  const broken: Broken[] = []
  const duplicates: DuplicateCopy[] = []
  for (const l of parts) {
    for (const t of l.tasks) tasks.push(t)
    for (const b of l.broken) broken.push(b)
    for (const d of l.duplicates) duplicates.push(d)
  }
  const joined: Listing = {
    tasks: Object.freeze(tasks),
    broken: Object.freeze(broken),
    duplicates: Object.freeze(duplicates),
  }
  const before = last ?? joins.get(patchOf(first.tasks)?.from ?? NO_LISTING.tasks)?.get(parts.length)
  if (before !== undefined) patchJoin(before, parts, joined)
  if (byCount === undefined) {
    byCount = new Map()
    joins.set(first.tasks, byCount)
  }
  byCount.set(parts.length, { parts, joined })
  return joined
}

/** When each part is the one `before` joined or patched from it, the join is patched from `before`'s. */
function patchJoin(before: Join, parts: readonly Listing[], joined: Listing): void {
  const swaps: (readonly [TaskSummary, TaskSummary])[] = []
  for (let i = 0; i < parts.length; i++) {
    const now = parts[i] as Listing
    const was = before.parts[i] as Listing
    if (now === was) continue
    const patch = patchOf(now.tasks)
    if (patch?.from !== was.tasks) return
    swaps.push(...patch.swaps)
  }
  if (swaps.length > 0) patches.set(joined.tasks, { from: before.joined.tasks, swaps })
}
