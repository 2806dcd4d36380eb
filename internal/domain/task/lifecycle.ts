// The task lifecycle's transitions: claim, release, renew, done, block, unblock, reopen, rm,
// edit and depend. A new task is unowned; `claim` makes the caller its owner. Who may do what, when a claim may be
// taken over, when a task may close and whether a dependency closes a cycle are pure policy, decided in
// domain/claims/ownership.ts and domain/plan/cycle.ts; this module reads what they need, asks, and refuses or writes.
// A read-only identity's claim, release, done and block become events (`proposed`). Every change goes through
// Store.editTask (lock, re-read, atomic write).

import { cmd } from '../../base/commands.js'
import { ConflictError, RefusedError, UsageError } from '../../base/errors.js'
import { checkboxes, setChecked } from '../../format/markdown.js'
import type { Identity, TaskRecord } from '../../format/model.js'
import { stamp } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { createEvent, type EventKind } from '../../store/events.js'
import type { Store, TaskEdit } from '../../store/store.js'
import type { TaskFileRef } from '../../store/taskindex.js'
import { type Arbitration, arbitrationOf, expiredAt } from '../claims/arbiter.js'
import {
  dropOnClose,
  dropOnRelease,
  open,
  refuseLocalOverRemote,
  refuseReleasingTheirs,
  remoteForClaim,
  remoteOfClaim,
  takeOnRemote,
} from '../claims/arbitrate.js'
import {
  type CloseVerdict,
  claimStanding,
  closeVerdict,
  mayReopen,
  mayRewrite as mayRewriteOwned,
  removalHolds,
  takeoverReason,
  UNREAD_ROSTER,
} from '../claims/ownership.js'
import { readOnlyIdentities, rosterOf, signerOf } from '../identity/identity.js'
import type { Landing, LandingRequest } from './landing.js'
import { unlandedRefusal } from './unlanded.js'
import { blockingQuestion, openQuestionRefusal } from './waiting.js'

export type Outcome = 'changed' | 'unchanged' | 'proposed' | 'taken-over'

export interface Change {
  action: string
  outcome: Outcome
  task: TaskRecord
  event_id: string | null
  details: Record<string, unknown>
}

/** May `who` rewrite this task directly? (domain/claims/ownership.ts decides, given the read-only identities.) */
export async function mayRewrite(store: Store, t: Pick<TaskRecord, 'owner'>, who: Identity): Promise<boolean> {
  // The identities are listed only when the answer depends on them: an rw caller, a task another identity owns.
  const asks = who.grant === 'rw' && t.owner !== null && t.owner !== who.id
  return mayRewriteOwned(t.owner, who, asks ? await readOnlyIdentities(store) : new Set())
}

export function notOwner(t: TaskRecord, who: Identity, action: string): RefusedError {
  const why = who.grant !== 'rw' ? `${who.id} has a read-only grant` : `${qualifiedRef(t)} is owned by ${t.owner}`
  return new RefusedError(who.grant !== 'rw' ? 'grant' : 'owner', `cannot ${action} ${qualifiedRef(t)}: ${why}`, {
    details: { owner: t.owner, identity: who.id, grant: who.grant },
    next: [`ask ${t.owner ?? 'a read-write identity'} to do it`, cmd(`task show ${qualifiedRef(t)}`)],
  })
}

/** Record a proposal instead of a change (a read-only or non-owner caller). */
export async function propose(
  store: Store,
  t: TaskRecord,
  who: Identity,
  action: string,
  kind: EventKind,
  data: Record<string, unknown>,
  body = '',
): Promise<Change> {
  const e = await createEvent(store, {
    sign: (await signerOf(store)).sign,
    kind,
    by: who.id,
    about: t.id,
    data,
    body,
    subject: { ref: qualifiedRef(t), project: t.project },
  })
  return { action, outcome: 'proposed', task: t, event_id: e.id, details: { proposal: kind, ...data } }
}

const unchanged = (action: string, t: TaskRecord, details: Record<string, unknown> = {}): Change => ({
  action,
  outcome: 'unchanged',
  task: t,
  event_id: null,
  details,
})

/** Run `fn` under the task's lock; `fn` returns the change's details, or false for "unchanged". */
export async function change(
  store: Store,
  target: TaskFileRef & { id?: string },
  who: Identity,
  action: string,
  fn: (e: TaskEdit) => Promise<Record<string, unknown> | false> | Record<string, unknown> | false,
  outcome: Outcome = 'changed',
): Promise<Change> {
  const r = await store.editTask(target, who.id, fn)
  return r.result === false
    ? unchanged(action, r.task)
    : { action, outcome: r.changed ? outcome : 'unchanged', task: r.task, event_id: null, details: r.result }
}

function leaseExpiry(store: Store, leaseMs: number | undefined, now: Date): string | null {
  const ms = leaseMs ?? store.config.claim_lease_ms
  // Rounded up to the whole second: a lease never ends before it was asked to (nor at its claim's `at`).
  return ms === null ? null : stamp(new Date(Math.ceil((now.getTime() + ms) / 1000) * 1000))
}

/** `at` is when the claim was taken: a renewal keeps it and moves only `expires`. */
const setClaim = (e: TaskEdit, by: string, expires: string | null, remote: string | null = null, at?: string) => {
  e.set('owner', by)
  const claim = {
    by,
    at: at ?? stamp(e.now),
    ...(expires === null ? {} : { expires }),
    ...(remote === null ? {} : { remote }),
  }
  e.setFlow('claim', claim)
}

const onRemote = (remote: string | null, details = '') =>
  [details, remote === null ? '' : `on ${remote}`].filter(Boolean).join(' ')

/** What claim and renew take: a lease (default: the workspace's claim_lease_ms) and where claims are arbitrated. */
export interface LeaseOptions {
  leaseMs?: number
  arbitration?: Arbitration
}

/** What claim and renew take from their flags: --lease, and where the claim is arbitrated (--remote, --local). */
export function leaseOptionsOf(
  store: Store,
  env: Readonly<Record<string, string | undefined>>,
  flags: { lease?: number | undefined; remote?: string | undefined; local?: boolean | undefined },
): LeaseOptions {
  const arbitration = arbitrationOf(store, env, flags)
  return flags.lease === undefined ? { arbitration } : { leaseMs: flags.lease, arbitration }
}

export async function claimTask(store: Store, ref: string, who: Identity, opts: LeaseOptions = {}): Promise<Change> {
  const { target, task: t } = await store.load(ref)
  if (t.status === 'done') {
    throw new RefusedError('state', `${qualifiedRef(t)} is done; reopen it before claiming`, {
      next: [cmd(`task reopen ${qualifiedRef(t)} --reason "<why>"`)],
    })
  }
  if (who.grant !== 'rw') {
    if (t.owner !== null && t.owner !== who.id && takeoverReason(t.owner, await rosterOf(store)) === 'owner missing') {
      // Taking a task from an identity nobody can ask is a decision for someone with write access, not a proposal.
      throw new RefusedError(
        'grant',
        `${qualifiedRef(t)} is held by ${t.owner}, an identity no agent file names; only a read-write identity may take it over`,
        { details: { owner: t.owner, reason: 'owner missing' }, next: ['ask a read-write identity to claim it'] },
      )
    }
    return propose(store, t, who, 'claim', 'claim', opts.leaseMs === undefined ? {} : { lease_ms: opts.leaseMs })
  }
  refuseLocalOverRemote(store, opts.arbitration, t)
  const remote = remoteForClaim(opts.arbitration)
  const arbiter = await open(opts.arbitration, remote)
  const lease = opts.leaseMs === undefined ? '' : `lease ${Math.round(opts.leaseMs / 1000)}s`
  let takenFrom: string | null = null
  const res = await change(store, target, who, 'claim', async (e) => {
    const { before: cur, now } = e
    if (cur.status === 'done') {
      throw new RefusedError('state', `${qualifiedRef(cur)} is done; reopen it before claiming`, {
        next: [cmd(`task reopen ${qualifiedRef(cur)} --reason "<why>"`), cmd(`next --project ${cur.project}`)],
      })
    }
    const expired = cur.claim !== null && expiredAt(cur.claim, now)
    const standing = claimStanding(
      cur.owner,
      who.id,
      expired,
      cur.owner === null || cur.owner === who.id ? UNREAD_ROSTER : await rosterOf(store),
    )
    if (standing.kind === 'yours') {
      // Yours, says this file; where the claim is (or is to be) on a remote, only the remote knows: ask it. A live
      // claim of this clone's is unchanged (renewed with --lease), another clone's is 5; an expired one (this clone's
      // too: "unchanged" would say the caller holds what anyone may take) or a vanished one is taken again.
      const where = remote ?? remoteOfClaim(opts.arbitration, cur)
      const publish = where !== null && cur.claim?.remote !== where
      const arb = where === remote ? arbiter : await open(opts.arbitration, where)
      if (opts.leaseMs === undefined && !publish && !expired) {
        if (arb === null) return false
        const seen = await arb.look(cur.id)
        if (seen !== null && !('unreadable' in seen) && arb.mine(seen, who.id)) return false
      }
      const expires = leaseExpiry(store, opts.leaseMs, now)
      const taken = await takeOnRemote(arb, cur, who, expires, now)
      // `at` as the remote has it (a renewal there keeps it), else this file's (a renewal here keeps it too).
      const kept = taken !== null ? taken.at : !publish && cur.claim?.by === who.id ? cur.claim.at : undefined
      setClaim(e, who.id, expires, where, kept)
      const onIt = where === null ? {} : { remote: where, claim_commit: taken?.commit ?? null }
      if (taken?.outcome === 'taken-over' && taken.previous !== null) {
        takenFrom = taken.previous.by
        e.log('taken-over', onRemote(where, `from ${takenFrom} (lease expired)`))
        return { previous_owner: takenFrom, ...onIt }
      }
      if (publish || taken?.outcome === 'created') {
        e.log('claimed', onRemote(where, lease))
        return { published: where, ...onIt }
      }
      e.log('renewed', onRemote(where, lease))
      return { renewed: true, ...onIt }
    }
    // With a remote arbiter the remote decides, not this file, which may be older than the remote (the holder let go
    // there and its file has not reached this clone): the take below refuses (5) while the remote holds a live claim.
    const stale = standing.kind === 'held' && arbiter !== null ? standing.owner : null
    if (standing.kind === 'held' && stale === null) {
      throw new ConflictError(
        `${qualifiedRef(cur)} is claimed by ${standing.owner}${cur.claim?.expires ? ` until ${cur.claim.expires}` : ''}`,
        {
          details: { owner: standing.owner, claimed_at: cur.claim?.at ?? null, expires: cur.claim?.expires ?? null },
          next: [cmd(`next --project ${cur.project}`), cmd(`task show ${qualifiedRef(cur)}`)],
        },
      )
    }
    if (standing.kind === 'takeover') takenFrom = standing.from
    if (stale !== null) takenFrom = stale
    const expires = leaseExpiry(store, opts.leaseMs, now)
    // The remote decides first; the file changes only after it said yes (a refusal throws, writing nothing).
    const taken = await takeOnRemote(arbiter, cur, who, expires, now)
    if (taken?.outcome === 'taken-over' && taken.previous !== null && takenFrom === null) takenFrom = taken.previous.by
    setClaim(e, who.id, expires, remote, taken?.at)
    if (cur.status === 'open') e.status = 'active'
    if (takenFrom !== null) {
      const why = takenFrom === stale ? 'no claim on the remote' : takeoverReason(takenFrom, await rosterOf(store))
      e.log('taken-over', onRemote(remote, `from ${takenFrom} (${why})`))
    } else e.log(opts.arbitration?.local ? 'claimed-local' : 'claimed', onRemote(remote, lease))
    return {
      ...(takenFrom === null ? {} : { previous_owner: takenFrom }),
      ...(remote === null ? {} : { remote, claim_commit: taken?.commit ?? null }),
    }
  })
  if (takenFrom !== null && res.outcome === 'changed') res.outcome = 'taken-over'
  return res
}

export async function releaseTask(
  store: Store,
  ref: string,
  who: Identity,
  opts: { arbitration?: Arbitration } = {},
): Promise<Change> {
  const { target, task: t } = await store.load(ref)
  if (who.grant !== 'rw') return propose(store, t, who, 'release', 'release', {})
  if (t.owner !== null && t.owner !== who.id) throw notOwner(t, who, 'release')
  return change(store, target, who, 'release', async (e) => {
    const cur = e.before
    if (cur.owner !== null && cur.owner !== who.id) throw notOwner(cur, who, 'release')
    if (cur.owner === null && cur.claim === null) return false
    if (cur.status === 'done') {
      throw new RefusedError('state', `${qualifiedRef(cur)} is done; there is nothing to release`, {
        next: [cmd(`task show ${qualifiedRef(cur)}`)],
      })
    }
    // Another clone's claim on the remote stays theirs; this clone's is deleted under a lease.
    const drop = await dropOnRelease(opts.arbitration, e, who)
    refuseReleasingTheirs(cur, drop)
    e.delete('owner')
    e.delete('claim')
    if (cur.status === 'active') e.status = 'open'
    e.log('released', drop.dropped ? onRemote(drop.remote) : '')
    return drop.details
  })
}

export async function renewClaim(store: Store, ref: string, who: Identity, opts: LeaseOptions = {}): Promise<Change> {
  const { target, task: t } = await store.load(ref)
  if (t.owner !== who.id) {
    throw new RefusedError(
      'owner',
      `${qualifiedRef(t)} is not claimed by ${who.id}${t.owner ? ` (owner: ${t.owner})` : ''}`,
      {
        details: { owner: t.owner },
        next: [cmd(`task claim ${qualifiedRef(t)}`)],
      },
    )
  }
  return change(store, target, who, 'renew', async (e) => {
    if (e.before.owner !== who.id)
      throw new RefusedError('owner', `${qualifiedRef(e.before)} is no longer claimed by ${who.id}`, {
        details: { owner: e.before.owner },
        next: [cmd(`task show ${qualifiedRef(e.before)}`), cmd(`task claim ${qualifiedRef(e.before)}`)],
      })
    const expires = leaseExpiry(store, opts.leaseMs, e.now)
    if (expires === null) return false
    // On the remote first (no claim in the file: where a new one goes); taken over there is 5, the file unchanged.
    const remote =
      e.before.claim === null ? remoteForClaim(opts.arbitration) : remoteOfClaim(opts.arbitration, e.before)
    const arbiter = await open(opts.arbitration, remote)
    const taken = await takeOnRemote(arbiter, e.before, who, expires, e.now, true)
    setClaim(e, who.id, expires, remote, taken?.at ?? (e.before.claim?.by === who.id ? e.before.claim.at : undefined))
    e.log('renewed', onRemote(remote, `until ${expires}`))
    return { expires, ...(remote === null ? {} : { remote }) }
  })
}

export async function doneTask(
  store: Store,
  ref: string,
  who: Identity,
  opts: { allowUnverified?: boolean; arbitration?: Arbitration; tokens?: number } & LandingRequest = {},
): Promise<Change> {
  const { target, task: t } = await store.load(ref)
  const tokens = opts.tokens === undefined ? {} : { tokens: opts.tokens }
  if (!(await mayRewrite(store, t, who)))
    return propose(store, t, who, 'done', 'propose-status', { status: 'done', ...tokens })
  const landing = await closeLanding(store, t, { ...opts, defer: true })
  return change(store, target, who, 'done', async (e) => {
    const closed = await closeTask(store, e, who, opts.allowUnverified === true, 'done', { landing, ...tokens })
    // A done task's claim ref disappears with it (after the criteria passed, before the file is written).
    return closed === false ? false : { ...closed, ...(await dropOnClose(opts.arbitration, e, who)) }
  })
}

/**
 * What would refuse `task done` on `t` now, its landing aside — for a caller about to make it land (`pr land`
 * asks before it merges, so a refusal never follows a write) — or null: done already, or the close would be a
 * proposal (the caller may not rewrite it).
 */
export async function closeRefusal(store: Store, t: TaskRecord, who: Identity): Promise<RefusedError | null> {
  if (t.status === 'done' || !(await mayRewrite(store, t, who))) return null
  const blockers = await closeBlockers(store, t, closeVerdict(t.acceptance, false), t.acceptance.length, null)
  return blockers.length === 0 ? null : oneRefusal(t, blockers)
}

/** The landing check of a close, loading git only for a task with a branch. */
export async function closeLanding(store: Store, t: TaskRecord, req: LandingRequest): Promise<Landing | null> {
  const { checkLanding, landingApplies } = await import('./landing.js')
  return landingApplies(t, req) ? checkLanding(store, t, req) : null
}

/**
 * The canonical close: every box checked (or the explicit no-criteria override), then `done`.
 * Reads the boxes from the body being edited, so a caller may tick them first.
 */
export async function closeTask(
  store: Store,
  e: TaskEdit,
  who: Identity,
  allowUnverified: boolean,
  verb: string,
  opts: { ownerChecked?: boolean; landing?: Landing | null; tokens?: number } = {},
): Promise<Record<string, unknown> | false> {
  const cur = e.before
  if (!opts.ownerChecked && !(await mayRewrite(store, cur, who))) throw notOwner(cur, who, 'close')
  if (cur.status === 'done') return false
  const boxes = checkboxes(e.body)
  const verdict = closeVerdict(boxes, allowUnverified)
  const landing = opts.landing ?? null
  const blockers = await closeBlockers(store, cur, verdict, boxes.length, landing)
  if (blockers.length > 0) throw oneRefusal(cur, blockers)
  if (verdict.kind !== 'close') return false // unreachable: an unmet verdict is a blocker
  if (verdict.unverified) e.set('unverified', true)
  e.delete('claim')
  e.status = 'done'
  e.log(
    verb,
    boxes.length === 0
      ? 'with NO acceptance criteria (unverified, --allow-unverified)'
      : `${boxes.length}/${boxes.length} criteria`,
  )
  if (landing !== null) e.log(landing.log.verb, landing.log.details)
  if (opts.tokens !== undefined) e.log('tokens', `output ${opts.tokens}`)
  return {
    unverified: boxes.length === 0,
    ...(landing === null ? {} : { landing: landingDetails(landing) }),
    ...(opts.tokens === undefined ? {} : { tokens: opts.tokens }),
  }
}

/**
 * Everything that stands against closing `t`, in a fixed order: its acceptance criteria, the open question or the
 * block it waits on, and its branch not landed (a landing checked with `defer`, not yet refused). One refusal
 * names them all, so a caller fixes every one before trying again instead of discovering them one close at a time.
 */
async function closeBlockers(
  store: Store,
  t: TaskRecord,
  verdict: CloseVerdict,
  total: number,
  landing: Landing | null,
): Promise<RefusedError[]> {
  const out: RefusedError[] = []
  const ref = qualifiedRef(t)
  if (verdict.kind === 'no-criteria') {
    out.push(
      new RefusedError('acceptance', `${ref} has no acceptance criteria, so done cannot be verified`, {
        details: { unmet: [], total: 0 },
        next: [
          cmd(`task edit ${ref} --accept "<criterion>"`),
          cmd(`task done ${ref} --allow-unverified (deliberately, marks it unverified)`),
        ],
      }),
    )
  } else if (verdict.kind === 'unmet') {
    const { unmet } = verdict
    out.push(
      new RefusedError(
        'acceptance',
        `${ref} has ${unmet.length} unmet acceptance ${unmet.length === 1 ? 'criterion' : 'criteria'}: ${unmet.map((u) => `${u.n}. ${u.text}`).join('; ')} — check them (with --verify) first; do not retry unchanged`,
        {
          details: { unmet, total },
          next: [
            cmd(
              `task check ${ref} ${unmet.map((u) => `--n ${u.n}`).join(' ')} --verify "<command that proves ${unmet.length === 1 ? 'it' : 'them'}>"`,
            ),
          ],
        },
      ),
    )
  }
  if (t.status === 'blocked') {
    const q = await blockingQuestion(store, t)
    out.push(
      q !== null
        ? openQuestionRefusal(t, q)
        : new RefusedError(
            'blocked',
            `${ref} is blocked${t.blocked_by ? ` by ${t.blocked_by}` : ''}: unblock it before closing it`,
            { details: { blocked_by: t.blocked_by }, next: [cmd(`task unblock ${ref}`)] },
          ),
    )
  }
  if (landing !== null && !landing.landed && !landing.overridden) out.push(unlandedRefusal(t, landing))
  return out
}

/**
 * One refusal for every blocker: the first one's policy and details (so a caller that knew the single refusal
 * still reads it), `details.blockers` listing each with its policy, message and details, and every next step.
 */
function oneRefusal(t: TaskRecord, blockers: readonly RefusedError[]): RefusedError {
  const [first] = blockers as [RefusedError, ...RefusedError[]]
  const listed = blockers.map((b) => ({ policy: b.policy, message: b.message, details: b.details }))
  const message =
    blockers.length === 1
      ? first.message
      : `${qualifiedRef(t)} cannot be closed: ${blockers.length} things stand in the way — ${blockers.map((b, i) => `(${i + 1}) ${b.message}`).join(' ')}`
  return new RefusedError(first.policy, message, {
    details: { ...first.details, blockers: listed },
    next: [...new Set(blockers.flatMap((b) => b.next))],
  })
}

/** What a close says about landing in its document's details. */
export const landingDetails = (l: Landing) => ({
  branch: l.branch,
  trunk: l.trunk,
  head: l.head,
  landed: l.landed,
  overridden: l.overridden,
  missing: l.missing,
})

export async function blockTask(
  store: Store,
  ref: string,
  who: Identity,
  opts: { by?: string; why?: string } = {},
): Promise<Change> {
  const { target, task: t } = await store.load(ref)
  // Blocking again would replace `blocked_by: q-…`, lifting the question's hold without an answer.
  const q = await blockingQuestion(store, t)
  if (q !== null) throw openQuestionRefusal(t, q)
  let by: TaskRecord | null = null
  if (opts.by !== undefined) by = await store.readTask(opts.by, { prefer: t.project })
  if (by !== null && by.id === t.id) throw new UsageError('a task cannot block itself')
  const data = { by: by?.id ?? null, why: opts.why ?? null }
  if (!(await mayRewrite(store, t, who))) return propose(store, t, who, 'block', 'block', data, opts.why ?? '')
  return change(store, target, who, 'block', (e) => applyBlock(e, data))
}

export function applyBlock(
  e: TaskEdit,
  data: { by: string | null; why: string | null },
): Record<string, unknown> | false {
  const cur = e.before
  if (cur.status === 'done') {
    throw new RefusedError('state', `${qualifiedRef(cur)} is done; reopen it before blocking it`, {
      next: [cmd(`task reopen ${qualifiedRef(cur)} --reason "<why>"`)],
    })
  }
  if (cur.status === 'blocked' && cur.blocked_by === data.by && data.why === null) return false
  if (data.by === null) e.delete('blocked_by')
  else e.set('blocked_by', data.by)
  e.status = 'blocked'
  e.log('blocked', [data.by ? `by ${data.by}` : '', data.why ?? ''].filter(Boolean).join(': '))
  return { ...data }
}

export async function unblockTask(store: Store, ref: string, who: Identity): Promise<Change> {
  const { target, task: t } = await store.load(ref)
  const q = await blockingQuestion(store, t)
  if (q !== null) throw openQuestionRefusal(t, q)
  if (!(await mayRewrite(store, t, who))) return propose(store, t, who, 'unblock', 'block', { unblock: true })
  return change(store, target, who, 'unblock', (e) => applyUnblock(e))
}

export function applyUnblock(e: TaskEdit): Record<string, unknown> | false {
  if (e.before.status !== 'blocked') return false
  e.delete('blocked_by')
  e.status = e.before.owner !== null ? 'active' : 'open'
  e.log('unblocked')
  return { status: e.status }
}

export async function reopenTask(
  store: Store,
  ref: string,
  who: Identity,
  reason: string,
  opts: { arbitration?: Arbitration } = {},
): Promise<Change> {
  const { target, task: t } = await store.load(ref)
  const q = await blockingQuestion(store, t)
  if (q !== null) throw openQuestionRefusal(t, q)
  if (!(await mayRewrite(store, t, who))) throw notOwner(t, who, 'reopen')
  return change(store, target, who, 'reopen', async (e) => {
    const cur = e.before
    if (!mayReopen(cur.status)) {
      throw new RefusedError(
        'state',
        `${qualifiedRef(cur)} is ${cur.status}; only a done or blocked task can be reopened`,
        {
          details: { status: cur.status },
          next: [cmd(`task show ${qualifiedRef(cur)}`)],
        },
      )
    }
    const checked = checkboxes(e.body).filter((b) => b.checked)
    e.body = setChecked(e.body, checked, false)
    e.delete('unverified')
    e.delete('blocked_by')
    // A reopened task goes back to the pool: whoever held it no longer does (the log says who did), and a claim
    // it still has on a remote (a blocked task's) goes too, or nobody else could claim it there.
    const drop = await dropOnRelease(opts.arbitration, e, { ...who, id: cur.owner ?? who.id })
    refuseReleasingTheirs(cur, drop)
    e.delete('owner')
    e.delete('claim')
    e.status = 'open'
    const released =
      cur.owner === null ? '' : ` (owner ${cur.owner} released${drop.dropped ? ` ${onRemote(drop.remote)}` : ''})`
    e.log('reopened', `${reason}${released}`)
    return { unchecked: checked.map((b) => b.n), reason, previous_owner: cur.owner, ...drop.details }
  })
}

export async function removeTask(store: Store, ref: string, who: Identity, force: boolean): Promise<Change> {
  const { target, task: t } = await store.load(ref)
  if (!(await mayRewrite(store, t, who))) throw notOwner(t, who, 'remove')
  const dependents = (await store.listTasks()).tasks.filter(
    (x) => x.id !== t.id && x.depends_on.some((d) => d.on === t.id),
  )
  const reasons = removalHolds(t.status, dependents.map(qualifiedRef))
  if (reasons.length > 0 && !force) {
    throw new RefusedError(
      'confirm-removal',
      `not removing ${qualifiedRef(t)}: ${reasons.join('; ')}; pass --force to remove it anyway`,
      {
        details: { status: t.status, dependents: dependents.map(qualifiedRef) },
        next: [cmd(`task rm ${qualifiedRef(t)} --force`)],
      },
    )
  }
  // A claim arbitrated by a remote goes first (this clone's, under a lease; another clone's there stays theirs), so
  // removing a claimed task leaves no claim ref behind. An unreachable remote is exit 1 with nothing removed.
  const drop =
    t.claim?.remote == null
      ? { remote: null, details: {}, held: null }
      : await dropOnRelease(
          arbitrationOf(store, store.env, {}),
          { before: t, now: store.now() },
          {
            ...who,
            id: t.claim.by,
          },
        )
  refuseReleasingTheirs(t, drop)
  const removed = await store.tombstoneTask(target, who.id)
  return {
    action: 'rm',
    outcome: 'changed',
    task: removed,
    event_id: null,
    details: { removed: true, dependents: dependents.map(qualifiedRef), ...drop.details },
  }
}
