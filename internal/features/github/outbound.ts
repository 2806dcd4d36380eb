// The push: tasks projected onto issues. One decision function serves the
// preview and the real run.
//
// Per task: the issue its `github:` block maps (in this repository) → update it;
// else an issue whose body carries the task's hidden marker
// `<!-- dacli:<task-id> ws:<workspace-id> -->` → adopt it (a push that was cut off
// after creating it); else create one. The marker is found by reading the
// issues list, which is strongly consistent; the search API is not, and would
// let an interrupted push create a twin.
//
// What dacli changes on an issue: the `status:`/`priority:` labels (other labels
// are kept), the state (closed when the task is done, open otherwise), and —
// only on issues it authored, i.e. that carry this task's marker — the title and
// body. A human-written issue adopted by `github pull` keeps its words.

import { createHash } from 'node:crypto'
import type { GitHubClient, Issue } from '../../github/client.js'
import { type Status, type Store, stamp, type TaskFileRef, type TaskRecord, UsageError } from '../../store/index.js'
import { fileRefOf } from '../../store/store.js'
import { setBlock } from './adopt.js'
import type { PushItemT, PushPreviewDocT, PushResultDocT } from './json.js'
import { pageOf } from './plan.js'
import { sameRepo } from './repo.js'

export interface OutTask {
  /** null for a task a sync's pull half would create (previews only). */
  id: string | null
  ref: string | null
  title: string
  status: Status
  priority: string | null
  so_that: string | null
  acceptance: { text: string; checked: boolean }[]
  github: { issue: number | null; repo: string | null } | null
  file: (TaskFileRef & { id: string }) | null
}

type Field = 'title' | 'body' | 'labels' | 'state'

export interface Step {
  task: OutTask
  action: PushItemT['action']
  issue: Issue | null
  adopted: boolean
  /** The task's `github:` block must be written even if GitHub needs no change. */
  remap: boolean
  desired: { title: string; body: string; labels: string[]; state: 'open' | 'closed' }
  changes: Field[]
}

export interface PushPlan {
  steps: Step[]
  duplicates: PushResultDocT['duplicate_markers']
}

export const markerOf = (taskId: string, wsId: string) => `<!-- dacli:${taskId} ws:${wsId} -->`
const MARKERS = /<!-- dacli:(t-[0-9A-Za-z]+) ws:([0-9A-Za-z]+) -->/g
const MANAGED_LABEL = /^(status|priority):/i

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

/** The body of an issue dacli authors: its marker, why, the acceptance checklist, and where the truth lives. */
export function issueBody(t: OutTask, wsId: string): string {
  const parts: string[] = []
  if (t.id !== null) parts.push(markerOf(t.id, wsId))
  if (t.so_that) parts.push(`**So that** ${t.so_that.trim()}`)
  parts.push(
    '### Acceptance',
    t.acceptance.length === 0
      ? '_No acceptance criteria yet._'
      : t.acceptance.map((a) => `- [${a.checked ? 'x' : ' '}] ${a.text}`).join('\n'),
  )
  parts.push(
    `---\n_Mirrored from the dacli task \`${t.ref ?? t.title}\`. The task file in the repository is the source of truth: edit it there; changes made here are overwritten by the next \`dacli github push\`._`,
  )
  return `${parts.join('\n\n')}\n`
}

export function managedLabels(t: OutTask): string[] {
  return [`status:${t.status}`, ...(t.priority === null ? [] : [`priority:${t.priority}`])]
}

const normBody = (s: string) => s.replace(/\r\n?/g, '\n').trim()
const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort()
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i])

export function planPush(tasks: readonly OutTask[], issues: readonly Issue[], repo: string, wsId: string): PushPlan {
  const byNumber = new Map(issues.map((i) => [i.number, i]))
  const byMarker = new Map<string, Issue[]>()
  for (const i of [...issues].sort((a, b) => a.number - b.number)) {
    const ids = new Set([...i.body.matchAll(MARKERS)].filter((m) => m[2] === wsId).map((m) => m[1] as string))
    for (const id of ids) byMarker.set(id, [...(byMarker.get(id) ?? []), i])
  }
  const duplicates = [...byMarker.entries()]
    .filter(([, list]) => list.length > 1)
    .map(([task_id, list]) => ({
      task_id,
      kept: (list[0] as Issue).number,
      others: list.slice(1).map((i) => i.number),
    }))
    .sort((a, b) => a.kept - b.kept)

  const used = new Set<number>()
  const steps: Step[] = []
  for (const t of tasks) {
    const g = t.github
    const mappedHere = g !== null && g.issue !== null && (g.repo === null || sameRepo(g.repo, repo))
    let issue: Issue | null = null
    let adopted = false
    if (mappedHere) {
      const i = byNumber.get(g.issue as number)
      if (i !== undefined && !used.has(i.number)) issue = i
    }
    if (issue === null && t.id !== null) {
      const i = byMarker.get(t.id)?.find((x) => !used.has(x.number))
      if (i !== undefined) {
        issue = i
        adopted = true
      }
    }
    if (issue !== null) used.add(issue.number)
    const remap =
      issue !== null && !(mappedHere && g?.issue === issue.number && g.repo !== null && sameRepo(g.repo, repo))
    const owns = issue === null || (t.id !== null && issue.body.includes(markerOf(t.id, wsId)))
    const managed = managedLabels(t)
    const desired = {
      title: owns || issue === null ? t.title : issue.title,
      body: owns || issue === null ? issueBody(t, wsId) : issue.body,
      labels: sorted(issue === null ? managed : [...issue.labels.filter((l) => !MANAGED_LABEL.test(l)), ...managed]),
      state: (t.status === 'done' ? 'closed' : 'open') as 'open' | 'closed',
    }
    const changes: Field[] = []
    let action: Step['action'] = 'create'
    if (issue !== null) {
      if (owns && issue.title !== desired.title) changes.push('title')
      if (owns && normBody(issue.body) !== normBody(desired.body)) changes.push('body')
      if (!sameList(sorted(issue.labels), desired.labels)) changes.push('labels')
      if (issue.state !== desired.state) changes.push('state')
      action =
        changes.length === 0
          ? 'unchanged'
          : changes.includes('state') && desired.state === 'closed'
            ? 'close'
            : 'update'
    }
    steps.push({ task: t, action, issue, adopted, remap, desired, changes })
  }
  return { steps, duplicates }
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

export function digestOf(repository: string, items: readonly PushItemT[], duplicates: PushPlan['duplicates']): string {
  const text = JSON.stringify({ repository, items, duplicates })
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
    output_digest: digestOf(repository, items, plan.duplicates),
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
  warn: (m: string) => void,
): Promise<OutTask[]> {
  const listing = await store.listTasks(project)
  for (const b of listing.broken) warn(`skipped ${b.path}: ${b.reason}`)
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
  return out
}

export interface PushApply {
  store: Store
  client: GitHubClient
  actor: string
  repo: string
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
        const created = await a.client.createIssue(a.repo, {
          title: s.desired.title,
          body: s.desired.body,
          labels: s.desired.labels,
        })
        n = created.number
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
  }
}
