// A watch of `.dacli/` for the board's live updates: one non-recursive watch
// per directory (inotify reports a directory's entries being created, renamed,
// removed or written), re-scanned on every change and every few seconds, so
// new projects and re-created folders are followed. Directories only: a watch
// per file would need 10,000 watches for 10,000 tasks, past the default inotify
// limit. Which folders, the caller says (the board slice lists them through the
// store); they are listed again on every scan.

import * as fs from 'node:fs'

const RESCAN_MS = 3_000
const SETTLE_MS = 120

export interface TreeWatch {
  close(): void
  /** Directories watched now (for tests). */
  readonly size: number
}

export function watchTree(folders: () => readonly string[], onChange: () => void): TreeWatch {
  const watched = new Map<string, { w: fs.FSWatcher; ino: number }>()
  let timer: NodeJS.Timeout | null = null
  let closed = false
  /** The folders' identities and change times as last reported: the periodic scan reports only what differs. */
  let last = ''
  const changed = () => {
    if (closed || timer !== null) return
    timer = setTimeout(() => {
      timer = null
      const dirs = folders()
      scan(dirs)
      // What this change left is reported now: the periodic scan must not report it a second time.
      last = signature(dirs)
      if (!closed) onChange()
    }, SETTLE_MS)
  }
  function scan(dirs: readonly string[]) {
    if (closed) return
    const now = new Set<string>()
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
  const first = folders()
  scan(first)
  // A folder re-created under us keeps its path but not its watch: a periodic scan catches it (and reports it).
  last = signature(first)
  const interval = setInterval(() => {
    const dirs = folders()
    scan(dirs)
    const sig = signature(dirs)
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
function signature(dirs: readonly string[]): string {
  const out: string[] = []
  for (const d of dirs) {
    try {
      const st = fs.lstatSync(d)
      out.push(`${d}:${st.ino}:${st.mtimeMs}`)
    } catch {
      // Gone since it was listed: the next scan sees.
    }
  }
  return out.join('\n')
}
