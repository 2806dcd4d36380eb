// A ChangeSource (live.ts) over the task folders of a workspace: one non-recursive fs.watch per folder
// (`projects/`, each project's folder, its `tasks/` and each status folder), so the watch count is the number of
// folders (tens), not of files. inotify reports every entry of a watched folder being created, renamed, removed,
// written or touched. The folders are listed again every few seconds: a new project is watched from then on, and
// a folder replaced under its watch is watched anew, each reported as "anything may have changed".

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { ChangeSource } from './live.js'

const RESCAN_MS = 2_000
const STATUS_FOLDERS = ['open', 'active', 'blocked', 'done', 'removed']

/** The folders to watch under `dir` (`.dacli/`), as they are now (links are never followed). */
function foldersOf(dir: string): string[] {
  const projects = path.join(dir, 'projects')
  const out = [projects]
  for (const p of readDirs(projects)) {
    const project = path.join(projects, p)
    const tasks = path.join(project, 'tasks')
    out.push(project, tasks)
    for (const s of readDirs(tasks)) if (STATUS_FOLDERS.includes(s)) out.push(path.join(tasks, s))
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

export function watchTaskFolders(dir: string): ChangeSource {
  const listeners = new Set<(abs: string | null) => void>()
  const watched = new Map<string, { w: fs.FSWatcher; ino: number }>()
  let failed = false
  let timer: NodeJS.Timeout | null = null
  const emit = (abs: string | null) => {
    for (const l of listeners) l(abs)
  }

  /** Watch every folder there is now; true when the set of folders (or one of them) changed. */
  function scan(): boolean {
    const now = new Set<string>()
    let moved = false
    for (const d of foldersOf(dir)) {
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
        const w = fs.watch(d, { persistent: false }, (_event, name) =>
          emit(typeof name === 'string' && name !== '' ? path.join(d, name) : d),
        )
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

  return {
    get healthy() {
      return timer !== null && !failed
    },
    covers(project) {
      if (timer === null || failed) return false
      const tasks = path.join(dir, 'projects', project, 'tasks')
      const folders = [path.join(dir, 'projects', project), tasks]
      for (const s of readDirs(tasks)) if (STATUS_FOLDERS.includes(s)) folders.push(path.join(tasks, s))
      return folders.every((f) => watched.has(f))
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
        for (const { w } of watched.values()) w.close()
        watched.clear()
      }
    },
  }
}
