// doctor's findings about parallel agents: a linked worktree's
// ignored copy of the store, and claims where this clone and the remote disagree
// (from the last fetch of the remote's claims, whose age every such finding states: doctor touches the network
// only with --fetch, which fetches them first).

import { cmd } from '../../base/commands.js'
import { formatDuration } from '../../base/duration.js'
import { claimViewAge, expiredAt, readClaimCache } from '../../domain/claims/arbiter.js'
import type { Plan } from '../../domain/task/planview.js'
import type { Broken, TaskSummary } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { type EventRecord, isOpenQuestion, isQuestionId } from '../../store/events.js'
import type { Store } from '../../store/store.js'
import { shadowedCopies } from '../../store/workspace.js'
import type { DoctorDocT } from './json.js'

type Finding = DoctorDocT['findings'][number]

export function coordinationFindings(store: Store, tasks: readonly TaskSummary[], now: Date): Finding[] {
  const out: Finding[] = []
  for (const copy of shadowedCopies(store.root, store.git)) {
    out.push({
      code: 'shadowed-worktree-copy',
      severity: 'info',
      subject: copy,
      message: `a linked worktree's checked-out copy of the store, which dacli ignores: every worktree of this clone uses ${store.dir}`,
      hint: 'nothing to do: run dacli from any worktree; the copy changes only with the commits you check out there',
    })
  }
  const cache = readClaimCache(store)
  const age = claimViewAge(store, now)
  const asOf =
    age?.fetch_age_seconds == null
      ? 'as seen in single looks, never fetched whole'
      : `as fetched from ${age.remote} ${formatDuration(age.fetch_age_seconds * 1000) || '0s'} ago`
  const byId = new Map(tasks.map((t) => [t.id, t]))
  for (const c of cache?.claims ?? []) {
    const t = byId.get(c.task)
    if (t !== undefined && t.status !== 'done') continue
    out.push({
      code: 'stale-remote-claim',
      severity: 'warning',
      subject: t === undefined ? c.task : qualifiedRef(t),
      message: `refs/dacli/claims/${c.task} on ${cache?.remote} (by ${c.by}, ${c.host}:${c.workspace}) names a task that is ${t === undefined ? 'not in this clone (dacli record pull if another clone made it)' : 'done'} (${asOf})`,
      hint: `check it is still there (dacli doctor --fetch); once nobody works on it: git push ${cache?.remote} --delete refs/dacli/claims/${c.task}`,
    })
  }
  // A full fetch tells what the remote knows; a claim made after that fetch is not judged by it.
  const fetched = cache?.fetched_at ?? null
  for (const t of tasks) {
    if (t.status === 'done' || t.owner === null || t.claim === null || expiredAt(t.claim, now)) continue
    const remote = t.claim.remote
    if (remote === null) {
      if (store.config.claims_remote === null) continue
      out.push({
        code: 'unpublished-claim',
        severity: 'warning',
        subject: qualifiedRef(t),
        message: `${t.claim.by}'s claim was made in this clone only (--local); ${store.config.claims_remote}, which arbitrates claims, does not know it`,
        hint: `${t.claim.by} publishes it with dacli task claim ${qualifiedRef(t)} (exit 5 if another clone holds it)`,
      })
      continue
    }
    if (cache === null || cache.remote !== remote || fetched === null || fetched < t.claim.at) continue
    const there = cache.claims.find((c) => c.task === t.id)
    if (there !== undefined && there.by === t.claim.by && there.workspace === store.dir) continue
    // The claim this file carries is the remote's own, made in another clone (the file came by record pull).
    if (there !== undefined && there.by === t.claim.by && there.at === t.claim.at) continue
    out.push({
      code: 'unpublished-claim',
      severity: 'warning',
      subject: qualifiedRef(t),
      message:
        there === undefined
          ? `${t.claim.by} holds it here, but ${remote} has no claim for it (as of ${fetched})`
          : `${t.claim.by} holds it here, but on ${remote} it is claimed by ${there.by} (${there.host}:${there.workspace})`,
      hint: `${t.claim.by} claims it again (dacli task claim ${qualifiedRef(t)}) or releases it`,
    })
  }
  return out
}

/**
 * A blocked task whose `blocked_by` nothing will ever settle: a question that is not open (its file removed or
 * refused, or it was answered or dismissed without the task hearing of it), or a task that is not there.
 */
export function danglingBlocks(
  plan: Plan,
  events: { events: readonly EventRecord[]; broken: readonly Broken[] },
): Finding[] {
  const out: Finding[] = []
  for (const t of plan.tasks) {
    const on = t.blocked_by
    if (t.status !== 'blocked' || on === null) continue
    let why: string | null = null
    if (isQuestionId(on)) {
      const q = events.events.find((e) => e.id === on)
      const bare = on.slice(2).toUpperCase()
      const refused = events.broken.find((b) => (b.path.split('/').pop() ?? '').toUpperCase().startsWith(bare))
      if (q !== undefined)
        why = isOpenQuestion(q) ? null : `which was ${q.state === 'dismissed' ? 'dismissed' : 'answered'}`
      else if (refused !== undefined) why = `whose file ${refused.path} cannot be used (${refused.reason})`
      else why = 'which is not there (its file was removed)'
    } else if (plan.target(t, on) === null) {
      why = 'which does not resolve to one task'
    }
    if (why === null) continue
    out.push({
      code: 'dangling-block',
      severity: 'warning',
      subject: qualifiedRef(t),
      message: `blocked by ${on}, ${why}: nothing will unblock it`,
      hint: cmd(`task unblock ${qualifiedRef(t)}`),
    })
  }
  return out
}
