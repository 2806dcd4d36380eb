// The one next action `explain` proposes, derived from the parts it read: the
// first thing in the task's way, and who is expected to move it.

import { count } from '../../base/text.js'
import type { ExplainDocT } from './json.js'

type Facts = Omit<ExplainDocT, 'next_action' | 'schema' | 'observed_at'>
type Action = Omit<ExplainDocT['next_action'], 'source' | 'observed_at'>

const merge = (l: ExplainDocT['landing']) =>
  l.trunk === null || l.branch === null || l.missing.length === 0
    ? null
    : `git switch ${l.trunk} && git merge ${l.branch}`

const notLanded = (l: ExplainDocT['landing']) =>
  l.missing.length === 0
    ? `${l.branch} is gone and no merge into ${l.trunk} names it`
    : `${l.missing.length} commit${l.missing.length === 1 ? '' : 's'} of ${l.branch} ${l.missing.length === 1 ? 'is' : 'are'} not on ${l.trunk}`

/** How the close went, as the log tells it: only an `unlanded` line is an --allow-unlanded close. */
const closedHow = (logged: ExplainDocT['landing']['logged']) =>
  logged?.verb === 'unlanded'
    ? 'it was closed without landing (--allow-unlanded)'
    : logged?.verb === 'landed'
      ? `it landed when it was closed (${logged.details}), but not any more`
      : 'it is done without a landing check (its log has no landed or unlanded line: closed by hand or elsewhere)'

export function nextAction(f: Facts, into: string | undefined): Action {
  const ref = f.task.ref
  const { status, readiness, claim, criteria, landing, questions } = f
  if (status.value === 'done') {
    if (landing.landed === false)
      return {
        command: merge(landing),
        who: 'person',
        why: `${closedHow(landing.logged)}: ${notLanded(landing)}`,
      }
    return { command: null, who: 'nobody', why: landing.landed === true ? 'it is done and landed' : 'it is done' }
  }
  if (status.value === 'blocked') {
    const q = questions.open.find((x) => x.id === status.blocked_by)
    if (q !== undefined)
      return {
        command: `dacli answer ${q.id} "<answer>"`,
        who: 'person',
        why: `it waits on the open question ${q.id} asked by ${q.asked_by}`,
      }
    if (status.blocked_by_kind === 'task' && status.blocked_by_ref !== null)
      return {
        command: `dacli explain ${status.blocked_by_ref}`,
        who: 'agent',
        why: `it is blocked by ${status.blocked_by_ref}; see what holds that one, or unblock this when it no longer matters`,
      }
    return {
      command: `dacli task unblock ${ref}`,
      who: 'agent',
      why: `it is blocked${status.reason ? ` (${status.reason})` : ''}: unblock it once that is resolved`,
    }
  }
  if (status.value === 'active') {
    if (claim.expired)
      return {
        command: `dacli task claim ${ref}`,
        who: 'agent',
        why: `the lease of ${claim.by} ran out at ${claim.expires}: anyone may take it over`,
      }
    const first = criteria.unchecked[0]
    if (first !== undefined)
      return {
        command: `dacli task check ${ref} --n ${first.n} --verify "<command that proves it>"`,
        who: 'agent',
        why: `${criteria.unchecked.length} of ${count(criteria.total, 'acceptance criterion', 'acceptance criteria')} ${criteria.unchecked.length === 1 ? 'is' : 'are'} unchecked (next: ${first.n}. ${first.text})`,
      }
    if (landing.landed === false)
      return { command: merge(landing), who: 'person', why: `it cannot close until it lands: ${notLanded(landing)}` }
    const intoFlag = into === undefined ? '' : ` --into ${into}`
    if (criteria.total === 0)
      return {
        command: `dacli task done ${ref} --allow-unverified${intoFlag}`,
        who: 'agent',
        why: 'it has no acceptance criteria: closing it needs --allow-unverified (or add criteria first)',
      }
    return {
      command: `dacli task done ${ref}${intoFlag}`,
      who: 'agent',
      why: `every criterion is checked${landing.landed !== true ? '' : landing.head === landing.trunk_commit ? ` and ${landing.branch} has nothing to land` : ` and ${landing.branch} is on ${landing.trunk}`}`,
    }
  }
  // open
  if (readiness.reason === 'wont') return { command: null, who: 'nobody', why: 'its priority is wont: out of the plan' }
  const hold = readiness.unmet[0]
  if (hold !== undefined) {
    if (hold.id === null)
      return {
        command: `dacli task depend ${ref} --remove ${hold.ref}`,
        who: 'agent',
        why: `its dependency ${hold.ref} names no task, so it can never start`,
      }
    return {
      command: `dacli explain ${hold.ref}`,
      who: 'agent',
      why: `it waits on ${hold.ref} (${hold.type}: must ${hold.needs === 'done' ? 'be done' : 'have started'}; it is ${hold.status})`,
    }
  }
  if (claim.held && claim.other_clone !== null)
    return { command: 'dacli next', who: 'agent', why: `another clone holds it (${claim.by} on ${claim.remote})` }
  if (f.schedule.rank === null)
    return { command: 'dacli next', who: 'agent', why: f.schedule.why_unranked ?? 'next does not offer it' }
  return {
    command: `dacli task claim ${ref}`,
    who: 'agent',
    why: `it is ready: #${f.schedule.rank} of ${f.schedule.ready_count} in dacli next`,
  }
}
