// A watch of `.dacli/` for the board's live updates: one non-recursive watch
// per directory (inotify reports a directory's entries being created, renamed,
// removed or written), re-scanned on every change and every few seconds, so
// new projects and re-created folders are followed. Directories only: a watch
// per file would need 10,000 watches for 10,000 tasks, past the default inotify
// limit. `cache/` and `locks/` are ours to churn: not watched.

import * as fs from 'node:fs'
import * as path from 'node:path'

const SKIP = new Set(['cache', 'locks'])
const RESCAN_MS = 3_000
const SETTLE_MS = 120
const MAX_DIRS = 5_000

export interface TreeWatch {
  close(): void
  /** Directories watched now (for tests). */
  readonly size: number
}

export function watchTree(root: string, onChange: () => void): TreeWatch {
  const watched = new Map<string, { w: fs.FSWatcher; ino: number }>()
  let timer: NodeJS.Timeout | null = null
  let closed = false
  const changed = () => {
    if (closed || timer !== null) return
    timer = setTimeout(() => {
      timer = null
      scan()
      if (!closed) onChange()
    }, SETTLE_MS)
  }
  const dirsUnder = (dir: string, out: string[]) => {
    if (out.length >= MAX_DIRS) return
    out.push(dir)
    let ents: fs.Dirent[]
    try {
      ents = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of ents) {
      if (!e.isDirectory()) continue
      if (dir === root && SKIP.has(e.name)) continue
      dirsUnder(path.join(dir, e.name), out)
    }
  }
  function scan() {
    if (closed) return
    const now = new Set<string>()
    const dirs: string[] = []
    dirsUnder(root, dirs)
    for (const d of dirs) {
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
      try {
        const w = fs.watch(d, { persistent: false }, changed)
        w.on('error', () => {
          w.close()
          watched.delete(d)
        })
        watched.set(d, { w, ino })
      } catch {
        // Gone between the listing and the watch: the next scan sees.
      }
    }
    for (const [d, { w }] of watched) {
      if (!now.has(d)) {
        w.close()
        watched.delete(d)
      }
    }
  }
  scan()
  // A folder re-created under us keeps its path but not its watch: a periodic scan catches it (and reports it).
  let last = signature(root)
  const interval = setInterval(() => {
    scan()
    const sig = signature(root)
    if (sig !== last) {
      last = sig
      changed()
    }
  }, RESCAN_MS)
  interval.unref()
  return {
    close() {
      closed = true
      clearInterval(interval)
      if (timer !== null) clearTimeout(timer)
      for (const { w } of watched.values()) w.close()
      watched.clear()
    },
    get size() {
      return watched.size
    },
  }
}

/** The identities and change times of the watched folders: differs when a folder was replaced or rewritten. */
function signature(root: string): string {
  const dirs: string[] = []
  const walk = (d: string) => {
    if (dirs.length >= MAX_DIRS) return
    let st: fs.Stats
    try {
      st = fs.lstatSync(d)
    } catch {
      return
    }
    dirs.push(`${d}:${st.ino}:${st.mtimeMs}`)
    let ents: fs.Dirent[] = []
    try {
      ents = fs.readdirSync(d, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of ents) if (e.isDirectory() && !(d === root && SKIP.has(e.name))) walk(path.join(d, e.name))
  }
  walk(root)
  return dirs.join('\n')
}
