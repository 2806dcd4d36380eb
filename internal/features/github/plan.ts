// The adoption plan (github.md): which issues would become tasks. One
// classification serves the preview and the apply, so a dry run cannot drift
// from what the real pull does.
//
// Per issue, first rule that fits:
//   mapped to a task of the project            → already_mapped
//   body carries any dacli marker              → skipped ("dacli marker": some dacli's projection)
//   closed                                     → skipped ("closed issue")
//   exact title match with a free open/active task → link ("exact title match")
//   exact title match, every such task taken   → refused ("exact match already taken")
//   near-duplicate title of an open/active task → refused ("possible duplicate")
//   otherwise                                  → create

import { nearestDuplicate } from '../../engines/similarity.js'
import type { Issue } from '../../github/client.js'
import type { TaskSummary } from '../../store/index.js'
import { type Acceptance, extractAcceptance } from './acceptance.js'
import type { AdoptionPlanDocT, PlanItemT } from './json.js'
import { sameRepo } from './repo.js'

export type Category = 'create' | 'link' | 'already_mapped' | 'refused' | 'skipped'
export const CATEGORIES: readonly Category[] = ['create', 'link', 'already_mapped', 'refused', 'skipped']

export interface Planned {
  issue: Issue
  outcome: Category
  taskId: string | null
  score: number | null
  reason: string | null
  acceptance: Acceptance
}

export const DACLI_MARKER = '<!-- dacli:'

const norm = (t: string) => t.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()

/** The task a project maps to issue `n` of `repo`, by issue number. */
export function mappedIssues(tasks: readonly TaskSummary[], repo: string): Map<number, TaskSummary> {
  const out = new Map<number, TaskSummary>()
  for (const t of [...tasks].sort((a, b) => a.seq - b.seq)) {
    const g = t.github
    if (g === null || g.issue === null) continue
    if (g.repo !== null && !sameRepo(g.repo, repo)) continue
    if (!out.has(g.issue)) out.set(g.issue, t)
  }
  return out
}

export function classify(issues: readonly Issue[], tasks: readonly TaskSummary[], repo: string): Planned[] {
  const mapped = mappedIssues(tasks, repo)
  const live = tasks.filter((t) => t.status === 'open' || t.status === 'active').sort((a, b) => a.seq - b.seq)
  const claimed = new Set<string>()
  const out: Planned[] = []
  for (const issue of [...issues].sort((a, b) => a.number - b.number)) {
    const base = { issue, taskId: null, score: null, reason: null, acceptance: extractAcceptance(issue.body) }
    const owner = mapped.get(issue.number)
    if (owner !== undefined) {
      out.push({ ...base, outcome: 'already_mapped', taskId: owner.id })
      continue
    }
    if (issue.body.includes(DACLI_MARKER)) {
      out.push({ ...base, outcome: 'skipped', reason: 'dacli marker' })
      continue
    }
    if (issue.state === 'closed') {
      out.push({ ...base, outcome: 'skipped', reason: 'closed issue' })
      continue
    }
    const exact = live.filter((t) => norm(t.title) === norm(issue.title))
    if (exact.length > 0) {
      const free = exact.find((t) => t.github?.issue == null && !claimed.has(t.id))
      if (free !== undefined) {
        claimed.add(free.id)
        out.push({ ...base, outcome: 'link', taskId: free.id, score: 1, reason: 'exact title match' })
      } else {
        const taken = exact[0] as TaskSummary
        out.push({ ...base, outcome: 'refused', taskId: taken.id, score: 1, reason: 'exact match already taken' })
      }
      continue
    }
    const twin = nearestDuplicate(issue.title, live)
    if (twin !== null) {
      const score = Math.round(twin.jaccard * 1000) / 1000
      out.push({ ...base, outcome: 'refused', taskId: twin.id, score, reason: 'possible duplicate' })
      continue
    }
    out.push({ ...base, outcome: 'create' })
  }
  return out
}

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

export function planItem(p: Planned, includeAcceptance: boolean): PlanItemT {
  const item: PlanItemT = {
    issue_number: p.issue.number,
    title: p.issue.title,
    outcome: p.outcome,
    task_id: p.taskId,
    score: p.score,
    reason: p.reason,
  }
  if (includeAcceptance && p.outcome === 'create') {
    item.acceptance = p.acceptance.criteria
    item.acceptance_ambiguities = p.acceptance.ambiguities
  }
  return item
}

export function countsOf(plan: readonly Planned[]): AdoptionPlanDocT['counts'] {
  const c = { create: 0, link: 0, already_mapped: 0, refused: 0, skipped: 0 }
  for (const p of plan) c[p.outcome]++
  return c
}

export function adoptionPlanDoc(
  project: string,
  repository: string,
  plan: readonly Planned[],
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
