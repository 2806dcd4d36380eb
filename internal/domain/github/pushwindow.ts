// Which tasks a push covers (every task, the named refs, or those active within
// --since), read as the projection engine sees them, and the push plan: the
// engine's decisions (internal/domain/github/projection.ts) plus the task files that
// could not be read (announced, never silently dropped).

import type { Issue } from '../../adapters/github/client.js'
import { cmd } from '../../base/commands.js'
import { classifiedError, UsageError } from '../../base/errors.js'
import type { TaskRecord } from '../../format/model.js'
import { fileRefOf, type Store } from '../../store/store.js'
import type { TaskFileRef } from '../../store/taskindex.js'
import { findTombstone, listTombstones, type Tombstone } from '../../store/tombstones.js'
import type { PlannedIssue } from './adoption.js'
import { adoptedLabels, adoptedMilestone, taskTitle } from './adoption.js'
import { type Step as EngineStep, type ProjectedTask, type Projection, project } from './projection.js'

export interface OutTask extends ProjectedTask {
  /** `removed` for a tombstone whose issue a push closes (push and sync only: see windowTasks). */
  status: TaskRecord['status'] | 'removed'
  /** The task file (absent for a sync preview's stand-in). */
  file: (TaskFileRef & { id: string }) | null
}

export type Step = EngineStep<OutTask, Issue>
/** Task files that could not be read (announced in the push documents). */
export type Skipped = { path: string; reason: string }[]
export type PushPlan = Projection<OutTask, Issue> & { skipped: Skipped }

export interface Window {
  tasks: OutTask[]
  skipped: Skipped
}

export const planPush = (w: Window, issues: readonly Issue[], repo: string, wsId: string): PushPlan => ({
  ...project(w.tasks, issues, repo, wsId),
  skipped: w.skipped,
})

function recordView(t: TaskRecord): OutTask {
  return {
    id: t.id,
    ref: `${t.project}/${String(t.seq).padStart(3, '0')}-${t.slug}`,
    title: t.title,
    status: t.status,
    priority: t.priority,
    so_that: t.so_that,
    labels: t.labels,
    milestone: t.milestone,
    acceptance: t.acceptance.map((a) => ({ text: a.text, checked: a.checked })),
    github: t.github === null ? null : { issue: t.github.issue, repo: t.github.repo },
    file: null,
  }
}

/** Last activity of a task: the latest of its creation and its log lines (null when undated). */
function lastActivity(t: TaskRecord): number | null {
  const times = [t.created, ...t.log.map((l) => l.at)]
    .map((s) => (s === null ? Number.NaN : Date.parse(s)))
    .filter((n) => Number.isFinite(n))
  return times.length === 0 ? null : Math.max(...times)
}

/**
 * The tasks a push covers: the named refs and/or those active within `sinceMs` (all tasks when neither is given).
 * With `removed`, the tombstones in that window too (not with refs alone): a removed task's issue is closed, so the
 * projection never shows open a task that no longer exists.
 */
export async function windowTasks(
  store: Store,
  project: string,
  refs: readonly string[],
  sinceMs: number | null,
  now: Date,
  opts: { removed?: boolean } = {},
): Promise<Window> {
  const listing = await store.listTasks(project)
  const files = new Map<string, TaskFileRef & { id: string }>()
  // A named task that was removed: with `removed`, its tombstone is pushed (its issue closed), not refused as unknown.
  const namedGone = new Map<string, Tombstone>()
  for (const ref of refs) {
    let f: Awaited<ReturnType<Store['resolve']>>
    try {
      f = await store.resolve(ref, { prefer: project })
    } catch (e) {
      if (opts.removed !== true || classifiedError(e)?.details.removed === undefined) throw e
      const tomb = await findTombstone(store, ref.includes('/') ? ref : `${project}/${ref}`)
      if (tomb === null || tomb.task.project !== project) throw e
      namedGone.set(tomb.task.id, tomb)
      continue
    }
    if (f.project !== project) {
      throw new UsageError(`${ref} is a task of project "${f.project}", not "${project}"`, {
        details: { ref, project: f.project },
        next: [cmd(`github push ${f.project} ${ref}`)],
      })
    }
    const id = f.id ?? (await store.readTaskFile(f)).id
    files.set(id, { ...f, id })
  }
  const all = refs.length === 0 && sinceMs === null
  const out: OutTask[] = []
  for (const t of [...listing.tasks].sort((a, b) => a.seq - b.seq)) {
    const named = files.get(t.id)
    if (!all && named === undefined && sinceMs === null) continue
    const file = named ?? { ...fileRefOf(store.root, t), id: t.id }
    const rec = await store.readTaskFile(file)
    if (!all && named === undefined) {
      const last = lastActivity(rec)
      if (last === null || last < now.getTime() - (sinceMs as number)) continue
    }
    out.push({ ...recordView(rec), file })
  }
  const skipped = listing.broken.map((b) => ({ path: b.path, reason: b.reason }))
  if (opts.removed !== true) return { tasks: out, skipped }
  const seqs = new Map(listing.tasks.map((t) => [t.id, t.seq]))
  const named = !all && sinceMs === null
  const gone = named ? { tombstones: [...namedGone.values()], broken: [] } : await listTombstones(store, project)
  for (const { task } of gone.tombstones) {
    if (seqs.has(task.id)) continue // a live copy wins
    if (!all && !namedGone.has(task.id)) {
      const last = lastActivity(task)
      if (last === null || last < now.getTime() - (sinceMs as number)) continue
    }
    seqs.set(task.id, task.seq)
    // Its file is not rewritten: a tombstone keeps the mapping it had when the task was removed.
    out.push({ ...recordView(task), status: 'removed', file: null })
  }
  out.sort((a, b) => (seqs.get(a.id as string) ?? 0) - (seqs.get(b.id as string) ?? 0))
  return { tasks: out, skipped: [...skipped, ...gone.broken.map((b) => ({ path: b.path, reason: b.reason }))] }
}

/**
 * The tasks sync's push half would see after its pull half: linked tasks carry their new mapping, and each issue
 * to be created stands in as a new open task (inside any --since window, being created now; no REF can name it).
 */
export function afterAdoption(
  tasks: readonly OutTask[],
  plan: readonly PlannedIssue[],
  repo: string,
  window: { refs: readonly string[]; sinceMs: number | null },
): OutTask[] {
  const links = new Map(plan.filter((p) => p.outcome === 'link').map((p) => [p.taskId, p.issue.number]))
  const out = tasks.map((t) => {
    const n = t.id === null ? undefined : links.get(t.id)
    return n === undefined ? t : { ...t, github: { issue: n, repo } }
  })
  if (window.refs.length === 0 || window.sinceMs !== null) {
    for (const p of plan.filter((x) => x.outcome === 'create')) {
      out.push({
        id: null,
        ref: null,
        title: taskTitle(p.issue.title, p.issue.number),
        status: 'open',
        priority: null,
        so_that: null,
        labels: adoptedLabels(p.issue.labels),
        milestone: adoptedMilestone(p.issue.milestone),
        acceptance: p.acceptance.criteria.map((text) => ({ text, checked: false })),
        github: { issue: p.issue.number, repo },
        file: null,
      })
    }
  }
  return out
}
