// A ChangeSource (live.ts) over the task folders of a workspace: one non-recursive fs.watch per folder
// (`projects/`, each project's folder, its `tasks/` and each status folder), so the watch count is the number of
// folders (tens), not of files. inotify reports every entry of a watched folder being created, renamed, removed,
// written or touched. The folders are listed again every few seconds: a new project is watched from then on, and
// a folder replaced under its watch is watched anew, each reported as "anything may have changed". An entry created,
// renamed or removed in a folder above the status folders (a project, `tasks/`, a status folder made or replaced by
// a `git checkout`) brings that listing forward, so a new folder is watched within a moment, not seconds.
// Node 20's recursive fs.watch on Linux is a JavaScript walk that watches every file (10,000 tasks, 10,000 inotify
// watches); where the system watches a tree natively (macOS, Windows), `recursive` takes one watch of `projects/`.

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { ChangeSource } from './live.js'

const RESCAN_MS = 2_000
/** How soon after a folder-level change the folders are listed again. */
const SOON_MS = 40
const STATUS_FOLDERS = ['open', 'active', 'blocked', 'done', 'removed']

/** The events' folders (`events/`, and its `YYYY/MM/DD` folders), as they are now (links are never followed). */
export function eventFolders(dir: string): string[] {
  const top = path.join(dir, 'events')
  const out: string[] = []
  const walk = (d: string, depth: number) => {
    out.push(d)
    if (depth < 3) for (const n of readDirs(d)) if (/^\d+$/.test(n)) walk(path.join(d, n), depth + 1)
  }
  if (isDir(top)) walk(top, 0)
  return out
}

/** A project's notes folder and its folders by kind, as they are now (none when it has no notes folder). */
function noteFolders(project: string): string[] {
  const notes = path.join(project, 'notes')
  return isDir(notes) ? [notes, ...readDirs(notes).map((k) => path.join(notes, k))] : []
}

function isDir(d: string): boolean {
  try {
    return fs.lstatSync(d).isDirectory()
  } catch {
    return false
  }
}

/** The folders to watch under `dir` (`.dacli/`), as they are now (links are never followed). */
function foldersOf(dir: string, events: boolean): string[] {
  const projects = path.join(dir, 'projects')
  const out = events ? [projects, ...eventFolders(dir)] : [projects]
  for (const p of readDirs(projects)) {
    const project = path.join(projects, p)
    const tasks = path.join(project, 'tasks')
    out.push(project, tasks)
    for (const s of readDirs(tasks)) if (STATUS_FOLDERS.includes(s)) out.push(path.join(tasks, s))
    if (events) out.push(...noteFolders(project))
  }
  return out
}

function readDirs(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
  } catch {
    return []
  }
}

/** Does this platform watch a whole tree natively (one watch, no walk)? */
export const nativeRecursive = (platform: string) => platform === 'darwin' || platform === 'win32'

export function watchTaskFolders(dir: string, opts: { recursive?: boolean; events?: boolean } = {}): ChangeSource {
  const listeners = new Set<(abs: string | null) => void>()
  const watched = new Map<string, { w: fs.FSWatcher; ino: number }>()
  let failed = false
  /**
   * A watched folder was itself removed or moved (its watch is dead, though a folder made again at the same path may
   * get the same inode number): nothing is vouched for until the next scan has watched every folder anew.
   */
  let lost = false
  let timer: NodeJS.Timeout | null = null
  let soon: NodeJS.Timeout | null = null
  const emit = (abs: string | null) => {
    for (const l of listeners) l(abs)
  }
  const projectsDir = path.join(dir, 'projects')
  const eventsDir = path.join(dir, 'events')
  /** A folder above the status folders (or the events' day folders): what changes in it may be a folder to watch. */
  const upper = (d: string) => {
    if (d === eventsDir || d.startsWith(eventsDir + path.sep)) {
      return (
        path
          .relative(eventsDir, d)
          .split(path.sep)
          .filter((x) => x !== '').length < 3
      )
    }
    const depth = path
      .relative(projectsDir, d)
      .split(path.sep)
      .filter((x) => x !== '').length
    return depth < 2 || (depth === 2 && (path.basename(d) === 'tasks' || path.basename(d) === 'notes'))
  }
  const rescanSoon = (always = false) => {
    if (soon !== null || timer === null) return
    soon = setTimeout(() => {
      soon = null
      if (timer !== null && (scan() || always)) emit(null)
    }, SOON_MS)
    soon.unref()
  }

  /** Watch every folder there is now; true when the set of folders (or one of them) changed. */
  function scan(): boolean {
    lost = false
    if (opts.recursive === true) return scanRecursive()
    const now = new Set<string>()
    let moved = false
    for (const d of foldersOf(dir, opts.events === true)) {
      let ino: number
      try {
        ino = fs.lstatSync(d).ino
      } catch {
        continue
      }
      now.add(d)
      const cur = watched.get(d)
      if (cur !== undefined && cur.ino === ino) continue
      cur?.w.close()
      moved = true
      try {
        const isUpper = upper(d)
        const self = path.basename(d)
        const w = fs.watch(d, { persistent: false }, (event, name) => {
          // The folder itself removed or moved away is reported under its own name (an entry of that name inside it
          // is taken the same way: one watch made again for nothing).
          if (event === 'rename' && name === self) {
            if (watched.get(d)?.w === w) watched.delete(d)
            w.close()
            lost = true
            rescanSoon(true)
            emit(null)
            return
          }
          if (isUpper) rescanSoon()
          emit(typeof name === 'string' && name !== '' ? path.join(d, name) : d)
        })
        w.on('error', () => {
          // A watch that broke cannot vouch for the folder: nothing is kept until the next scan watches it again.
          w.close()
          watched.delete(d)
          failed = true
          emit(null)
        })
        watched.set(d, { w, ino })
      } catch {
        failed = true // e.g. the inotify limit: nothing is kept across calls
      }
    }
    for (const [d, { w }] of watched) {
      if (!now.has(d)) {
        w.close()
        watched.delete(d)
        moved = true
      }
    }
    return moved
  }

  /** One native recursive watch of `projects/` (kept while the folder is the same one). */
  function scanRecursive(): boolean {
    let ino: number
    try {
      ino = fs.lstatSync(projectsDir).ino
    } catch {
      return false
    }
    const cur = watched.get(projectsDir)
    if (cur !== undefined && cur.ino === ino) return false
    cur?.w.close()
    try {
      const w = fs.watch(projectsDir, { persistent: false, recursive: true }, (_event, name) =>
        emit(typeof name === 'string' && name !== '' ? path.join(projectsDir, name) : null),
      )
      w.on('error', () => {
        w.close()
        watched.delete(projectsDir)
        failed = true
        emit(null)
      })
      watched.set(projectsDir, { w, ino })
    } catch {
      failed = true
    }
    return true
  }

  return {
    get healthy() {
      return timer !== null && !failed && !lost
    },
    covers(project) {
      if (timer === null || failed || lost) return false
      if (opts.recursive === true) return watched.has(projectsDir)
      const tasks = path.join(dir, 'projects', project, 'tasks')
      const folders = [path.join(dir, 'projects', project), tasks]
      for (const s of readDirs(tasks)) if (STATUS_FOLDERS.includes(s)) folders.push(path.join(tasks, s))
      return folders.every((f) => watched.has(f))
    },
    coversEvents() {
      // Only the folder-by-folder watch takes in the events' folders.
      if (timer === null || failed || lost || opts.recursive === true || opts.events !== true) return false
      const folders = eventFolders(dir)
      return folders.length > 0 && folders.every((f) => watched.has(f))
    },
    watches(folder) {
      return timer !== null && !failed && !lost && watched.has(folder)
    },
    coversNotes(project) {
      if (timer === null || failed || lost || opts.recursive === true || opts.events !== true) return false
      const folders = noteFolders(path.join(dir, 'projects', project))
      return folders.length > 0 && folders.every((f) => watched.has(f))
    },
    subscribe(onChange) {
      listeners.add(onChange)
      if (timer === null) {
        failed = false
        scan()
        timer = setInterval(() => {
          failed = false
          if (scan()) emit(null)
        }, RESCAN_MS)
        timer.unref()
      }
      return () => {
        listeners.delete(onChange)
        if (listeners.size > 0 || timer === null) return
        clearInterval(timer)
        timer = null
        if (soon !== null) clearTimeout(soon)
        soon = null
        for (const { w } of watched.values()) w.close()
        watched.clear()
      }
    },
  }
}
