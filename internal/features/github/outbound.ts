// The push around the decisions of internal/engines/projection.ts: which
// tasks are in the window, performing the writes in task order (each issue
// number written back as soon as the issue exists), and the documents.

import { createHash } from 'node:crypto'
import {
  type Step as EngineStep,
  markerOf,
  type ProjectedTask,
  type Projection,
  project,
} from '../../engines/projection.js'
import type { GitHubClient, Issue } from '../../github/client.js'
import { type Store, stamp, type TaskFileRef, type TaskRecord, UsageError } from '../../store/index.js'
import { fileRefOf } from '../../store/store.js'
import { setBlock } from './adopt.js'
import type { PushItemT, PushPreviewDocT, PushResultDocT } from './json.js'
import { pageOf } from './plan.js'

export interface OutTask extends ProjectedTask {
  status: TaskRecord['status']
  /** The task file (absent for a sync preview's stand-in). */
  file: (TaskFileRef & { id: string }) | null
}

export type Step = EngineStep<OutTask, Issue>
export type Skipped = PushResultDocT['skipped']
/** The engine's projection, plus the task files that could not be read (announced, never silently dropped). */
export type PushPlan = Projection<OutTask, Issue> & { skipped: Skipped }

export interface Window {
  tasks: OutTask[]
  skipped: Skipped
}

export const planPush = (w: Window, issues: readonly Issue[], repo: string, wsId: string): PushPlan => ({
  ...project(w.tasks, issues, repo, wsId),
  skipped: w.skipped,
})

export function recordView(t: TaskRecord): OutTask {
  return {
    id: t.id,
    ref: `${t.project}/${String(t.seq).padStart(3, '0')}-${t.slug}`,
    title: t.title,
    status: t.status,
    priority: t.priority,
    so_that: t.so_that,
    acceptance: t.acceptance.map((a) => ({ text: a.text, checked: a.checked })),
    github: t.github === null ? null : { issue: t.github.issue, repo: t.github.repo },
    file: null,
  }
}

export function itemOf(s: Step, issueNumber: number | null = s.issue?.number ?? null): PushItemT {
  return {
    task_id: s.task.id,
    ref: s.task.ref,
    title: s.task.title,
    action: s.action,
    issue_number: issueNumber,
    adopted: s.adopted,
    state: s.desired.state,
    labels: s.desired.labels,
    changes: s.changes,
  }
}

export function pushCounts(items: readonly PushItemT[]): PushPreviewDocT['counts'] {
  const c = { create: 0, update: 0, close: 0, unchanged: 0 }
  for (const i of items) c[i.action]++
  return c
}

export function digestOf(repository: string, items: readonly PushItemT[], plan: PushPlan): string {
  const text = JSON.stringify({ repository, items, duplicates: plan.duplicates, skipped: plan.skipped })
  return `sha256:${createHash('sha256').update(text).digest('hex')}`
}

export function pushPreviewDoc(
  project: string,
  repository: string,
  plan: PushPlan,
  opts: { limit: number; cursor: number },
): PushPreviewDocT {
  const items = plan.steps.map((s) => itemOf(s))
  const { page, next_cursor, truncated } = pageOf(items, opts.limit, opts.cursor)
  return {
    schema: 'github-push-preview/v1',
    version: 1,
    project,
    repository,
    dry_run: true,
    total: items.length,
    counts: pushCounts(items),
    adopted: items.filter((i) => i.adopted).length,
    limit: opts.limit,
    cursor: opts.cursor,
    next_cursor,
    truncated,
    items: page,
    duplicate_markers: plan.duplicates,
    skipped: plan.skipped,
    output_digest: digestOf(repository, items, plan),
  }
}

/** Last activity of a task: the latest of its creation and its log lines (null when undated). */
export function lastActivity(t: TaskRecord): number | null {
  const times = [t.created, ...t.log.map((l) => l.at)]
    .map((s) => (s === null ? Number.NaN : Date.parse(s)))
    .filter((n) => Number.isFinite(n))
  return times.length === 0 ? null : Math.max(...times)
}

/** The tasks a push covers: the named refs and/or those active within `sinceMs` (all tasks when neither is given). */
export async function windowTasks(
  store: Store,
  project: string,
  refs: readonly string[],
  sinceMs: number | null,
  now: Date,
): Promise<Window> {
  const listing = await store.listTasks(project)
  const files = new Map<string, TaskFileRef & { id: string }>()
  for (const ref of refs) {
    const f = await store.resolve(ref, { prefer: project })
    if (f.project !== project) {
      throw new UsageError(`${ref} is a task of project "${f.project}", not "${project}"`, {
        details: { ref, project: f.project },
        next: [`dacli github push ${f.project} ${ref}`],
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
  return { tasks: out, skipped: listing.broken.map((b) => ({ path: b.path, reason: b.reason })) }
}

export interface PushApply {
  store: Store
  client: GitHubClient
  actor: string
  repo: string
  wsId: string
  say: (message: string) => void
}

/** Perform the plan's writes, in task order, writing each issue number back as soon as the issue exists. */
export async function applyPush(a: PushApply, plan: PushPlan): Promise<PushItemT[]> {
  const items: PushItemT[] = []
  const total = plan.steps.length
  const busy = plan.steps.filter((s) => s.action !== 'unchanged').length
  let written = 0
  for (const s of plan.steps) {
    let n = s.issue?.number ?? null
    try {
      if (s.action === 'create') {
        const created = await a.client.createIssue(
          a.repo,
          { title: s.desired.title, body: s.desired.body, labels: s.desired.labels },
          { marker: markerOf(s.task.id as string, a.wsId) },
        )
        n = created.issue.number
        // Write the mapping first: if closing fails now, the next push updates the known issue.
        await writeBack(a, s, n, true)
        if (s.desired.state === 'closed') await a.client.updateIssue(a.repo, n, { state: 'closed' })
      } else if (s.changes.length > 0) {
        const fields: Record<string, unknown> = {}
        for (const c of s.changes) fields[c] = s.desired[c]
        await a.client.updateIssue(a.repo, n as number, fields)
        await writeBack(a, s, n as number, s.remap)
      } else if (s.remap) {
        await writeBack(a, s, n as number, true)
      }
    } catch (e) {
      const d = e as { details?: Record<string, unknown>; next?: string[] }
      if (d.details !== undefined && Array.isArray(d.next)) {
        d.details.stopped_at = s.task.ref
        d.details.pushed = items.length
        d.details.of = total
        d.next.unshift(
          're-run the push: it finds what was already written by the marker and converges without duplicates',
        )
      }
      throw e
    }
    items.push(itemOf(s, n))
    if (s.action !== 'unchanged') {
      written++
      if (written % 25 === 0 && written < busy) a.say(`push: ${written}/${busy} issues written…`)
    }
  }
  return items
}

async function writeBack(a: PushApply, s: Step, issue: number, newMapping: boolean): Promise<void> {
  const file = s.task.file
  if (file === null) return
  await a.store.editTask(file, a.actor, (edit) => {
    setBlock(edit.doc, 'github', { issue, repo: a.repo, synced_at: stamp(edit.now) })
    if (newMapping) edit.log('edited', `github: issue ${a.repo}#${issue}`)
    return true
  })
}

export function pushResultDoc(project: string, repository: string, items: PushItemT[], plan: PushPlan): PushResultDocT {
  return {
    schema: 'github-push-result/v1',
    version: 1,
    project,
    repository,
    dry_run: false,
    total: items.length,
    counts: pushCounts(items),
    adopted: items.filter((i) => i.adopted).length,
    items,
    duplicate_markers: plan.duplicates,
    skipped: plan.skipped,
  }
}
