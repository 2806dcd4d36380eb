// Conflict copies: `<file>.conflict-<commit>`, written by `record pull` beside a
// file both sides changed (ours stays in place); a task file's copy goes in its
// project's `tasks/` folder, never inside a status folder. They stay until a person
// resolves them; `doctor`, `status` and `overview` report them and `record push` refuses.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { cmd } from '../base/commands.js'
import { STATUSES } from '../format/model.js'
import { RACY_MS } from './filecache.js'
import { keptByCleanup } from './fsio.js'

const CONFLICT_COPY = /\.conflict-[0-9a-f]{7,}$/

export interface ConflictCopy {
  /** The copy (absolute). */
  copy: string
  /** The file it is the other side's version of (absolute). */
  original: string
}

/** What a folder held when this process last read it: its conflict copies and its folders, by the folder's stamp. */
interface Seen {
  stamp: string
  copies: string[]
  folders: string[]
  /** When a server's watch follows the folder (live.ts vouch): its epoch then, and how many names it had reported. */
  watch?: { epoch: number; seen: number }
}

/** What follows folders for a long-lived server (store/live.ts LiveWorkspace.vouch). */
export interface FolderWatch {
  vouch(folder: string): { epoch: number; names: readonly string[] } | null
}
const seen = new Map<string, Seen>()

/**
 * Every conflict copy under `.dacli/` (never under cache/, locks/ or worktrees/). `events/` holds append-only files
 * with unique names that never conflict; `skipEvents` spares walking it (status, overview). Never through a link.
 * A folder's names change only with its modification and change times, so a folder whose stamp (those and its
 * inode) is the one this process last read it at, and that has settled, is not read again: a long-lived server
 * (`mcp serve`) takes one `lstat` per folder, not a listing of every file. A command reads every folder once.
 */
export function conflictCopies(
  dir: string,
  opts: { skipEvents?: boolean; watch?: FolderWatch | null } = {},
): ConflictCopy[] {
  const skip = new Set(['cache', 'locks', 'worktrees', ...(opts.skipEvents ? ['events'] : [])])
  const out: ConflictCopy[] = []
  const walk = (folder: string, top: boolean) => {
    const got = folderOf(folder, opts.watch ?? null)
    if (got === null) return
    for (const c of got.copies) {
      const p = path.join(folder, c)
      out.push({ copy: p, original: originalOf(p) })
    }
    for (const f of got.folders) {
      if (top && skip.has(f)) continue
      // Joined by concatenation (a folder's name holds no separator): this runs for every folder on every call of a
      // server's status. What a cleanup kept for its restore (`cleanup/<id>/files/`) is the artifact's, not the
      // workspace's.
      const sub = `${folder}${path.sep}${f}`
      if (f !== 'files' || !keptByCleanup(dir, sub)) walk(sub, false)
    }
  }
  walk(dir, true)
  return out.sort((a, b) => (a.copy < b.copy ? -1 : a.copy > b.copy ? 1 : 0))
}

/** Is this name a conflict copy (`<file>.conflict-<commit>`)? */
export const isConflictCopy = (name: string) => CONFLICT_COPY.test(name)

/**
 * The file a copy is the other side's version of: the name without its suffix, in the same folder; for a task's
 * copy (in a project's `tasks/` folder) the task file of that name in the status folder it is in now.
 */
function originalOf(copy: string): string {
  const beside = copy.replace(CONFLICT_COPY, '')
  const folder = path.dirname(copy)
  if (path.basename(folder) !== 'tasks' || path.basename(path.dirname(path.dirname(folder))) !== 'projects')
    return beside
  const name = path.basename(beside)
  for (const status of STATUSES) {
    const task = path.join(folder, status, name)
    if (fs.existsSync(task)) return task
  }
  return beside
}

/** A folder's conflict copies and folders (no links), from memory while its stamp holds; null when unreadable. */
function folderOf(folder: string, watch: FolderWatch | null): Seen | null {
  // A folder a server's watch follows: read again only when an entry it named since is a conflict copy or a folder
  // (made, or gone: its name is looked at now), or the watch cannot vouch for the whole time since.
  const v = watch?.vouch(folder) ?? null
  const known = seen.get(folder)
  if (v !== null && known?.watch !== undefined && known.watch.epoch === v.epoch && settled(folder, v.names, known)) {
    known.watch.seen = v.names.length
    return known
  }
  const before = v?.names.length ?? 0
  const got = readFolder(folder)
  if (got !== null && v !== null) {
    got.watch = { epoch: v.epoch, seen: before }
    seen.set(folder, got)
  }
  return got
}

/** Does no entry named since the folder was read change its copies or folders? */
function settled(folder: string, names: readonly string[], known: Seen): boolean {
  for (let i = (known.watch as { seen: number }).seen; i < names.length; i++) {
    const name = names[i] as string
    if (CONFLICT_COPY.test(name) || known.folders.includes(name)) return false
    const st = fs.lstatSync(path.join(folder, name), { throwIfNoEntry: false })
    if (st?.isDirectory()) return false
  }
  return true
}

function readFolder(folder: string): Seen | null {
  let st: fs.Stats | undefined
  try {
    st = fs.lstatSync(folder, { throwIfNoEntry: false })
  } catch {
    return null
  }
  if (st === undefined || !st.isDirectory()) return null
  const stamp = `${st.mtimeMs}:${st.ctimeMs}:${st.ino}`
  const known = seen.get(folder)
  if (known !== undefined && known.stamp === stamp) return known
  let ents: fs.Dirent[]
  try {
    ents = fs.readdirSync(folder, { withFileTypes: true })
  } catch {
    return null
  }
  const got: Seen = { stamp, copies: [], folders: [] }
  for (const e of ents) {
    if (e.isDirectory()) got.folders.push(e.name)
    else if (CONFLICT_COPY.test(e.name)) got.copies.push(e.name)
  }
  // A folder changed within the racy window is read again every time (a same-tick change would keep its stamp).
  if (Date.now() - Math.max(st.mtimeMs, st.ctimeMs) > RACY_MS) seen.set(folder, got)
  else seen.delete(folder)
  return got
}

/** What to do about one copy, naming the file to keep (config.yml, a task's .md, …). */
export function conflictHint(relOriginal: string): string {
  return `compare ${relOriginal} with this copy, keep what is right in ${relOriginal}, delete this copy, then ${cmd('record')} (record push refuses until then)`
}
