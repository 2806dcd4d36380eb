// The adoption plan document (github-adoption-plan/v1) from the classification
// in internal/engines/adoption.ts: whole-plan counts, one bounded page ordered
// by issue number, spread over the five category arrays.

import { CATEGORIES, type Category, type Planned } from '../../engines/adoption.js'
import type { Issue } from '../../github/client.js'
import type { AdoptionPlanDocT, PlanItemT } from './json.js'

export { CATEGORIES, type Category }
export type PlannedIssue = Planned<Issue>

export interface Page<T> {
  page: T[]
  next_cursor: number | null
  truncated: boolean
}

/** Items [cursor, cursor + limit) of the whole list. */
export function pageOf<T>(all: readonly T[], limit: number, cursor: number): Page<T> {
  const page = all.slice(cursor, cursor + limit)
  const end = cursor + page.length
  return { page, next_cursor: end < all.length ? end : null, truncated: page.length < all.length }
}

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
