// The pr slice's documents and human lines, built from what the domain found.

import type { Pull } from '../../adapters/github/client.js'
import type { Out } from '../../clikit/io.js'
import { branchOf, type Diagnosed } from '../../domain/delivery/pulls.js'
import type { TaskRecord } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import type { PrBriefT, PrDiagnosisDocT, TaskBriefT } from './json.js'

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
