// The parts of `explain`, each read from the one place that owns it: the task file
// (status, claim, criteria), the readiness engine and the plan (readiness, rank,
// slack: the same code as `next`), the question events, the landing check of
// `task done`, and the last fetch of the remote's claims.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { classifiedError } from '../../base/errors.js'
import { expiredAt, readClaimCache, remoteClaimOf } from '../../domain/claims/arbiter.js'
import { vouchedEvents } from '../../domain/identity/vouched.js'
import { readiness } from '../../domain/plan/readiness.js'
import { questionPayload } from '../../domain/questions/payload.js'
import { checkLanding } from '../../domain/task/landing.js'
import { depsOf, type Plan, readyFrontier } from '../../domain/task/planview.js'
import { stamp, type TaskRecord } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { type EventRecord, isQuestionId } from '../../store/events.js'
import type { Store } from '../../store/store.js'
import type { ExplainDocT } from './json.js'

type Part<K extends keyof ExplainDocT> = ExplainDocT[K]

export function statusPart(t: TaskRecord, plan: Plan, at: string): Part<'status'> {
  const b = t.status === 'blocked' ? t.blocked_by : null
  const blocker = b === null || isQuestionId(b) ? null : plan.target(t, b)
  const lastBlock = t.status === 'blocked' ? t.log.filter((l) => l.verb === 'blocked').at(-1) : undefined
  return {
    value: t.status,
    blocked_by: b,
    blocked_by_kind: b === null ? null : isQuestionId(b) ? 'question' : 'task',
    blocked_by_ref: blocker === null ? null : qualifiedRef(blocker),
    // The log line is `by <id>: <why>`, `by <id>` or `<why>`: keep the why.
    reason: lastBlock?.details.replace(/^by \S+(?:: )?/, '').trim() || null,
    source: `${t.path} (its folder; blocked_by; ## Log)`,
    observed_at: at,
  }
}

export function readinessPart(t: TaskRecord, plan: Plan, at: string): Part<'readiness'> {
  const statusOf = (id: string) => plan.byId.get(id)?.status ?? null
  const r = readiness(t, depsOf(plan, t), statusOf)
  return {
    ready: r.ready,
    reason: r.reason,
    unmet: r.holds.map((h) => {
      const p = plan.byId.get(h.on) ?? null
      return {
        id: p?.id ?? null,
        ref: p === null ? h.on : qualifiedRef(p),
        title: p?.title ?? null,
        type: h.type === 'SS' ? 'SS' : 'FS',
        status: h.status,
        needs: h.needs,
        source: p?.path ?? `${t.path} (depends_on: ${h.on}, which names no task)`,
      }
    }),
    source: `${t.path} (depends_on), with each predecessor’s task file`,
    observed_at: at,
  }
}

/** Its place in `dacli next` (the workspace's frontier) and its slack in the workspace's schedule. */
export function schedulePart(t: TaskRecord, plan: Plan, elsewhere: ReadonlySet<string>, at: string): Part<'schedule'> {
  const f = readyFrontier(plan, Math.max(1, plan.tasks.length), undefined, elsewhere)
  const i = f.ready.findIndex((x) => x.id === t.id)
  const row = f.schedule?.rows.find((r) => r.id === t.id) ?? null
  const ready = readiness(t, depsOf(plan, t), (id) => plan.byId.get(id)?.status ?? null)
  const why =
    i >= 0
      ? null
      : t.status !== 'open'
        ? `it is ${t.status}: next offers only open tasks`
        : t.priority === 'wont'
          ? 'its priority is wont: it is out of the plan'
          : elsewhere.has(t.id)
            ? 'another clone holds a live claim on it (the remote’s claims as last fetched)'
            : !ready.ready
              ? 'a dependency holds its start'
              : 'next offers no could while a must is ready'
  return {
    rank: i >= 0 ? i + 1 : null,
    ready_count: f.ready.length,
    why_unranked: why,
    slack: row?.slack ?? null,
    critical: row?.critical ?? false,
    source:
      f.schedule === null
        ? 'dacli next (the workspace’s ready frontier; a dependency cycle leaves no schedule, so no slack)'
        : 'dacli next and dacli critical-path (the workspace’s ready frontier and schedule)',
    observed_at: at,
  }
}

export function claimPart(store: Store, t: TaskRecord, now: Date, at: string): Part<'claim'> {
  const c = t.claim
  // What the remote holds for it, as last seen there, dated by that sighting (this clone's claim or another's).
  const remote_claim = remoteClaimOf(store, t.id, now)
  if (c !== null) {
    const left = c.expires === null ? null : Math.round((Date.parse(c.expires) - now.getTime()) / 1000)
    const expired = expiredAt(c, now)
    return {
      held: !expired,
      by: c.by,
      at: c.at,
      expires: c.expires,
      lease_left_seconds: left,
      expired,
      where: c.remote === null ? 'local' : 'remote',
      remote: c.remote,
      other_clone: null,
      remote_claim,
      source: `${t.path} (claim)${c.remote === null ? '' : `; the claim ref refs/dacli/claims/${t.id} on ${c.remote}`}`,
      observed_at: at,
    }
  }
  // Not claimed here: another clone may hold it on the remote, as last fetched.
  const cache = readClaimCache(store)
  const theirs = cache?.claims.find((x) => x.task === t.id && x.workspace !== store.dir) ?? null
  const cacheFile = path.join(store.dir, 'cache', 'remote-claims.json')
  if (cache === null || theirs === null) {
    return {
      held: false,
      by: null,
      at: null,
      expires: null,
      lease_left_seconds: null,
      expired: false,
      where: null,
      remote: null,
      other_clone: null,
      remote_claim,
      source:
        cache === null
          ? `${t.path} (no claim)`
          : `${t.path} (no claim); ${store.rel(cacheFile)} (no claim on ${cache.remote})`,
      observed_at: at,
    }
  }
  const expired = expiredAt(theirs, now)
  let fetched = cache.fetched_at
  if (fetched === null) {
    try {
      fetched = stamp(fs.statSync(cacheFile).mtime)
    } catch {
      fetched = at
    }
  }
  return {
    held: !expired,
    by: theirs.by,
    at: theirs.at,
    expires: theirs.expires,
    lease_left_seconds:
      theirs.expires === null ? null : Math.round((Date.parse(theirs.expires) - now.getTime()) / 1000),
    expired,
    where: 'remote',
    remote: cache.remote,
    other_clone: { host: theirs.host, workspace: theirs.workspace },
    remote_claim,
    source: `${store.rel(cacheFile)} (refs/dacli/claims/${t.id} on ${cache.remote}, as last fetched)`,
    observed_at: fetched,
  }
}

export async function questionsPart(store: Store, t: TaskRecord, at: string): Promise<Part<'questions'>> {
  const about = (e: EventRecord) => e.event_kind === 'question' && e.about === t.id
  const asked = (await vouchedEvents(store, about)).events.filter(about)
  const count = (s: EventRecord['state']) => asked.filter((q) => q.state === s).length
  return {
    open: asked
      .filter((q) => q.state === 'pending')
      .map((q) => ({
        id: q.id,
        question: q.body,
        need: questionPayload(q.data).need,
        asked_by: q.created_by,
        asked_at: q.created,
        blocks: questionPayload(q.data).blocks,
        source: q.path,
      })),
    answered: count('applied'),
    dismissed: count('dismissed'),
    source: `${store.rel(path.join(store.dir, 'events'))}/ (question events about ${t.id})`,
    observed_at: at,
  }
}

export function criteriaPart(t: TaskRecord, at: string): Part<'criteria'> {
  const proven = new Set(t.verifications.filter((v) => v.exit_code === 0).flatMap((v) => v.checked))
  const checked = t.acceptance.filter((a) => a.checked)
  const verified = checked.filter((a) => proven.has(a.n)).length
  return {
    total: t.acceptance.length,
    checked: checked.length,
    verified,
    attested: checked.length - verified,
    unverified: t.unverified,
    unchecked: t.acceptance.filter((a) => !a.checked).map((a) => ({ n: a.n, text: a.text })),
    source: `${t.path} (## Acceptance criteria, ## Verification)`,
    observed_at: at,
  }
}

/** The branch a close logged (`landed <sha> (<branch> in <trunk>…)` or `unlanded <branch>: …`), if any. */
function loggedLanding(
  t: TaskRecord,
): { verb: 'landed' | 'unlanded'; details: string; at: string; branch: string } | null {
  const l = t.log.filter((x) => x.verb === 'landed' || x.verb === 'unlanded').at(-1)
  if (l === undefined) return null
  const m = l.verb === 'landed' ? /^\S+ \((\S+) in /.exec(l.details) : /^(\S+): /.exec(l.details)
  return { verb: l.verb as 'landed' | 'unlanded', details: l.details, at: l.at, branch: m?.[1] ?? '' }
}

/** The landing check of `task done`, read-only: the branch (its worktree's, --branch, or the one its close logged). */
export async function landingPart(
  store: Store,
  t: TaskRecord,
  req: { branch?: string; into?: string },
  at: string,
): Promise<Part<'landing'>> {
  const logged = loggedLanding(t)
  const branch = req.branch ?? t.worktree?.branch ?? t.branch ?? (logged?.branch || null)
  const branchSource = req.branch !== undefined ? 'flag' : t.worktree !== null || t.branch !== null ? 'worktree' : 'log'
  const part = (
    found: Pick<
      Part<'landing'>,
      'trunk' | 'trunk_commit' | 'landed' | 'missing' | 'merged_as' | 'unknown_reason' | 'head'
    >,
    source: string,
  ): Part<'landing'> => ({
    branch,
    branch_source: branch === null ? null : branchSource,
    ...found,
    logged: logged === null ? null : { verb: logged.verb, details: logged.details, at: logged.at },
    source,
    observed_at: at,
  })
  const none = { trunk: null, trunk_commit: null, landed: null, missing: [], merged_as: null, head: null }
  if (branch === null)
    return part({ ...none, unknown_reason: null }, `${t.path} (no worktree; no landed line in its log)`)
  try {
    // The check `task done` runs, allowed to find it unlanded (nothing is written).
    const shadow: TaskRecord = { ...t, worktree: { path: t.worktree?.path ?? '', branch } }
    const l = await checkLanding(store, shadow, {
      allowUnlanded: true,
      ...(req.into === undefined ? {} : { into: req.into }),
      ...(req.branch === undefined ? {} : { branch: req.branch }),
    })
    if (l === null) throw new Error('unreachable: a branch always has a landing')
    const found = {
      trunk: l.trunk,
      trunk_commit: l.trunk_commit,
      landed: l.landed,
      missing: l.missing,
      merged_as: l.merged_as,
      head: l.head,
      unknown_reason: null,
    }
    return part(
      found,
      l.head === null
        ? `git log --merges --grep=${branch} ${l.trunk} (the branch is gone)`
        : `git cherry ${l.trunk} ${branch}`,
    )
  } catch (e) {
    // No git (failure) or no trunk (refused): say so. A --branch or --into naming nothing is the caller's error.
    // A branch read from the task file (its worktree, its log; a hand edit, another clone) is the file's, not the
    // caller's: say it, never exit 2.
    const k = classifiedError(e)?.kind
    if (k === 'usage' && req.branch === undefined && req.into === undefined) {
      const where = t.worktree !== null ? 'its worktree' : `the ${logged?.verb ?? 'landed'} line of its log`
      return part(
        { ...none, unknown_reason: `${where} names ${branch}: ${(e as Error).message}` },
        `${t.path} (${t.worktree !== null ? 'worktree' : '## Log'})`,
      )
    }
    if (k !== 'refused' && k !== 'failure') throw e
    return part({ ...none, unknown_reason: (e as Error).message }, 'the landing check of task done')
  }
}
