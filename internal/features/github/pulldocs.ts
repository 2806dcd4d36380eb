// The pull documents: github-adoption-plan/v1 (the plan internal/domain/github/adoption.ts made — whole-plan counts, one
// bounded page ordered by issue number, spread over the five category arrays) and github-pull-result/v1 (what
// applying it did).

import { type Adopted, adoptedLabels, adoptedMilestone, type PlannedIssue } from '../../domain/github/adoption.js'
import { pageOf } from '../../domain/github/paging.js'
import type { TaskSummary } from '../../format/model.js'
import type { AdoptionPlanDocT, PlanItemT, PullResultDocT } from './json.js'

/** Task id → `<project>/<NNN>-<slug>`, for the human rendering of a plan. */
export const refsOf = (tasks: readonly TaskSummary[]) =>
  new Map(tasks.map((t) => [t.id, `${t.project}/${String(t.seq).padStart(3, '0')}-${t.slug}`]))

function planItem(p: PlannedIssue, includeAcceptance: boolean): PlanItemT {
  const item: PlanItemT = {
    issue_number: p.issue.number,
    title: p.issue.title,
    outcome: p.outcome,
    task_id: p.taskId,
    score: p.score,
    reason: p.reason,
    labels: p.outcome === 'create' ? adoptedLabels(p.issue.labels) : [],
    milestone: p.outcome === 'create' ? adoptedMilestone(p.issue.milestone) : null,
  }
  // Only a created task gets criteria; a link never imports them.
  if (includeAcceptance && p.outcome === 'create') {
    item.acceptance = p.acceptance.criteria
    item.acceptance_ambiguities = p.acceptance.ambiguities
  }
  return item
}

function countsOf(plan: readonly PlannedIssue[]): AdoptionPlanDocT['counts'] {
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

export function pullResultDoc(
  project: string,
  repository: string,
  plan: readonly PlannedIssue[],
  adopted: Adopted,
): PullResultDocT {
  return {
    schema: 'github-pull-result/v1',
    version: 1,
    project,
    repository,
    dry_run: false,
    total: plan.length,
    ...adopted,
  }
}
