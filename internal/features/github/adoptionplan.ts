// The adoption plan (github-adoption-plan/v1): the classification of
// internal/engines/adoption.ts over the project's tasks, and its document —
// whole-plan counts, one bounded page ordered by issue number, spread over the
// five category arrays.

import { CATEGORIES, type Category, classify, type Planned } from '../../engines/adoption.js'
import type { Issue } from '../../github/client.js'
import type { TaskSummary } from '../../store/index.js'
import type { AdoptionPlanDocT, PlanItemT } from './json.js'
import { pageOf } from './paging.js'
import type { Prepared } from './preflight.js'

export { CATEGORIES, type Category }
export type PlannedIssue = Planned<Issue>

/** Classify the issues against the project's tasks (unreadable task files are announced, not guessed at). */
export async function inboundPlan(
  p: Prepared,
  project: string,
  repo: string,
  issues: readonly Issue[],
): Promise<{ plan: PlannedIssue[]; tasks: TaskSummary[] }> {
  const listing = await p.store.listTasks(project)
  for (const b of listing.broken) p.warn(`skipped ${b.path}: ${b.reason}`)
  return { plan: classify(issues, listing.tasks, repo), tasks: listing.tasks }
}

/** Task id → `<project>/<NNN>-<slug>`, for the human rendering of a plan. */
export const refsOf = (tasks: readonly TaskSummary[]) =>
  new Map(tasks.map((t) => [t.id, `${t.project}/${String(t.seq).padStart(3, '0')}-${t.slug}`]))

export function planItem(p: PlannedIssue, includeAcceptance: boolean): PlanItemT {
  const item: PlanItemT = {
    issue_number: p.issue.number,
    title: p.issue.title,
    outcome: p.outcome,
    task_id: p.taskId,
    score: p.score,
    reason: p.reason,
  }
  // Only a created task gets criteria; a link never imports them.
  if (includeAcceptance && p.outcome === 'create') {
    item.acceptance = p.acceptance.criteria
    item.acceptance_ambiguities = p.acceptance.ambiguities
  }
  return item
}

export function countsOf(plan: readonly PlannedIssue[]): AdoptionPlanDocT['counts'] {
  const c = { create: 0, link: 0, already_mapped: 0, refused: 0, skipped: 0 }
  for (const p of plan) c[p.outcome]++
  return c
}

export function adoptionPlanDoc(
  project: string,
  repository: string,
  plan: readonly PlannedIssue[],
  opts: { limit: number; cursor: number; includeAcceptance: boolean },
): AdoptionPlanDocT {
  const { page, next_cursor, truncated } = pageOf(plan, opts.limit, opts.cursor)
  const doc: AdoptionPlanDocT = {
    schema: 'github-adoption-plan/v1',
    version: 1,
    project,
    repository,
    dry_run: true,
    total: plan.length,
    counts: countsOf(plan),
    limit: opts.limit,
    cursor: opts.cursor,
    next_cursor,
    truncated,
    create: [],
    link: [],
    already_mapped: [],
    refused: [],
    skipped: [],
  }
  for (const p of page) doc[p.outcome].push(planItem(p, opts.includeAcceptance))
  return doc
}
