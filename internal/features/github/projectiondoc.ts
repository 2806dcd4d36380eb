// The projection view (`github projection`): the push plan's decisions per task (domain/github/projection.ts, the
// same function a push runs), each task's pull request found in one listing of the repository's pull requests (by
// the task's branch, a pull request URL in the task, or the task's marker in a body: domain/delivery/pulls.ts), and
// the issues that carry this workspace's marker for no task at all. Pure: values in, the document's parts out.

import type { Issue } from '../../adapters/github/client.js'
import type { Pull } from '../../adapters/github/pulls.js'
import { branchOf, headIn, linkedNumbers, markedFor } from '../../domain/delivery/pulls.js'
import { issueMarker, markerOf } from '../../domain/github/projection.js'
import type { PushPlan } from '../../domain/github/pushwindow.js'
import type { TaskRecord } from '../../format/model.js'
import type { ProjectionDocT } from './json.js'

type Item = ProjectionDocT['items'][number]

/** Of several pull requests for one task: an open one, else the newest merged, else the newest (as pulls.ts). */
function pick(pulls: readonly Pull[]): Pull | null {
  const byNew = [...pulls].sort((a, b) => b.number - a.number)
  return byNew.find((p) => p.state === 'open') ?? byNew.find((p) => p.merged) ?? byNew[0] ?? null
}

function pullOf(t: TaskRecord | undefined, pulls: readonly Pull[], repo: string): Item['pr'] {
  if (t === undefined) return null
  const found = (p: Pull | null, by: 'branch' | 'link' | 'marker'): Item['pr'] =>
    p === null
      ? null
      : { number: p.number, url: p.url, state: p.merged ? 'merged' : p.state, draft: p.draft, found_by: by }
  const branch = branchOf(t)
  if (branch !== null) {
    const p = pick(pulls.filter((x) => x.head.ref === branch && headIn(x, repo)))
    if (p !== null) return found(p, 'branch')
  }
  const linked = linkedNumbers(t, repo)
  const last = linked[linked.length - 1]
  if (last !== undefined) {
    const p = pulls.find((x) => x.number === last)
    if (p !== undefined) return found(p, 'link')
  }
  return found(pick(pulls.filter((x) => markedFor(x, t.id))), 'marker')
}

export function projectionItems(
  plan: PushPlan,
  pulls: readonly Pull[],
  issues: readonly Issue[],
  records: ReadonlyMap<string, TaskRecord>,
  known: ReadonlySet<string>,
  repo: string,
  wsId: string,
  opts: { internal: boolean; terminal: boolean },
): { items: Item[]; counts: ProjectionDocT['counts']; orphans: ProjectionDocT['orphans'] } {
  const all: Item[] = []
  let hidden = 0
  let withPr = 0
  for (const s of plan.steps) {
    const t = s.task
    // A tombstone is not in a projection's window (windowTasks without `removed`): its marked issue is an orphan.
    if (t.id === null || t.ref === null || t.status === 'removed') continue
    const mapped = t.github?.issue ?? null
    const sync: Item['sync'] =
      s.issue === null
        ? mapped !== null
          ? 'issue_missing'
          : 'no_issue'
        : s.action === 'unchanged'
          ? s.remap
            ? 'unrecorded'
            : 'in_sync'
          : 'drift'
    const item: Item = {
      task_id: t.id,
      ref: t.ref,
      title: t.title,
      status: t.status,
      issue:
        s.issue === null
          ? null
          : { number: s.issue.number, state: s.issue.state, found_by: s.adopted ? 'marker' : 'block' },
      recorded_issue: mapped,
      action: s.action,
      changes: s.changes,
      sync,
      pr: pullOf(records.get(t.id), pulls, repo),
      ...(opts.internal
        ? {
            internal: {
              marker: markerOf(t.id, wsId),
              title: s.desired.title,
              labels: s.desired.labels,
              state: s.desired.state,
              milestone: s.desired.milestone,
            },
          }
        : {}),
    }
    if (item.pr !== null) withPr++
    if (!opts.terminal && t.status === 'done' && sync === 'in_sync' && s.issue?.state === 'closed') {
      hidden++
      continue
    }
    all.push(item)
  }
  const counted = plan.steps.filter((s) => s.task.id !== null)
  const orphans: ProjectionDocT['orphans'] = []
  for (const i of [...issues].sort((a, b) => a.number - b.number)) {
    const m = issueMarker(i.body)
    if (m !== null && m.ws === wsId && !known.has(m.task))
      orphans.push({ issue_number: i.number, title: i.title, state: i.state, task_id: m.task })
  }
  const steps = counted.length
  return {
    items: all,
    orphans,
    counts: {
      tasks: steps,
      in_sync: counted.filter((s) => s.issue !== null && s.action === 'unchanged' && !s.remap).length,
      drift: counted.filter((s) => s.issue !== null && s.action !== 'unchanged').length,
      create: counted.filter((s) => s.action === 'create').length,
      close: counted.filter((s) => s.action === 'close').length,
      with_pr: withPr,
      terminal_hidden: hidden,
    },
  }
}
