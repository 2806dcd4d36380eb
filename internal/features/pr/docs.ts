// The pr slice's documents and human lines, built from what the domain found.

import type { Pull } from '../../adapters/github/client.js'
import type { Out } from '../../clikit/io.js'
import type { LandPlan, OpenPlan } from '../../domain/delivery/prchange.js'
import { branchOf, type Diagnosed } from '../../domain/delivery/pulls.js'
import type { TaskRecord } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import type { PrBriefT, PrChangePreviewDocT, PrDiagnosisDocT, TaskBriefT } from './json.js'

export const taskBrief = (t: TaskRecord): TaskBriefT => ({
  id: t.id,
  ref: qualifiedRef(t),
  title: t.title,
  status: t.status,
  branch: branchOf(t),
})

export const prBrief = (p: Pull): PrBriefT => ({
  number: p.number,
  url: p.url,
  title: p.title,
  state: p.state,
  draft: p.draft,
  merged: p.merged,
  head: p.head.ref,
  head_sha: p.head.sha,
  base: p.base.ref,
  mergeable: p.mergeable,
  mergeable_state: p.mergeable_state,
  merge_commit_sha: p.merge_commit_sha,
})

export function diagnosisDoc(d: Diagnosed, now: Date): PrDiagnosisDocT {
  const { located: l, diagnosis: g } = d
  return {
    schema: 'pr-diagnosis/v1',
    version: 1,
    task: taskBrief(l.task),
    repository: l.repo,
    found_by: l.found_by,
    pr: l.pull === null ? null : prBrief(l.pull),
    code: g.code,
    evidence: g.evidence,
    next_actions: g.next_actions,
    checks: g.checks,
    reviews: g.reviews,
    observed_at: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  }
}

/** One line: the task, the pull request and the code. */
export const headline = (doc: PrDiagnosisDocT) =>
  `${doc.task.ref}  ${doc.pr === null ? 'no pull request' : `#${doc.pr.number} ${doc.pr.head} → ${doc.pr.base}`}  ${doc.code}`

export function renderDiagnosis(out: Out, doc: PrDiagnosisDocT): void {
  const tone =
    doc.code === 'ready' || doc.code === 'merged' ? 'green' : doc.code === 'checks_pending' ? 'yellow' : 'red'
  out.line(`${out.style('bold', doc.task.ref)}  ${doc.task.title}`)
  if (doc.pr !== null)
    out.line(`  PR #${doc.pr.number} ${doc.pr.url}  (${doc.pr.head} → ${doc.pr.base}, found by ${doc.found_by})`)
  out.line(`  ${out.style(tone, doc.code)}`)
  for (const e of doc.evidence) out.line(`    - ${e.detail}`)
  if (doc.next_actions.length > 0) {
    out.line('Next:')
    for (const n of doc.next_actions) out.line(`  ${n}`)
  }
}

/** The pr-change-preview/v1 document of `pr open --dry-run` or `pr land --dry-run`. */
export function previewDoc(p: OpenPlan | LandPlan): PrChangePreviewDocT {
  const opening = 'logs' in p
  return {
    schema: 'pr-change-preview/v1',
    version: 1,
    dry_run: true,
    task: taskBrief(p.task),
    repository: p.repo,
    action: p.action,
    push: opening ? p.push : null,
    pr: p.pull === null ? null : prBrief(p.pull),
    open: opening ? p.open : null,
    merge: opening ? null : p.merge,
    logs_pr_opened: opening ? p.logs : false,
    task_status: opening ? p.task.status : p.status,
  }
}

/** The preview's human lines: what would be done, then that nothing was. */
export function renderPreview(out: Out, doc: PrChangePreviewDocT): void {
  const pr = doc.pr === null ? '' : `#${doc.pr.number} ${doc.pr.url} (${doc.pr.head} → ${doc.pr.base})`
  const push = doc.push === null ? '' : `; branch: ${doc.push === 'pushed' ? 'would be pushed' : 'up to date'}`
  if (doc.action === 'open' && doc.open !== null)
    out.line(
      `would open a ${doc.open.draft ? 'draft ' : ''}pull request ${doc.open.head} → ${doc.open.base} titled "${doc.open.title}"${push}`,
    )
  else if (doc.action === 'reuse') out.line(`would reuse ${pr}${push}`)
  else if (doc.action === 'merge' && doc.merge !== null)
    out.line(
      `would merge (${doc.merge.method}) ${pr} at ${doc.merge.head_sha.slice(0, 12)}, then close ${doc.task.ref}`,
    )
  else if (doc.task.status === 'done') out.line(`${pr} is merged and ${doc.task.ref} is done: nothing to do`)
  else out.line(`${pr} is merged: would close ${doc.task.ref}`)
  if (doc.logs_pr_opened) out.line(`  ${doc.task.ref}'s log would note the pull request (pr-opened)`)
  out.line(out.style('dim', 'dry run: nothing was pushed, opened, merged or written'))
}
