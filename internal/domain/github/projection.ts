// Projecting tasks onto GitHub issues: what each task's issue
// should look like and what has to change. Pure: the preview and the real push
// decide with this one function.
//
// Per task: the issue its `github:` block maps (in this repository); else an
// issue whose body carries the task's hidden marker
// `<!-- dacli:<task-id> ws:<workspace-id> -->` (adopted: a push that was cut off
// after creating it); else a new issue. The caller reads the markers from the
// issues list, which is strongly consistent — never from search, which is not.
//
// What dacli changes on an issue: the `status:`/`priority:` labels (other
// labels are kept), the state (closed when the task is done or removed, open otherwise; a removed task's issue is
// labelled `status:removed`, and a removed task without an issue gets none),
// and — only on issues it authored, i.e. carrying this task's marker — the
// title and body. A human-written issue keeps its words.
//
// It writes only what differs: an issue with no `status:` label already says
// what its state says (open → `status:open`, closed → `status:done`), and a task
// with no priority leaves the issue's `priority:` labels alone — so the first
// push after adopting issues rewrites none of them unless a task moved on.
//
// A task's own labels (`labels:`) are added to its issue's, and its milestone (`milestone:`) becomes the issue's; a
// label taken off a task is not taken off the issue (dacli cannot tell it from one a person put there), and a task
// without a milestone leaves the issue's alone.

import { cmd } from '../../base/commands.js'
import { WORKSPACE_ID_TEXT } from '../../store/workspace.js'
import { sameRepo } from './adoptplan.js'

export interface ProjectedTask {
  /** null for a task that does not exist yet (a sync preview's stand-in for an issue about to be adopted). */
  id: string | null
  ref: string | null
  title: string
  status: string
  priority: string | null
  so_that: string | null
  labels: readonly string[]
  milestone: string | null
  acceptance: readonly { text: string; checked: boolean }[]
  github: { issue: number | null; repo: string | null } | null
}

export interface IssueState {
  number: number
  title: string
  body: string
  state: 'open' | 'closed'
  labels: readonly string[]
  milestone: string | null
}

export type Field = 'title' | 'body' | 'labels' | 'state' | 'milestone'
export type Action = 'create' | 'update' | 'close' | 'unchanged'

export interface Step<T extends ProjectedTask, I extends IssueState> {
  task: T
  action: Action
  issue: I | null
  /** The issue was found by its marker, not through the task's block. */
  adopted: boolean
  /** The task's `github:` block must be written even when GitHub needs no change. */
  remap: boolean
  desired: { title: string; body: string; labels: string[]; state: 'open' | 'closed'; milestone: string | null }
  changes: Field[]
}

export interface DuplicateMarker {
  task_id: string
  kept: number
  others: number[]
}

export interface Projection<T extends ProjectedTask, I extends IssueState> {
  steps: Step<T, I>[]
  /** Issues carrying the same marker: the lowest number is used, the others are left alone. */
  duplicates: DuplicateMarker[]
}

export const markerOf = (taskId: string, wsId: string) => `<!-- dacli:${taskId} ws:${wsId} -->`
/**
 * A line that is a marker and nothing else: group 1 the task id, group 2 the workspace id (any id a workspace opens
 * with: `.`, `_` and `-` included, none of which can end the comment).
 */
const MARKER_LINE = new RegExp(`^<!-- dacli:(t-[0-9A-Za-z]+) ws:(${WORKSPACE_ID_TEXT}) -->$`)

/** A marker dacli wrote: the task id and the workspace id. */
export interface Marker {
  task: string
  ws: string
}

const lineMarker = (line: string): Marker | null => {
  const m = MARKER_LINE.exec(line.trim())
  return m === null ? null : { task: m[1] as string, ws: m[2] as string }
}
const linesOf = (text: string) => text.replace(/\r\n?/g, '\n').trim().split('\n')

/**
 * The marker of an issue body dacli wrote: its first line, exactly as `issueBody` writes it. A marker quoted
 * further down (task text, a person's edit) names nothing.
 */
export const issueMarker = (body: string): Marker | null => lineMarker(linesOf(body)[0] ?? '')

/**
 * The marker of a pull request body dacli wrote (domain/delivery/prchange.ts `pullBody`): the last line that is a
 * marker by itself, which dacli writes after every text of the task. One inside a line names nothing.
 */
export function pullMarker(body: string): Marker | null {
  const lines = linesOf(body)
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = lineMarker(lines[i] as string)
    if (m !== null) return m
  }
  return null
}

/** Task text written into an issue or pull request body, with a marker-looking comment made visible text. */
export const inert = (text: string) => text.replace(/<!--(?=\s*dacli:)/gi, '&lt;!--')
const STATUS_LABEL = /^status:/i
const PRIORITY_LABEL = /^priority:/i

/** The body of an issue dacli authors: its marker, why, the acceptance checklist, and where the truth lives. */
export function issueBody(t: ProjectedTask, wsId: string): string {
  const parts: string[] = []
  if (t.id !== null) parts.push(markerOf(t.id, wsId))
  if (t.so_that) parts.push(`**So that** ${inert(t.so_that.trim())}`)
  parts.push(
    '### Acceptance',
    t.acceptance.length === 0
      ? '_No acceptance criteria yet._'
      : t.acceptance.map((a) => `- [${a.checked ? 'x' : ' '}] ${inert(a.text)}`).join('\n'),
  )
  parts.push(
    `---\n_Mirrored from the dacli task \`${t.ref ?? t.title}\`. The task file in the repository is the source of truth: edit it there; changes made here are overwritten by the next \`${cmd('github push')}\`._`,
  )
  return `${parts.join('\n\n')}\n`
}

function managedLabels(t: ProjectedTask): string[] {
  return [`status:${t.status}`, ...(t.priority === null ? [] : [`priority:${t.priority}`]), ...t.labels]
}

/** The labels an issue ends with: its own, with the status (and, when the task has one, the priority) replaced. */
function labelsFor(t: ProjectedTask, issue: IssueState | null): string[] {
  const managed = managedLabels(t)
  if (issue === null) return sorted(managed)
  const kept = issue.labels.filter((l) => !STATUS_LABEL.test(l) && !(t.priority !== null && PRIORITY_LABEL.test(l)))
  return sorted([...kept, ...managed])
}

/** An issue's labels as dacli reads them: no `status:` label means the one its state implies. */
function effectiveLabels(issue: IssueState): string[] {
  if (issue.labels.some((l) => STATUS_LABEL.test(l))) return sorted(issue.labels)
  return sorted([...issue.labels, issue.state === 'closed' ? 'status:done' : 'status:open'])
}

const normBody = (s: string) => s.replace(/\r\n?/g, '\n').trim()
const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort()
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i])

export function project<T extends ProjectedTask, I extends IssueState>(
  tasks: readonly T[],
  issues: readonly I[],
  repo: string,
  wsId: string,
): Projection<T, I> {
  const byNumber = new Map(issues.map((i) => [i.number, i]))
  const byMarker = new Map<string, I[]>()
  for (const i of [...issues].sort((a, b) => a.number - b.number)) {
    const m = issueMarker(i.body)
    if (m !== null && m.ws === wsId) byMarker.set(m.task, [...(byMarker.get(m.task) ?? []), i])
  }
  const duplicates = [...byMarker.entries()]
    .filter(([, list]) => list.length > 1)
    .map(([task_id, list]) => ({ task_id, kept: (list[0] as I).number, others: list.slice(1).map((i) => i.number) }))
    .sort((a, b) => a.kept - b.kept)

  // An issue serves one task: a second claim on it (a copied block, a stray marker) falls through.
  const used = new Set<number>()
  const steps: Step<T, I>[] = []
  for (const t of tasks) {
    const g = t.github
    const mappedHere = g !== null && g.issue !== null && (g.repo === null || sameRepo(g.repo, repo))
    let issue: I | null = null
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
    if (issue === null && t.status === 'removed') continue // a removed task never gets an issue
    if (issue !== null) used.add(issue.number)
    const remap =
      issue !== null && !(mappedHere && g?.issue === issue.number && g.repo !== null && sameRepo(g.repo, repo))
    const mark = issue === null ? null : issueMarker(issue.body)
    const owns = issue === null || (t.id !== null && mark?.task === t.id && mark.ws === wsId)
    const desired = {
      title: owns || issue === null ? t.title : issue.title,
      body: owns || issue === null ? issueBody(t, wsId) : issue.body,
      labels: labelsFor(t, issue),
      state: (t.status === 'done' || t.status === 'removed' ? 'closed' : 'open') as 'open' | 'closed',
      milestone: t.milestone ?? issue?.milestone ?? null,
    }
    const changes: Field[] = []
    let action: Action = 'create'
    if (issue !== null) {
      if (owns && issue.title !== desired.title) changes.push('title')
      if (owns && normBody(issue.body) !== normBody(desired.body)) changes.push('body')
      if (!sameList(effectiveLabels(issue), desired.labels)) changes.push('labels')
      if (issue.state !== desired.state) changes.push('state')
      if ((issue.milestone ?? null) !== desired.milestone) changes.push('milestone')
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
