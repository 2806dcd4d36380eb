// `explain` for people: one line per part, the next action last.

import { formatDuration } from '../../base/duration.js'
import { count } from '../../base/text.js'
import type { Out } from '../../clikit/out.js'
import { oneDecimal, shortRef } from '../../clikit/text.js'
import { describeHold } from '../../domain/plan/readiness.js'
import type { ExplainDocT } from './json.js'

const excerpt = (s: string, n = 60) => {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > n ? `${t.slice(0, n - 1)}…` : t
}

function statusLine(d: ExplainDocT): string {
  const s = d.status
  if (s.value !== 'blocked') return s.value
  if (s.blocked_by_kind === 'question') return `blocked by the question ${s.blocked_by}`
  if (s.blocked_by_kind === 'task') return `blocked by ${shortRef(s.blocked_by_ref ?? s.blocked_by ?? '?')}`
  return `blocked${s.reason ? `: ${s.reason}` : ''}`
}

function readyLine(d: ExplainDocT): string {
  const r = d.readiness
  const holds = r.unmet.map((h) => describeHold(h, shortRef(h.ref))).join('; ')
  if (r.ready) return 'yes'
  const own = r.reason === 'waiting' ? '' : r.reason === 'wont' ? 'its priority is wont' : `it is ${r.reason}`
  return `no — ${[own, holds ? `waits on ${holds}` : ''].filter(Boolean).join('; ')}`
}

function nextLine(d: ExplainDocT): string {
  const s = d.schedule
  const where = s.rank === null ? `not offered (${s.why_unranked})` : `#${s.rank} of ${s.ready_count} ready`
  const slack = s.slack === null ? '' : ` · slack ${oneDecimal(s.slack)}`
  return `${where}${slack}${s.critical ? ' · on the critical path' : ''}`
}

function claimLine(d: ExplainDocT): string {
  const c = d.claim
  if (c.by === null) return 'nobody'
  const lease =
    c.lease_left_seconds === null
      ? 'no lease'
      : c.expired
        ? `lease ran out ${formatDuration(-c.lease_left_seconds * 1000) || '0s'} ago`
        : `${formatDuration(c.lease_left_seconds * 1000) || '0s'} of lease left`
  const where =
    c.where === 'local'
      ? 'in this clone'
      : c.other_clone !== null
        ? `another clone’s (${c.other_clone.host}), on ${c.remote} as of ${c.observed_at}`
        : `on ${c.remote}`
  const seen =
    c.remote_claim === null
      ? ''
      : ` (the remote’s view is ${formatDuration(c.remote_claim.fetch_age_seconds * 1000) || '0s'} old)`
  return `${c.by}, ${lease}, ${where}${seen}`
}

function questionsLine(d: ExplainDocT): string {
  const q = d.questions
  const settled = [q.answered > 0 ? `${q.answered} answered` : '', q.dismissed > 0 ? `${q.dismissed} dismissed` : '']
    .filter(Boolean)
    .join(', ')
  if (q.open.length === 0) return settled === '' ? 'none' : `none open (${settled})`
  const first = q.open[0] as ExplainDocT['questions']['open'][number]
  const more = q.open.length > 1 ? ` and ${q.open.length - 1} more` : ''
  return `${count(q.open.length, 'open')}: ${first.id} “${excerpt(first.question)}” (${first.asked_by})${more}${settled ? `; ${settled}` : ''}`
}

function criteriaLine(d: ExplainDocT): string {
  const c = d.criteria
  if (c.total === 0) return 'none'
  const first = c.unchecked[0]
  return `${c.checked} of ${c.total} checked (${c.verified} verified, ${c.attested} attested)${first ? `; next: ${first.n}. ${excerpt(first.text, 50)}` : ''}`
}

function landingLine(d: ExplainDocT): string {
  const l = d.landing
  if (l.branch === null) return 'no branch'
  if (l.landed === null) return `${l.branch}: cannot tell (${l.unknown_reason})`
  if (l.landed && l.head === l.trunk_commit) return `${l.branch} has no commits beyond ${l.trunk} yet (nothing to land)`
  if (l.landed)
    return `${l.branch} is on ${l.trunk}${l.merged_as === null ? '' : ` (merged as ${l.merged_as.slice(0, 10)})`}`
  if (l.missing.length === 0) return `${l.branch} is gone and no merge into ${l.trunk} names it`
  const shown = l.missing
    .slice(0, 2)
    .map((c) => `${c.sha.slice(0, 7)} ${excerpt(c.subject, 40)}`)
    .join('; ')
  return `${l.branch}: ${count(l.missing.length, 'commit')} not on ${l.trunk} (${shown}${l.missing.length > 2 ? '; …' : ''})`
}

export function render(out: Out, d: ExplainDocT): void {
  out.line(`${out.style('bold', shortRef(d.task.ref))}  ${d.task.title}`)
  out.fields([
    ['status', statusLine(d)],
    ['ready', readyLine(d)],
    ['in next', nextLine(d)],
    ['claim', claimLine(d)],
    ['questions', questionsLine(d)],
    ['criteria', criteriaLine(d)],
    ['landing', landingLine(d)],
  ])
  const a = d.next_action
  out.line('')
  out.line(
    a.command === null
      ? `next: nothing to do — ${a.why}`
      : `next (${a.who === 'person' ? 'for a person' : 'for an agent'}): ${out.style('bold', a.command)}`,
  )
  if (a.command !== null) out.line(out.style('dim', `  ${a.why}`))
  out.line(out.style('dim', `read at ${d.observed_at}; --json names where each part was read`))
}
