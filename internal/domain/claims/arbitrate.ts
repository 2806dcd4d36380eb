// Which remote arbitrates a lifecycle change: `--local` none;
// `--remote R` that one; otherwise a new claim uses `claims.remote` from
// config.yml, a release or renewal the remote the task's claim was made on, and
// a close (done, accept) that remote, else `claims.remote` — another clone may
// hold the task there even when this clone never claimed it. The lifecycle calls these under the task's lock, so the local file
// changes only after the remote said yes.

import { cmd } from '../../base/commands.js'
import { ConflictError } from '../../base/errors.js'
import type { Identity, TaskRecord } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import type { Store, TaskEdit } from '../../store/store.js'
import {
  type Arbitration,
  type ClaimArbiter,
  type DropResult,
  expiredAt,
  type RemoteClaim,
  remoteClaimOf,
  type TakeResult,
} from './arbiter.js'

/**
 * `--local` claims in this clone only while the remote cannot be reached: a task the remote was last seen holding for
 * another clone or identity (its refusal of a claim, a fetch) is not claimed apart from it — the remote is the
 * arbiter, and a clone that syncs would otherwise carry a holder the remote never agreed to (5, nothing changed).
 */
export function refuseLocalOverRemote(
  store: Store,
  arb: Arbitration | undefined,
  t: Pick<TaskRecord, 'id' | 'project' | 'seq' | 'slug'>,
): void {
  if (arb?.local !== true) return
  const seen = remoteClaimOf(store, t.id, store.now())
  if (seen === null || seen.expired || seen.this_clone) return
  throw new ConflictError(
    `${qualifiedRef(t)} is claimed on ${seen.remote} by ${seen.by} (seen there at ${seen.fetched_at}): --local claims in this clone only while the remote cannot be reached, never against a claim it holds`,
    {
      details: {
        owner: seen.by,
        claimed_at: seen.at,
        expires: seen.expires,
        remote: seen.remote,
        seen_at: seen.fetched_at,
      },
      next: [cmd(`claims list --remote ${seen.remote}`), cmd(`next --project ${t.project}`)],
    },
  )
}

/** The remote a new claim is made on, or null (this clone only). */
export function remoteForClaim(arb: Arbitration | undefined): string | null {
  if (arb === undefined || arb.local) return null
  return arb.explicit ?? arb.configured
}

/** The remote holding this task's claim for a release, renewal or close, or null. */
export function remoteOfClaim(arb: Arbitration | undefined, t: Pick<TaskRecord, 'claim'>): string | null {
  if (arb?.local) return null
  return arb?.explicit ?? t.claim?.remote ?? null
}

export async function open(arb: Arbitration | undefined, remote: string | null): Promise<ClaimArbiter | null> {
  return remote === null || arb === undefined ? null : arb.open(remote)
}

/**
 * Every claim this clone makes, applies or renews on a remote goes through here — `task claim` and `task renew`
 * (from the CLI, MCP and the board, which run those commands), and `sync` applying a read-only identity's proposed
 * claim: the claim ref moves first, a compare-and-swap under a lease, and the caller writes the task file only
 * after it returned. Another live holder is a ConflictError (5) and an unreachable remote a FailureError (1);
 * either way the file stays as it was. Dropping a claim goes through dropOnRelease and dropOnClose below.
 */
export async function takeOnRemote(
  arbiter: ClaimArbiter | null,
  t: Pick<TaskRecord, 'id' | 'project' | 'seq' | 'slug'>,
  who: Identity,
  expires: string | null,
  now: Date,
  /** Renew this clone's claim (under a lease on it, never taking it again) rather than take the task. */
  renew = false,
): Promise<TakeResult | null> {
  if (arbiter === null) return null
  return (renew ? arbiter.renew : arbiter.take).call(arbiter, t.id, who, expires, now, qualifiedRef(t))
}

/** What a release or close reports about the remote claim (`details.remote_claim`). */
function dropDetails(remote: string, r: DropResult): Record<string, unknown> {
  return {
    remote_claim: {
      remote,
      outcome: r.outcome,
      holder: r.holder === null ? null : { by: r.holder.by, expires: r.holder.expires, workspace: r.holder.workspace },
    },
  }
}

/** The remote a close (done, accept) answers to: `--remote`, the claim's remote, else `claims.remote`. */
function remoteForClose(arb: Arbitration | undefined, t: Pick<TaskRecord, 'claim'>): string | null {
  if (arb === undefined || arb.local) return null
  return arb.explicit ?? t.claim?.remote ?? arb.configured
}

/**
 * A task handed back (release, reopen, a retiring owner's `--release`, a removal): this clone's claim on the remote
 * is deleted under a lease; another clone's claim there (it took over an expired lease) stays theirs.
 * `dropped`: whether the remote ref went (for the log line).
 */
export function dropOnRelease(
  arb: Arbitration | undefined,
  e: Pick<TaskEdit, 'before' | 'now'>,
  who: Identity,
): Promise<{ remote: string | null; dropped: boolean; details: Record<string, unknown>; held: RemoteClaim | null }> {
  return dropHeld(arb, e.before, e.now, who)
}

/**
 * A release in this clone of the very claim another clone holds live on the remote (the file carries their claim:
 * it arrived by `record pull`, and the identity exists in every clone) would clear it in every clone that syncs:
 * a conflict (5), like claiming or closing it; nothing changes. A claim this clone made, and another clone took
 * over since, differs from theirs in its time: releasing it leaves theirs alone.
 */
export function refuseReleasingTheirs(
  t: Pick<TaskRecord, 'project' | 'seq' | 'slug' | 'claim'>,
  drop: { remote: string | null; held: RemoteClaim | null },
): void {
  const holder = drop.held
  if (holder === null || t.claim === null || holder.by !== t.claim.by || holder.at !== t.claim.at) return
  throw new ConflictError(
    `${qualifiedRef(t)} is claimed on ${drop.remote} by ${holder.by} (${holder.workspace} on ${holder.host}) until ${holder.expires ?? 'released'}: that claim is another clone's, not this clone's to release`,
    {
      details: { owner: holder.by, claimed_at: holder.at, expires: holder.expires, remote: drop.remote, holder },
      next: [`ask ${holder.by} in ${holder.workspace} on ${holder.host} to release it`],
    },
  )
}

/**
 * refuseReleasingTheirs asked before anything is handed back, with a look at the remote (nothing dropped): a command
 * that hands back several tasks (`agent retire --release`) refuses before it changes the first.
 */
export async function refuseTheirsOnRemote(
  arb: Arbitration | undefined,
  t: Pick<TaskRecord, 'id' | 'project' | 'seq' | 'slug' | 'claim'>,
  who: Identity,
): Promise<void> {
  const remote = remoteOfClaim(arb, t)
  const arbiter = await open(arb, remote)
  if (arbiter === null || remote === null) return
  const cur = await arbiter.look(t.id)
  if (cur === null || 'unreadable' in cur || arbiter.mine(cur, who.id)) return
  refuseReleasingTheirs(t, { remote, held: cur })
}

async function dropHeld(
  arb: Arbitration | undefined,
  t: Pick<TaskRecord, 'id' | 'claim'>,
  now: Date,
  who: Identity,
): Promise<{ remote: string | null; dropped: boolean; details: Record<string, unknown>; held: RemoteClaim | null }> {
  const remote = remoteOfClaim(arb, t)
  const arbiter = await open(arb, remote)
  if (arbiter === null || remote === null) return { remote: null, dropped: false, details: {}, held: null }
  const r = await arbiter.drop(t.id, who, now, { expired: false })
  const held = r.outcome === 'held' ? r.holder : null
  return { remote, dropped: r.outcome === 'dropped', details: dropDetails(remote, r), held }
}

/**
 * A task being closed (done, accept): its claim ref disappears with it. Another clone's live claim on the
 * remote is a conflict (5): the remote is the arbiter, and that clone believes it is working on the task.
 */
export async function dropOnClose(
  arb: Arbitration | undefined,
  e: TaskEdit,
  who: Identity,
  /** The command closing it, for the refusal's way forward (`accept`, else `task done`). */
  closing: 'task done' | 'accept' = 'task done',
): Promise<Record<string, unknown>> {
  const remote = remoteForClose(arb, e.before)
  const arbiter = await open(arb, remote)
  if (arbiter === null || remote === null) return {}
  const r = await arbiter.drop(e.before.id, who, e.now, { expired: true })
  if (r.outcome === 'held' && r.holder !== null) throw closingTheirs(e.before, remote, r.holder, closing)
  return dropDetails(remote, r)
}

function closingTheirs(
  t: Pick<TaskRecord, 'project' | 'seq' | 'slug'>,
  remote: string,
  holder: RemoteClaim,
  closing: 'task done' | 'accept' = 'task done',
) {
  return new ConflictError(
    `${qualifiedRef(t)} is claimed on ${remote} by ${holder.by} (${holder.workspace} on ${holder.host}); not closing it under them`,
    {
      details: { owner: holder.by, expires: holder.expires, remote, holder },
      next: [
        `ask ${holder.by} to release it`,
        `${closing === 'accept' ? cmd(`accept ${qualifiedRef(t)} --local`) : cmd(`task done ${qualifiedRef(t)} --local`)} (closes it in this clone only; the claim on ${remote} stays theirs)`,
      ],
    },
  )
}

/**
 * dropOnClose's refusal asked ahead, with a look at the remote (nothing dropped): `pr land` asks it before it
 * merges, so a clone never lands the pull request of a task another clone holds live — a merge cannot be taken back,
 * and the close after it would be refused.
 */
export async function refuseClosingTheirs(
  arb: Arbitration | undefined,
  t: Pick<TaskRecord, 'id' | 'project' | 'seq' | 'slug' | 'claim'>,
  who: Identity,
  now: Date,
): Promise<void> {
  const remote = remoteForClose(arb, t)
  const arbiter = await open(arb, remote)
  if (arbiter === null || remote === null) return
  const cur = await arbiter.look(t.id)
  if (cur === null || 'unreadable' in cur || arbiter.mine(cur, who.id) || expiredAt(cur, now)) return
  throw closingTheirs(t, remote, cur)
}
