// `sync`: apply pending events, oldest first, to the tasks the caller may
// change (its own, unowned ones for an rw caller, and ones owned by a read-only
// identity, which can only move through proposals). Idempotent: every applied
// change is logged with `(event <id>)`, and an event already reflected in the
// task's log is only marked applied. Questions are not proposals: `answer`
// settles them. A proposal that can never apply (its task gone or done, or held
// by someone else) is named with the dismiss command as its next action.
//
// With a remote arbitrating claims (`claims.remote`), a proposed claim, release or close moves the remote claim
// ref first, as the lifecycle commands do (domain/claims/arbitrate.ts): a proposed claim is written only when the
// compare-and-swap wins; when another clone holds the task there, the proposal is refused — settled as dismissed,
// its reason saying who holds it, and logged on the task as `claim-lost` — and an unreachable remote leaves it
// pending.

import { cmd } from '../../base/commands.js'
import { ConflictError, classifiedError } from '../../base/errors.js'
import type { Broken, Identity, TaskRecord } from '../../format/model.js'
import { stamp } from '../../format/model.js'
import { qualifiedRef, resolveAmong } from '../../format/refs.js'
import { type EventRecord, isOpenQuestion, listEvents, withEvent } from '../../store/events.js'
import type { Store, TaskEdit } from '../../store/store.js'
import { type Arbitration, arbitrationOf, type TakeResult } from '../claims/arbiter.js'
import {
  dropOnClose,
  dropOnRelease,
  open,
  refuseReleasingTheirs,
  remoteForClaim,
  takeOnRemote,
} from '../claims/arbitrate.js'
import { type AgentFile, rootKeysOf, scanAgents } from '../identity/identity.js'
import { eventProblem } from '../identity/trust.js'
import { addNote, listNotes, SEVERITIES } from '../notes/notes.js'
import { findCycle } from '../plan/cycle.js'
import { isCloseProposal } from '../task/acceptance.js'
import { withLink, withoutLink } from '../task/edit.js'
import type { Landing } from '../task/landing.js'
import { applyBlock, applyUnblock, closeLanding, closeTask, mayRewrite } from '../task/lifecycle.js'
import { blockingQuestion, openQuestionRefusal } from '../task/waiting.js'

export interface PendingItem {
  event_id: string
  reason: string
  /** True when nothing anyone does to the task will make it apply: dismiss it. */
  never_applies: boolean
  next: string[]
}

/** A proposed claim refused because another clone holds the task on the remote that arbitrates claims. */
export interface LostItem {
  event_id: string
  task: string
  by: string
  remote: string
  reason: string
}

export interface SyncResult {
  applied: string[]
  pending: PendingItem[]
  lost: LostItem[]
  skipped: Broken[]
  open_questions: number
}

/** A proposed claim that lost on the remote: the event is settled as dismissed with this reason. */
class Lost extends Error {
  constructor(
    message: string,
    readonly remote: string,
  ) {
    super(message)
  }
}

/** What applying an event needs besides the store: who applies it, who proposed, where claims are arbitrated. */
interface Applying {
  who: Identity
  agents: readonly AgentFile[]
  arbitration: Arbitration
}

/** Why an event stays pending (not a failure of the sync). `never`: it can never apply. */
class Pending extends Error {
  constructor(
    message: string,
    readonly never = false,
  ) {
    super(message)
  }
}

export async function syncEvents(store: Store, who: Identity): Promise<SyncResult> {
  const { events, broken } = await listEvents(store)
  const out: SyncResult = {
    applied: [],
    pending: [],
    lost: [],
    skipped: broken,
    open_questions: events.filter(isOpenQuestion).length,
  }
  const waiting = events.filter((x) => x.state === 'pending' && x.event_kind !== 'question')
  const { agents } = waiting.length === 0 ? { agents: [] } : await scanAgents(store.dir, store.root)
  const rootKeys = waiting.length === 0 ? { trusted: [], published: [] } : rootKeysOf(store, agents)
  const applying: Applying = { who, agents, arbitration: arbitrationOf(store, store.env, {}) }
  for (const e of waiting) {
    // Only an event its author provably wrote is applied; a forged one is refused and reported.
    const forged = eventProblem(e, agents, rootKeys)
    if (forged !== null) {
      out.skipped.push({ path: e.path, reason: `event ${e.id} is refused: ${forged}`, code: 'forged-event' })
      continue
    }
    try {
      const applied = await withEvent<boolean | Lost>(store, e, async (fresh) => {
        if (fresh.state !== 'pending') return { outcome: null, result: false } // settled meanwhile by another process
        try {
          await applyOne(store, applying, fresh)
        } catch (err) {
          if (!(err instanceof Lost)) throw err
          const dismissed = { by: who.id, at: stamp(store.now()), reason: err.message }
          const note = {
            ref: e.about ?? e.id,
            project: null,
            actor: who.id,
            summary: `claim ${e.id} lost: ${err.message}`,
          }
          return { outcome: { applied: 'dismissed' as const, dismissed }, note, result: err }
        }
        return { outcome: { applied: true }, result: true }
      })
      if (applied instanceof Lost) {
        out.lost.push({
          event_id: e.id,
          task: e.about ?? '',
          by: e.created_by,
          remote: applied.remote,
          reason: applied.message,
        })
        await logLost(store, who, e, applied)
      } else if (applied) out.applied.push(e.id)
    } catch (err) {
      // A pending reason, or an error applying this one event: either way it stays pending, reported.
      const never = err instanceof Pending && err.never
      const reason = (err as Error).message
      out.pending.push({
        event_id: e.id,
        reason,
        never_applies: never,
        next: never ? [cmd(`events dismiss ${e.id} --reason ${JSON.stringify(`can never apply: ${reason}`)}`)] : [],
      })
    }
  }
  return out
}

/** Reasons no one can ever make this event apply: the task is done, or someone else holds it. */
function neverReason(e: EventRecord, t: TaskRecord): string | null {
  if (e.event_kind === 'finding' || e.event_kind === 'comment') return null
  if (t.status === 'done' && !isCloseProposal(e)) return `${qualifiedRef(t)} is done`
  if (e.event_kind === 'claim' && t.owner !== null && t.owner !== e.created_by)
    return `${qualifiedRef(t)} is held by ${t.owner}`
  if (e.event_kind === 'release' && t.owner !== null && t.owner !== e.created_by)
    return `${qualifiedRef(t)} is held by ${t.owner}, not by ${e.created_by}`
  return null
}

/** The lost claim in the task's log (not tagged `(event …)`: the event was not applied). */
async function logLost(store: Store, who: Identity, e: EventRecord, lost: Lost): Promise<void> {
  if (e.about === null) return
  try {
    const { target } = await store.load(e.about)
    await store.editTask(target, who.id, (x) => {
      x.log('claim-lost', `proposed by ${e.created_by} in event ${e.id}: ${lost.message}`)
      return {}
    })
  } catch {
    // The task went meanwhile: the dismissed event still says why.
  }
}

/** The identity that proposed an event, as the remote's claim commit names it. */
function proposer(a: Applying, e: EventRecord): Identity {
  const f = a.agents.find((x) => x.id === e.created_by)
  return { id: e.created_by, grant: f?.grant ?? 'ro', role: f?.role ?? null, parent: f?.parent ?? null }
}

async function applyOne(store: Store, a: Applying, e: EventRecord): Promise<void> {
  const who = a.who
  if (e.about === null) {
    if (e.event_kind === 'finding' && typeof e.data.project === 'string') {
      if (who.grant !== 'rw') throw new Pending('a read-only identity cannot apply events')
      await findingNote(store, e, e.data.project, null)
      return
    }
    throw new Pending('not about a task; nothing to apply it to')
  }
  let loaded: Awaited<ReturnType<Store['load']>>
  try {
    loaded = await store.load(e.about)
  } catch (err) {
    // Only a task that is not there is gone; one that cannot be read stays pending, with the reason.
    if (classifiedError(err)?.kind === 'not_found') throw new Pending(`the task ${e.about} is gone`, true)
    throw new Pending(`the task ${e.about} cannot be read: ${(err as Error).message}`)
  }
  const { target, task: t } = loaded
  const tag = `(event ${e.id})`
  if (t.log.some((l) => l.details.includes(tag))) return // applied before a crash could mark it
  const never = neverReason(e, t)
  if (never !== null) throw new Pending(never, true)
  const mine = await mayRewrite(store, t, who)
  if (e.event_kind === 'finding') {
    // A finding becomes a note of its own; the task's log mentions it only when the caller may write the task.
    if (who.grant !== 'rw') throw new Pending('a read-only identity cannot apply events')
    const note = await findingNote(store, e, t.project, t.id)
    if (mine) {
      await store.editTask(target, who.id, (x) => {
        x.log('applied', `finding by ${e.created_by}: ${note.id} "${note.title}" ${tag}`)
        return {}
      })
    }
    return
  }
  if (!mine) {
    throw new Pending(`${qualifiedRef(t)} is owned by ${t.owner}; only its owner can apply this`)
  }
  const line = (e2: TaskEdit, what: string) =>
    e2.log('applied', `${e.event_kind} by ${e.created_by}${what ? `: ${what}` : ''} ${tag}`)
  const edit = async (fn: (x: TaskEdit) => Promise<boolean> | boolean) => {
    await store.editTask(target, who.id, async (x) => ((await fn(x)) ? {} : false))
  }
  switch (e.event_kind) {
    case 'claim': {
      const remote = remoteForClaim(a.arbitration)
      const arbiter = await open(a.arbitration, remote)
      return edit(async (x) => {
        if (x.before.owner === e.created_by) return false
        if (x.before.owner !== null)
          throw new Pending(`${qualifiedRef(x.before)} is already owned by ${x.before.owner}`)
        if (x.before.status === 'done') throw new Pending(`${qualifiedRef(x.before)} is done`)
        const leaseMs = typeof e.data.lease_ms === 'number' ? e.data.lease_ms : store.config.claim_lease_ms
        // Rounded up to the whole second, as `task claim` does: the lease is never shorter than asked.
        const expires = leaseMs === null ? null : stamp(new Date(Math.ceil((x.now.getTime() + leaseMs) / 1000) * 1000))
        // The remote first: the file is written only when the compare-and-swap won.
        let taken: TakeResult | null = null
        try {
          taken = await takeOnRemote(arbiter, x.before, proposer(a, e), expires, x.now)
        } catch (err) {
          if (err instanceof ConflictError && remote !== null) throw new Lost(err.message, remote)
          throw new Pending(`the claim could not be taken on ${remote}: ${(err as Error).message}`)
        }
        x.set('owner', e.created_by)
        x.setFlow('claim', {
          by: e.created_by,
          at: taken?.at ?? stamp(x.now),
          ...(expires === null ? {} : { expires }),
          ...(remote === null ? {} : { remote }),
        })
        if (x.before.status === 'open') x.status = 'active'
        line(x, remote === null ? '' : `on ${remote}`)
        return true
      })
    }
    case 'release':
      return edit(async (x) => {
        if (x.before.owner === null) return false
        if (x.before.owner !== e.created_by)
          throw new Pending(`${qualifiedRef(x.before)} is owned by ${x.before.owner}, not by ${e.created_by}`)
        // The proposer's claim on the remote goes first (under a lease); another clone's there stays theirs.
        // Another clone's live claim (the file carries it from a pull) is that clone's to drop: pending here.
        try {
          const drop = await dropOnRelease(a.arbitration, x, proposer(a, e))
          refuseReleasingTheirs(x.before, drop)
        } catch (err) {
          throw new Pending(`the claim could not be released on its remote: ${(err as Error).message}`)
        }
        x.delete('owner')
        x.delete('claim')
        if (x.before.status === 'active') x.status = 'open'
        line(x, '')
        return true
      })
    case 'propose-status': {
      // A close needs its branch landed; not yet landed is pending, not never: it may land later.
      let landing: Landing | null = null
      if (isCloseProposal(e) && t.status !== 'done') {
        try {
          landing = await closeLanding(store, t, {})
        } catch (err) {
          throw new Pending((err as Error).message)
        }
      }
      const tokens = typeof e.data.tokens === 'number' ? { tokens: e.data.tokens } : {}
      return edit(async (x) => {
        const status = String(e.data.status ?? 'done')
        if (isCloseProposal(e) || status === 'done') {
          try {
            const r = await closeTask(store, x, who, false, 'done', { ownerChecked: true, landing, ...tokens })
            if (r === false) return false
            // A done task's claim ref goes with it, dropped as its owner's (another clone's live claim: pending).
            const owner = x.before.owner === null ? who : { ...proposer(a, e), id: x.before.owner }
            await dropOnClose(a.arbitration, x, owner)
          } catch (err) {
            throw new Pending((err as Error).message)
          }
          x.log('applied', `propose-status done by ${e.created_by} ${tag}`)
          return true
        }
        if (!['open', 'active', 'blocked'].includes(status)) throw new Pending(`unknown status "${status}"`)
        if (x.before.status === status) return false
        x.status = status as 'open'
        line(x, status)
        return true
      })
    }
    case 'block':
      {
        // An unblock, or a block that would replace its `blocked_by`, waits while an open question holds the task.
        const q = await blockingQuestion(store, t)
        if (q !== null) throw new Pending(openQuestionRefusal(t, q).message)
      }
      return edit((x) => {
        const r =
          e.data.unblock === true
            ? applyUnblock(x)
            : applyBlock(x, { by: (e.data.by as string | null) ?? null, why: (e.data.why as string | null) ?? null })
        if (r === false) return false
        line(x, e.data.unblock === true ? 'unblock' : String(e.data.why ?? ''))
        return true
      })
    case 'comment':
      return edit((x) => {
        line(x, e.body.replace(/\s+/g, ' ').slice(0, 200))
        return true
      })
    case 'dependency': {
      const all = (await store.listTasks()).tasks
      return edit((x) => {
        const add = Array.isArray(e.data.add) ? (e.data.add as { on: string; type: string }[]) : []
        const remove = Array.isArray(e.data.remove) ? (e.data.remove as { on: string; type?: string }[]) : []
        // The rule task depend follows (edit.ts): a removal of one type, or of every type when none is given.
        const idOf = (on: string) => resolveAmong(all, on, x.before.project)?.id ?? on
        let deps = x.before.depends_on.map((d) => ({ ...d }))
        for (const r of remove) deps = withoutLink(deps, r.on, r.type ?? null, idOf)
        for (const a of add) deps = withLink(deps, a.on, a.type, idOf)
        if (
          findCycle(
            x.before.id,
            deps.map((d) => d.on),
            all,
          ) !== null
        )
          throw new Pending('the dependency would create a cycle')
        if (deps.length === 0) x.delete('depends_on')
        else x.setFlow('depends_on', deps)
        line(x, '')
        return true
      })
    }
  }
}

/** The finding note an event becomes (found again by its source_event when re-applied after a crash). */
async function findingNote(store: Store, e: EventRecord, project: string, about: string | null) {
  const existing = (await listNotes(store, project)).notes.find((n) => n.source_event === e.id)
  if (existing) return existing
  const title = String(e.data.title ?? e.body.split('\n')[0] ?? 'finding').slice(0, 200) || 'finding'
  const severity = (SEVERITIES as readonly string[]).includes(String(e.data.severity))
    ? String(e.data.severity)
    : undefined
  const body = typeof e.data.body === 'string' ? e.data.body : undefined
  return addNote(store, {
    project,
    kind: 'finding',
    title,
    by: e.created_by,
    about,
    ...(body === undefined ? {} : { body }),
    ...(severity === undefined ? {} : { severity }),
    sourceEvent: e.id,
  })
}
