// Claims arbitrated by a git remote: the store's side. The
// protocol itself (commits, lease-protected pushes, fetches) is in
// internal/domain/claims/remote.ts; the lifecycle sees only the `ClaimArbiter` interface,
// and the last fetch is kept in `.dacli/cache/remote-claims.json` for the
// commands that must not touch the network (next, overview, doctor).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { keptCloneId } from '../../adapters/git/clone.js'
import { UsageError } from '../../base/errors.js'
import { stamp } from '../../base/time.js'
import { isId } from '../../format/ids.js'
import type { Identity } from '../../format/model.js'
import { seal, unseal } from '../../store/cachekey.js'
import { atomicWrite, linkOnPath, readText } from '../../store/fsio.js'
import type { Store } from '../../store/store.js'
import { checkRemote } from '../../store/workspace.js'

/** A claim as the remote holds it: the ref `refs/dacli/claims/<task>` and the YAML message of its commit. */
export interface RemoteClaim {
  task: string
  by: string
  at: string
  expires: string | null
  /** The `.dacli/` folder of the clone that made it (with `host`, it names the clone). */
  workspace: string
  host: string
  /** The clone id of the clone that made it (kept in its git directory); null for a claim made before clone ids. */
  clone: string | null
  /** The commit the ref points at. */
  commit: string
}

export interface TakeResult {
  /** created: the ref did not exist; taken-over: it held an expired claim; renewed: it held this clone's claim. */
  outcome: 'created' | 'taken-over' | 'renewed'
  previous: RemoteClaim | null
  commit: string
  /** The claim's `at` as pushed: when it was taken (a renewal of this clone's own claim keeps the one it had). */
  at: string
}

export interface DropResult {
  /** dropped: the ref was deleted; absent: there was none; held: another clone holds a live claim (left alone). */
  outcome: 'dropped' | 'absent' | 'held'
  holder: RemoteClaim | null
}

export interface ClaimArbiter {
  readonly remote: string
  /** Does this claim belong to `who` in this clone? */
  mine(c: RemoteClaim, who: string): boolean
  /**
   * Point the claim ref at a new claim of `who`, only if it is absent, expired, or already this clone's —
   * each under a lease on the value seen. Another live claim is a ConflictError (5) naming the holder; an
   * unreachable remote is a FailureError (1). Nothing local changes either way.
   */
  take(task: string, who: Identity, expires: string | null, now: Date, label?: string): Promise<TakeResult>
  /**
   * Renew this clone's claim: its commit replaced under a lease on it. A claim that is gone from the remote, or that
   * another clone holds now (even expired), is not taken again: ConflictError (5).
   */
  renew(task: string, who: Identity, expires: string | null, now: Date, label?: string): Promise<TakeResult>
  /** What the remote holds for a task now (fetched): its claim, a ref that is not a claim (by commit), or null. */
  look(task: string): Promise<RemoteClaim | { unreadable: string } | null>
  /** Delete the claim ref under a lease when it is this clone's (or, with `expired`, anyone's expired claim). */
  drop(task: string, who: Identity, now: Date, opts: { expired: boolean }): Promise<DropResult>
}

/** How a lifecycle command arbitrates: `--local`, `--remote R`, or `claims: {remote: R}` in config.yml. */
export interface Arbitration {
  /** `--local`: this clone only; no remote is touched. */
  local: boolean
  /** `--remote R`. */
  explicit: string | null
  /** `claims.remote` in config.yml. */
  configured: string | null
  open(remote: string): Promise<ClaimArbiter>
}

/**
 * The one rule of a lease: a claim with an expiry has expired once that moment has come (a claim without one
 * never expires). Every view and every takeover asks this.
 */
export const expiredAt = (c: { expires: string | null }, now: Date) =>
  c.expires !== null && Date.parse(c.expires) <= now.getTime()

/** The arbitration a command's `--remote` / `--local` flags and config.yml ask for. */
export function arbitrationOf(
  store: Store,
  env: Readonly<Record<string, string | undefined>>,
  flags: { remote?: string | undefined; local?: boolean | undefined },
): Arbitration {
  if (flags.remote !== undefined && flags.local === true) {
    throw new UsageError('--remote and --local contradict each other: give one', {
      details: { conflicting_flags: ['--remote', '--local'] },
    })
  }
  return {
    local: flags.local === true,
    explicit: flags.remote === undefined ? null : checkRemote(flags.remote, '--remote'),
    configured: store.config.claims_remote,
    open: async (remote) => (await import('./remote.js')).openClaims(store, env, remote),
  }
}

// ------------------------------------------------------------------ the last fetch

const CACHE = 'remote-claims.json'

export interface ClaimCache {
  remote: string
  /** When the remote's claims were last fetched as a whole (claims list, next --fetch); null: only single claims seen. */
  fetched_at: string | null
  /** Each with when it was seen on the remote (`seen_at`: a whole fetch, or a single look, take or drop). */
  claims: (RemoteClaim & { seen_at?: string })[]
}

const cacheFile = (store: Store) => path.join(store.dir, 'cache', CACHE)

/** A time as the cache holds one (an RFC 3339 stamp dacli wrote): anything else dates nothing. */
const isTime = (v: unknown): v is string => typeof v === 'string' && v.length <= 40 && Number.isFinite(Date.parse(v))
const isText = (v: unknown): v is string =>
  typeof v === 'string' && v.length <= 4096 && !/[\u0000-\u001f\u007f]/.test(v)

/** A claim as `updateClaimCache` writes it; a hand-edited one of another shape is left out, never served. */
const isCachedClaim = (v: unknown): v is ClaimCache['claims'][number] => {
  if (v === null || typeof v !== 'object') return false
  const c = v as Record<string, unknown>
  return (
    isId('task', c.task) &&
    isId('agent', c.by) &&
    isTime(c.at) &&
    (c.expires === null || isTime(c.expires)) &&
    isText(c.workspace) &&
    isText(c.host) &&
    (c.clone === null || c.clone === undefined || isText(c.clone)) &&
    typeof c.commit === 'string' &&
    /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(c.commit) &&
    (c.seen_at === undefined || isTime(c.seen_at))
  )
}

/**
 * The claims seen on the remote, or null when none were ever fetched (or the cache is unreadable). Read as every
 * file under `.dacli/` is: never through a link, never a FIFO or device (which would hang `next`, `doctor` and
 * `explain`), and only the claims of the shape dacli writes.
 */
export function readClaimCache(store: Store): ClaimCache | null {
  try {
    const file = cacheFile(store)
    const key = store.cacheTrust().key()
    if (key === null || linkOnPath(file, store.dir) !== null) return null
    const body = unseal(key, CACHE, readText(file))
    if (body === null) return null // not written by this clone's dacli: planted, or edited by hand
    const c = JSON.parse(body) as ClaimCache
    if (c === null || typeof c !== 'object' || typeof c.remote !== 'string' || !Array.isArray(c.claims)) return null
    return {
      remote: c.remote,
      fetched_at: isTime(c.fetched_at) ? c.fetched_at : null,
      claims: c.claims.filter(isCachedClaim),
    }
  } catch {
    return null
  }
}

/**
 * Update what is known of one remote's claims: every claim (`all`, after a whole fetch), or one task's
 * (`one`: its claim, or null when it has none). Serialized by a lock; a cache of another remote is replaced.
 */
export async function updateClaimCache(
  store: Store,
  remote: string,
  change: { all: RemoteClaim[]; at: string } | { task: string; claim: RemoteClaim | null },
): Promise<void> {
  return store.withLock('remote-claims', async () => {
    const cur = readClaimCache(store)
    const base: ClaimCache = cur !== null && cur.remote === remote ? cur : { remote, fetched_at: null, claims: [] }
    const seen = stamp(store.now())
    const next: ClaimCache =
      'all' in change
        ? { remote, fetched_at: change.at, claims: change.all.map((c) => ({ ...c, seen_at: change.at })) }
        : {
            ...base,
            claims: [
              ...base.claims.filter((c) => c.task !== change.task),
              ...(change.claim ? [{ ...change.claim, seen_at: seen }] : []),
            ],
          }
    next.claims.sort((a, b) => (a.task < b.task ? -1 : a.task > b.task ? 1 : 0))
    const key = store.cacheTrust().key()
    if (key !== null) atomicWrite(store.system, cacheFile(store), seal(key, CACHE, `${JSON.stringify(next)}\n`))
  })
}

/** Ids of tasks another clone (or identity) holds a live claim on, from the last fetch; empty without one. */
export function claimedElsewhere(store: Store, now: Date, who?: string): Set<string> {
  const cache = readClaimCache(store)
  const out = new Set<string>()
  for (const c of cache?.claims ?? []) {
    if (expiredAt(c, now)) continue
    if (who !== undefined && c.by === who && c.workspace === store.dir) continue
    out.add(c.task)
  }
  return out
}

// ------------------------------------------------------------------ dated views of the remote's claims

/** How old this clone's view of the remote's claims is. */
export interface ClaimViewAge {
  remote: string
  /** When the remote's claims were last fetched as a whole; null when only single claims were ever seen. */
  fetched_at: string | null
  /** Seconds since then (null with `fetched_at`). */
  fetch_age_seconds: number | null
}

/** A claim the remote holds for a task, as this clone last saw it, dated by that sighting. */
export interface RemoteClaimView {
  remote: string
  by: string
  at: string
  expires: string | null
  expired: boolean
  lease_left_seconds: number | null
  host: string
  workspace: string
  /** Made from this clone (its `.dacli/` folder and host). */
  this_clone: boolean
  /** When it was seen on the remote (a fetch, or this clone's own take or look). */
  fetched_at: string
  fetch_age_seconds: number
}

const ageOf = (at: string, now: Date) => Math.max(0, Math.round((now.getTime() - Date.parse(at)) / 1000))

/** The age of the view of the remote's claims, or null when none was ever fetched. */
export function claimViewAge(store: Store, now: Date): ClaimViewAge | null {
  const cache = readClaimCache(store)
  if (cache === null) return null
  return {
    remote: cache.remote,
    fetched_at: cache.fetched_at,
    fetch_age_seconds: cache.fetched_at === null ? null : ageOf(cache.fetched_at, now),
  }
}

/** The claims the remote holds as last seen (with `task`, live and expired), each dated. */
export function remoteClaimViews(store: Store, now: Date): (RemoteClaimView & { task: string })[] {
  const cache = readClaimCache(store)
  if (cache === null) return []
  let mtime: string | null = null
  const fallback = () => {
    if (mtime === null) {
      try {
        mtime = stamp(fs.statSync(cacheFile(store)).mtime)
      } catch {
        mtime = stamp(now)
      }
    }
    return mtime
  }
  // A claim is this clone's only with this clone's id too (a claim made before clone ids has none to compare).
  const clone = store.git === null ? null : keptCloneId(store.git.commonDir)
  return cache.claims.map((c) => {
    const seen = typeof c.seen_at === 'string' ? c.seen_at : (cache.fetched_at ?? fallback())
    return {
      task: c.task,
      remote: cache.remote,
      by: c.by,
      at: c.at,
      expires: c.expires,
      expired: expiredAt(c, now),
      lease_left_seconds: c.expires === null ? null : Math.round((Date.parse(c.expires) - now.getTime()) / 1000),
      host: c.host,
      workspace: c.workspace,
      this_clone:
        c.workspace === store.dir &&
        c.host === store.system.hostname &&
        (typeof c.clone !== 'string' || c.clone === clone),
      fetched_at: seen,
      fetch_age_seconds: ageOf(seen, now),
    }
  })
}

/** The remote's claim on one task as last seen, dated; null when none was seen. */
export function remoteClaimOf(store: Store, task: string, now: Date): RemoteClaimView | null {
  const v = remoteClaimViews(store, now).find((c) => c.task === task)
  if (v === undefined) return null
  const { task: _t, ...view } = v
  return view
}
