// Why a task's pull request is where it is: pure. The facts GitHub gave (the pull request, its reviews, the
// checks on its head, the commits its base has that the head lacks) in; one code, the evidence for it, and
// what to do next out. The code is the first that applies, in the order of CODES after merged/closed.

import type { CheckRun, Pull, Review, StatusContext } from '../../adapters/github/client.js'
import { cmd } from '../../base/commands.js'
import { CODES, EVIDENCE_KINDS } from './kinds.js'

export type DiagnosisCode = (typeof CODES)[number]

export type EvidenceKind = (typeof EVIDENCE_KINDS)[number]

export interface Evidence {
  kind: EvidenceKind
  /** The check, reviewer or commit it names, or null. */
  name: string | null
  detail: string
}

export interface PrFacts {
  pull: Pull
  reviews: readonly Review[]
  checks: readonly CheckRun[]
  statuses: readonly StatusContext[]
  /** Commits the base has that the head lacks (read when GitHub says the head is behind), else null. */
  behind: readonly { sha: string; subject: string }[] | null
}

export interface Diagnosis {
  code: DiagnosisCode
  evidence: Evidence[]
  next_actions: string[]
  checks: { passed: string[]; pending: string[]; failed: string[] }
  reviews: { approved: string[]; changes_requested: string[]; requested: string[] }
}

const FAILED = new Set(['failure', 'timed_out', 'cancelled', 'action_required', 'stale', 'startup_failure'])

/** Each reviewer's latest deciding review (a comment decides nothing; a dismissal withdraws). */
function standing(reviews: readonly Review[]) {
  const by = new Map<string, Review['state']>()
  for (const r of reviews) {
    if (r.user === null || r.state === 'COMMENTED' || r.state === 'PENDING') continue
    by.set(r.user, r.state)
  }
  const who = (s: Review['state']) => [...by].filter(([, v]) => v === s).map(([u]) => u)
  return { approved: who('APPROVED'), changes_requested: who('CHANGES_REQUESTED') }
}

function checkStates(f: PrFacts) {
  const passed: string[] = []
  const pending: string[] = []
  const failed: string[] = []
  for (const c of f.checks) {
    if (c.status !== 'completed' || c.conclusion === null) pending.push(c.name)
    else if (FAILED.has(c.conclusion)) failed.push(c.name)
    else passed.push(c.name)
  }
  for (const s of f.statuses) {
    if (s.state === 'pending') pending.push(s.context)
    else if (s.state === 'success') passed.push(s.context)
    else failed.push(s.context)
  }
  return { passed, pending, failed }
}

/** The diagnosis of a task without a pull request. */
export function noPull(ref: string, searched: readonly string[]): Diagnosis {
  return {
    code: 'no_pr',
    evidence: searched.map((s) => ({ kind: 'searched', name: null, detail: s })),
    next_actions: [cmd(`pr open ${ref}`)],
    checks: { passed: [], pending: [], failed: [] },
    reviews: { approved: [], changes_requested: [], requested: [] },
  }
}

/**
 * `unchecked`: the numbers of the task's unchecked criteria. A ready pull request whose task still has some is not
 * landed by `pr land` (it closes the task, and refuses while criteria are open), so checking them comes first.
 */
export function diagnose(ref: string, f: PrFacts, taskDone: boolean, unchecked: readonly number[] = []): Diagnosis {
  const p = f.pull
  const checks = checkStates(f)
  const rv = standing(f.reviews)
  const requested = [...p.requested_reviewers]
  const reviews = { ...rv, requested }
  const out = (code: DiagnosisCode, evidence: Evidence[], next: string[]): Diagnosis => ({
    code,
    evidence,
    next_actions: next,
    checks,
    reviews,
  })
  const pr = `#${p.number}`
  if (p.merged) {
    return out(
      'merged',
      [
        {
          kind: 'merged',
          name: p.merge_commit_sha,
          detail: `${pr} was merged into ${p.base.ref}${p.merged_at ? ` at ${p.merged_at}` : ''}`,
        },
      ],
      taskDone ? [] : [cmd(`task done ${ref}`)],
    )
  }
  if (p.state === 'closed') {
    return out(
      'closed',
      [{ kind: 'closed', name: null, detail: `${pr} was closed without merging` }],
      [`reopen ${pr} on GitHub, or open a new one: ${cmd(`pr open ${ref}`)}`],
    )
  }
  if (p.draft) {
    return out(
      'draft',
      [{ kind: 'draft', name: null, detail: `${pr} is a draft` }],
      [`mark ${pr} ready for review on GitHub`],
    )
  }
  if (p.mergeable === false || p.mergeable_state === 'dirty') {
    return out(
      'merge_conflict',
      [{ kind: 'conflict', name: p.head.ref, detail: `${p.head.ref} does not merge cleanly into ${p.base.ref}` }],
      [`in ${p.head.ref}: git fetch origin && git merge origin/${p.base.ref}, resolve the conflicts, push`],
    )
  }
  if (p.mergeable_state === 'behind') {
    const missing = f.behind ?? []
    return out(
      'stale_base',
      missing.length > 0
        ? missing.map((c) => ({
            kind: 'missing_commit',
            name: c.sha,
            detail: `${p.base.ref} has ${c.sha.slice(0, 12)} ${c.subject}`,
          }))
        : [{ kind: 'missing_commit', name: null, detail: `${p.head.ref} is behind ${p.base.ref}` }],
      [`bring ${p.head.ref} up to date: git fetch origin && git merge origin/${p.base.ref} (or rebase), then push`],
    )
  }
  const pendingEv: Evidence[] = checks.pending.map((n) => ({
    kind: 'check_pending',
    name: n,
    detail: `${n} has not finished`,
  }))
  if (p.mergeable === null) {
    pendingEv.push({
      kind: 'mergeability_unknown',
      name: null,
      detail: 'GitHub is still computing whether it merges cleanly',
    })
  }
  const failedEv: Evidence[] = checks.failed.map((n) => ({ kind: 'check_failed', name: n, detail: `${n} failed` }))
  if (pendingEv.length > 0) {
    // Pending comes first (the spec's order), but a check that failed already is named too: waiting for the rest
    // will not make the pull request ready while it stands.
    return out(
      'checks_pending',
      [...pendingEv, ...failedEv],
      failedEv.length === 0
        ? [cmd(`pr wait ${ref} --until ready`)]
        : [
            `fix what ${checks.failed.join(', ')} report${checks.failed.length === 1 ? 's' : ''}, then push to ${p.head.ref}`,
            cmd(`pr wait ${ref} --until ready`),
          ],
    )
  }
  if (checks.failed.length > 0) {
    return out('checks_failed', failedEv, [
      `fix what ${checks.failed.join(', ')} report${checks.failed.length === 1 ? 's' : ''}, then push to ${p.head.ref}`,
    ])
  }
  if (rv.changes_requested.length > 0) {
    return out(
      'changes_requested',
      rv.changes_requested.map((u) => ({ kind: 'changes_requested_by', name: u, detail: `${u} requested changes` })),
      [`address the review of ${rv.changes_requested.join(', ')}, push to ${p.head.ref}, and ask for a new review`],
    )
  }
  const waitingOn = requested.filter((u) => !rv.approved.includes(u))
  if (p.mergeable_state === 'blocked' || (waitingOn.length > 0 && rv.approved.length === 0)) {
    const ev: Evidence[] = waitingOn.map((u) => ({
      kind: 'reviewer_requested',
      name: u,
      detail: `review requested from ${u}`,
    }))
    if (ev.length === 0) {
      ev.push({
        kind: 'approval_required',
        name: null,
        detail: `${p.base.ref}'s protection requires more approvals (${rv.approved.length} so far)`,
      })
    }
    return out('approval_pending', ev, [
      waitingOn.length > 0 ? `ask ${waitingOn.join(', ')} to review ${pr}` : `get ${pr} approved`,
    ])
  }
  return out(
    'ready',
    [
      ...checks.passed.map((n) => ({ kind: 'check_passed' as const, name: n, detail: `${n} passed` })),
      ...rv.approved.map((u) => ({ kind: 'approved_by' as const, name: u, detail: `${u} approved` })),
    ],
    [
      ...(unchecked.length === 0 || taskDone
        ? []
        : [cmd(`task check ${ref} ${unchecked.map((n) => `--n ${n}`).join(' ')} --verify "<command that proves it>"`)]),
      cmd(`pr land ${ref}`),
    ],
  )
}

export { CODES, EVIDENCE_KINDS }
