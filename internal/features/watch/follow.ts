// What `watch` sees besides the change journal: the task files themselves. A watch of the task folders
// (store/taskwatch.ts) says which project may have changed; the project is then compared with its last known state
// (store/treestate.ts). A difference the journal explains — a line about the same object, read before the change
// is reported — is dacli's own and is already reported from the journal, with its author; any other is reported as
// `source: external` (a hand edit, `mv`, `rm`, `git checkout`/`pull`, `record pull`). A difference waits for its
// journal line: dacli writes a task and appends the line under the task's lock (or the project's numbering lock for
// a new task), so a difference is called external only once that lock has been seen free and the journal read
// again after that — and not before a short moment has passed (a writer may be between its lock and its write).
// Without a working watch (or with DACLI_WATCH_POLL=1) every project is compared every half second.

import * as path from 'node:path'
import type { Change } from '../../store/journal.js'
import type { ChangeSource } from '../../store/live.js'
import type { Store } from '../../store/store.js'
import { nativeRecursive, watchTaskFolders } from '../../store/taskwatch.js'
import { type TreeChange, TreeState } from '../../store/treestate.js'

/** How long a difference waits at least for the journal line that would explain it. */
const HOLD_MS = 100
/** ... and at most, while a lock is held (a writer that died holding one leaves it until it is taken over). */
const MAX_HOLD_MS = 3_000
/** Comparing every project: this often without a working watch, and this often with one (a safety net). */
const POLL_MS = 500
const SAFETY_MS = 5_000

export interface TreeFollower {
  /** Resolves at the next change a watch reports (or at once when one is waiting). */
  woken(): Promise<void>
  /** Journal lines just read (and reported): what they name is dacli's, not external. */
  explained(changes: readonly Change[]): void
  /** Compare what may have changed; returns the external changes due now. */
  look(): Promise<TreeChange[]>
  close(): void
}

export async function followTree(store: Store, opts: { platform: string; poll: boolean }): Promise<TreeFollower> {
  const tree = new TreeState(store)
  await tree.look()
  tree.absorb()
  const source: ChangeSource | null = opts.poll
    ? null
    : watchTaskFolders(store.dir, { recursive: nativeRecursive(opts.platform) })
  const projectsDir = path.join(store.dir, 'projects') + path.sep
  let dirty: Set<string> | 'all' = new Set()
  let wake: (() => void) | null = null
  let pendingWake = false
  const touch = (abs: string | null) => {
    if (abs === null || !abs.startsWith(projectsDir)) dirty = 'all'
    else if (dirty !== 'all') {
      const slug = abs.slice(projectsDir.length).split(path.sep)[0] ?? ''
      if (slug === '') dirty = 'all'
      else dirty.add(slug)
    }
    poke()
  }
  /** Wake the loop (it looks at what is dirty and at what waits). */
  const poke = () => {
    if (wake !== null) {
      const w = wake
      wake = null
      w()
    } else pendingWake = true
  }
  const unsubscribe = source?.subscribe(touch) ?? (() => {})
  const ids = new Set<string>()
  const named = new Set<string>()
  /** Objects that differ from what was reported: since when, in which project, and whether seen unlocked. */
  const pending = new Map<string, { seen: number; project: string; free: boolean }>()
  /** A writer holds the task's lock, or its project's numbering lock. */
  const held = (id: string, project: string) =>
    (id.startsWith('t-') && store.lockHeld(`task-${id}`)) || store.lockHeld(`seq-${project}`)
  let lastFull = Date.now()
  let due: NodeJS.Timeout | null = null

  return {
    woken() {
      if (pendingWake) {
        pendingWake = false
        return Promise.resolve()
      }
      return new Promise<void>((resolve) => {
        wake = resolve
      })
    },
    explained(changes) {
      for (const c of changes) {
        if (c.id !== null) ids.add(c.id)
        if (c.project !== null) named.add(c.project)
        else dirty = 'all'
      }
    },
    async look() {
      const now = Date.now()
      const every = source === null || !source.healthy ? POLL_MS : SAFETY_MS
      let which: Set<string> | undefined
      if (dirty === 'all' || now - lastFull >= every) {
        which = undefined
        lastFull = now
      } else which = new Set([...dirty, ...named])
      dirty = new Set()
      if (which === undefined || which.size > 0) {
        for (const [id, project] of await tree.look(which)) {
          if (!pending.has(id)) pending.set(id, { seen: now, project, free: false })
        }
      }
      // dacli's own: reported from the journal, so what the files show now is taken as reported.
      for (const id of ids) {
        tree.absorb(id)
        pending.delete(id)
      }
      const ready: TreeChange[] = []
      for (const [id, p] of pending) {
        if (held(id, p.project) && now - p.seen < MAX_HOLD_MS) p.free = false
        else if (!p.free)
          p.free = true // the journal is read once more before it is called external
        else if (now - p.seen >= HOLD_MS) {
          pending.delete(id)
          const change = tree.settle(id)
          if (change !== null) ready.push(change)
        }
      }
      ids.clear()
      named.clear()
      const waiting = [...pending.values()]
      // Look again as soon as the first waiting difference is due, not at the next interval.
      if (waiting.length > 0 && due === null) {
        const first = Math.min(...waiting.map((p) => (p.free ? p.seen + HOLD_MS - now : 20)))
        due = setTimeout(
          () => {
            due = null
            poke()
          },
          Math.max(first, 1),
        )
      }
      return ready
    },
    close() {
      if (due !== null) clearTimeout(due)
      unsubscribe()
      wake?.()
    },
  }
}
