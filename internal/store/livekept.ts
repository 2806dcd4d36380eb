// A project's listing as a long-lived server keeps it (live.ts): its summaries by file, what changed since, and how
// the files read again are patched into it.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { STATUSES, TASK_FILE, type TaskSummary } from '../format/model.js'
import { isTempName } from './fsio.js'
import type { Listing } from './taskindex.js'

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

/** A folder entry that may be a task file (as a listing takes it: temp files and dot files are not looked at). */
export const candidate = (name: string) => name.endsWith('.md') && !name.startsWith('.') && !isTempName(name)

/**
 * The kept listing with the summaries read again in their files' places, when every one is a file the listing held,
 * still holding the same task (its id, number and path: its place in the order); undefined otherwise (the summaries
 * are then deduplicated and ordered afresh). With `keep`, the kept summaries by file and by id follow.
 */
export function patched(
  k: Kept,
  changes: ReadonlyMap<string, TaskSummary | undefined>,
  keep: boolean,
): Listing | undefined {
  if (k.listing.duplicates.length > 0 || k.listing.broken.length > 0) return undefined
  let tasks: TaskSummary[] | null = null
  for (const [key, t] of changes) {
    const was = k.byKey.get(key)
    if (t === was) continue
    if (t === undefined || was === undefined || t.id !== was.id || t.seq !== was.seq || t.path !== was.path)
      return undefined
    tasks ??= k.listing.tasks.slice()
    const at = tasks.indexOf(was)
    if (at === -1) return undefined
    tasks[at] = t
  }
  if (tasks === null) return k.listing
  // Same ids in the same files: the index by id stands.
  if (keep) for (const [key, t] of changes) k.byKey.set(key, t as TaskSummary)
  return { tasks, duplicates: [], broken: [] }
}

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
