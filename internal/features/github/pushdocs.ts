// The push documents: github-push-preview/v1 (what a push would do, paged, with
// a digest over the whole preview) and github-push-result/v1 (what it did, item
// by item, with the retry policy's accounting).

import { createHash } from 'node:crypto'
import { pageOf } from '../../domain/github/paging.js'
import type { PushRunResult } from '../../domain/github/pushapply.js'
import type { PushPlan, Step } from '../../domain/github/pushwindow.js'
import type { PushItemT, PushOutcomeT, PushPreviewDocT, PushResultDocT, PushResultItemT } from './json.js'

function itemOf(s: Step, issueNumber: number | null = s.issue?.number ?? null): PushItemT {
  return {
    task_id: s.task.id,
    ref: s.task.ref,
    title: s.task.title,
    action: s.action,
    issue_number: issueNumber,
    adopted: s.adopted,
    state: s.desired.state,
    labels: s.desired.labels,
    milestone: s.desired.milestone,
    changes: s.changes,
  }
}

function pushCounts(items: readonly PushItemT[]): PushPreviewDocT['counts'] {
  const c = { create: 0, update: 0, close: 0, unchanged: 0 }
  for (const i of items) c[i.action]++
  return c
}

function digestOf(repository: string, items: readonly PushItemT[], plan: PushPlan): string {
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

function outcomeCounts(items: readonly PushResultItemT[]): Record<PushOutcomeT, number> {
  const c = { created: 0, updated: 0, closed: 0, unchanged: 0, adopted: 0, failed: 0 }
  for (const i of items) c[i.outcome]++
  return c
}

export function pushResultDoc(project: string, repository: string, run: PushRunResult): PushResultDocT {
  const { plan } = run
  const items: PushResultItemT[] = run.results.map((r) => ({
    ...itemOf(r.step, r.issue),
    outcome: r.outcome,
    reason: r.reason,
    attempts: r.attempts,
  }))
  return {
    schema: 'github-push-result/v1',
    version: 1,
    project,
    repository,
    dry_run: false,
    total: items.length,
    counts: pushCounts(items),
    adopted: items.filter((i) => i.adopted).length,
    outcomes: outcomeCounts(items),
    items,
    duplicate_markers: plan.duplicates,
    skipped: plan.skipped,
    stopped: run.stopped,
    retry: run.client.retries(),
    rate_limit: run.client.quota(),
  }
}
