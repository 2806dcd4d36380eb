// What `watch` compares the task files against: every task as last seen (its id, folder, owner, title and the
// stamp of its file), per project. `look` walks the projects it is given, compares what is there now with what was
// seen, remembers the new state and says what differs — whoever changed it: a dacli command, `record pull`, a
// `git checkout`, an editor, `mv` or `rm`. Which of those it was is for the caller to tell (the change journal
// names what dacli did). Summaries come through the workspace index, so an unchanged file costs one lstat.

import type { TaskSummary } from '../format/model.js'
import { qualifiedRef } from '../format/refs.js'
import type { Store } from './store.js'
import { listProject, walkProject } from './taskindex.js'

/** What changed, in the change journal's words (`task.deleted` is a file that is gone from every folder). */
export interface TreeChange {
  kind:
    | 'task.created'
    | 'task.changed'
    | 'task.moved'
    | 'task.deleted'
    | 'task.unreadable'
    | 'claim.taken'
    | 'claim.released'
    | 'project.created'
    | 'project.removed'
  ref: string
  id: string
  project: string
  summary: string
  from?: string
  to?: string
}

interface Seen {
  summary: TaskSummary
  /** The file's stamp: size, modification time, inode, change time. */
  stamp: string
}

/** The summary fields a change is named by (besides the folder and the owner). */
const FIELDS = [
  'title',
  'priority',
  'estimate',
  'depends_on',
  'parent',
  'tags',
  'acceptance_done',
  'acceptance_total',
  'blocked_by',
  'claim',
  'worktree',
  'github',
  'aliases',
] as const

/**
 * Two views of the tasks: `current` (what the last look found) and `reported` (what the caller last reported or
 * absorbed). A look says which objects differ now; `settle` turns an object's difference into at most one change
 * (so a file removed by one look and written in another folder by the next is one move), `absorb` drops it.
 */
export class TreeState {
  private readonly current = new Map<string, Map<string, Seen>>()
  private readonly reported = new Map<string, Map<string, Seen>>()
  /** Projects that exist (by the last look) and were last reported so. */
  private readonly projectsNow = new Set<string>()
  private readonly projectsReported = new Set<string>()
  /** Per project, the task files dacli refused to read by the last look: file name → why. */
  private readonly refused = new Map<string, Map<string, string>>()
  /** Tasks reported unreadable (kept in `reported` as last read, so a repair is a change, not a creation). */
  private readonly unreadable = new Set<string>()

  constructor(private readonly store: Store) {}

  /**
   * Look at `projects` (every project there is or was, when not given) and remember what is there now. Returns the
   * ids (`t-…`, and `p-<slug>` for a project made or removed) whose state differs from what was last reported, each
   * with the project it was seen in.
   */
  async look(projects?: Iterable<string>): Promise<Map<string, string>> {
    const now = new Set(this.store.projectSlugs())
    const which = projects === undefined ? new Set([...now, ...this.current.keys()]) : new Set(projects)
    const out = new Map<string, string>()
    for (const slug of which) {
      if (!now.has(slug)) {
        this.current.delete(slug)
        this.refused.delete(slug)
        this.projectsNow.delete(slug)
      } else {
        this.current.set(slug, await this.seen(slug))
        this.projectsNow.add(slug)
      }
      if (this.projectsNow.has(slug) !== this.projectsReported.has(slug)) out.set(`p-${slug}`, slug)
      const a = this.current.get(slug) ?? new Map<string, Seen>()
      const b = this.reported.get(slug) ?? new Map<string, Seen>()
      for (const [id, x] of a) if (!same(x, b.get(id))) out.set(id, slug)
      for (const [id, x] of b)
        if (!a.has(id) && !(this.unreadable.has(id) && this.whyRefused(x) !== null)) out.set(id, slug)
    }
    return out
  }

  /** Take what is there now as reported, for everything (the start) or for one object. */
  absorb(id?: string): void {
    if (id === undefined) {
      this.reported.clear()
      for (const [slug, m] of this.current) this.reported.set(slug, new Map(m))
      this.projectsReported.clear()
      for (const p of this.projectsNow) this.projectsReported.add(p)
      return
    }
    this.settle(id)
  }

  /** The change to report for one object (null when it is back as it was), taking the current state as reported. */
  settle(id: string): TreeChange | null {
    if (id.startsWith('p-')) {
      const slug = id.slice(2)
      const is = this.projectsNow.has(slug)
      if (is === this.projectsReported.has(slug)) return null
      if (is) this.projectsReported.add(slug)
      else this.projectsReported.delete(slug)
      return projectChange(is ? 'project.created' : 'project.removed', slug, is ? 'created' : 'removed')
    }
    const a = this.find(this.current, id)
    const b = this.find(this.reported, id)
    if (b !== null) this.reported.get(b.summary.project)?.delete(id)
    if (a !== null) {
      const m = this.reported.get(a.summary.project) ?? new Map<string, Seen>()
      this.reported.set(a.summary.project, m)
      m.set(id, a)
    }
    if (a === null && b !== null) {
      // Still there but refused (a hand edit put a value no field takes): not deleted. Kept as last read.
      const why = this.whyRefused(b)
      if (why !== null) {
        this.reported.get(b.summary.project)?.set(id, b)
        if (this.unreadable.has(id)) return null
        this.unreadable.add(id)
        return { kind: 'task.unreadable', ...where(b.summary), summary: `cannot be read (${why}): ${b.summary.title}` }
      }
    }
    this.unreadable.delete(id)
    if (a === null) return b === null ? null : deleted(b.summary)
    return compare(b, a)
  }

  /** Why the file a task was last read from is refused now, or null (readable, or gone). Found by its file name. */
  private whyRefused(s: Seen): string | null {
    const name = s.summary.path.slice(s.summary.path.lastIndexOf('/') + 1)
    return this.refused.get(s.summary.project)?.get(name) ?? null
  }

  private find(m: Map<string, Map<string, Seen>>, id: string): Seen | null {
    for (const tasks of m.values()) {
      const s = tasks.get(id)
      if (s !== undefined) return s
    }
    return null
  }

  /** Every task of a project as it is now: the stamps first (a file rewritten between the two is seen again). */
  private async seen(slug: string): Promise<Map<string, Seen>> {
    const walk = walkProject(this.store.paths(), slug)
    const stamps = new Map<string, string>()
    for (let i = 0; i < walk.names.length; i++) {
      const s = walk.stamps.slice(i * 4, i * 4 + 4).join(':')
      stamps.set(`${walk.relBase}${walk.statuses[i]}/${walk.names[i]}`, s)
    }
    const index = this.store.cache('index')
    const listing = await listProject(this.store.paths(), slug, () => index.section(`tasks/${slug}`, 'used'))
    const out = new Map<string, Seen>()
    for (const t of listing.tasks) out.set(t.id, { summary: t, stamp: stamps.get(t.path) ?? '' })
    const refused = new Map<string, string>()
    for (const b of listing.broken) refused.set(b.path.slice(b.path.lastIndexOf('/') + 1), b.reason)
    this.refused.set(slug, refused)
    return out
  }
}

const same = (a: Seen, b: Seen | undefined) =>
  b !== undefined && a.stamp === b.stamp && a.summary.path === b.summary.path

function compare(b: Seen | null, a: Seen): TreeChange | null {
  const t = a.summary
  if (b === null) return { kind: 'task.created', ...where(t), summary: t.title }
  if (same(a, b)) return null
  const was = b.summary
  const moved = was.status !== t.status ? { from: was.status, to: t.status } : {}
  const step = moved.from === undefined ? '' : `${moved.from} → ${moved.to}: `
  if (was.owner !== t.owner) {
    return t.owner === null
      ? { kind: 'claim.released', ...where(t), ...moved, summary: `${step}released (was ${was.owner})` }
      : { kind: 'claim.taken', ...where(t), ...moved, summary: `${step}claimed by ${t.owner}` }
  }
  if (moved.from !== undefined) return { kind: 'task.moved', ...where(t), ...moved, summary: `${step}${t.title}` }
  const fields = FIELDS.filter((f) => JSON.stringify(was[f]) !== JSON.stringify(t[f]))
  return { kind: 'task.changed', ...where(t), summary: fields.length === 0 ? 'edited' : `changed ${fields.join(', ')}` }
}

const where = (t: TaskSummary) => ({ ref: qualifiedRef(t), id: t.id, project: t.project })

const deleted = (t: TaskSummary): TreeChange => ({
  kind: 'task.deleted',
  ...where(t),
  summary: `deleted from ${t.status}: ${t.title}`,
})

const projectChange = (kind: 'project.created' | 'project.removed', slug: string, summary: string): TreeChange => ({
  kind,
  ref: slug,
  id: `p-${slug}`,
  project: slug,
  summary,
})
