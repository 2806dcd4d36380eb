import { count, countWith } from '../../base/text.js'
import { defineCommand } from '../../clikit/command.js'
import { STATUS_STYLE } from '../../clikit/io.js'
import { shortRef } from '../../clikit/text.js'
import { claimViewAge, expiredAt, remoteClaimViews } from '../../domain/claims/arbiter.js'
import { progressOf } from '../../domain/delivery/progress.js'
import { vouchedEvents } from '../../domain/identity/vouched.js'
import { loadOverlaps } from '../../domain/task/footprint.js'
import { loadPlan, readyFrontier, remoteClaims } from '../../domain/task/planview.js'
import { STATUSES, type TaskSummary } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { conflictCopies } from '../../store/conflicts.js'
import { isOpenQuestion, isPendingProposal } from '../../store/events.js'
import type { Store } from '../../store/store.js'
import { labelFilterFlag, withLabels } from '../shared/labels.js'
import { ago } from '../shared/taskdoc.js'
import type { OverviewDocT } from './json.js'

export const overview = defineCommand({
  path: 'overview',
  summary: 'The first screen: projects, counts, work in progress, and what is ready to start',
  description:
    'Counts by status, WIP (active tasks against wip_limit), pending events, live agents (identities holding an unexpired claim) and at most three ready tasks with the command that starts each (tasks another clone holds a live claim on, as last fetched from the remote, are not offered, and neither are tasks whose paths overlap work in progress: held_back counts them, dacli next lists them). With --label, the counts, ready tasks and delivery states are those of the tasks carrying every label given.',
  args: [],
  flags: { label: labelFilterFlag },
  json: 'workspace-overview/v1',
  mutates: false,
  common: true,
  async run(ctx, input) {
    const labelled = withLabels(input.flags.label)
    const store = await ctx.store()
    const loaded = await loadPlan(store)
    const plan = input.flags.label === undefined ? loaded : { ...loaded, tasks: loaded.tasks.filter(labelled) }
    const now = ctx.now().getTime()
    const counts = { open: 0, active: 0, blocked: 0, done: 0 }
    for (const t of plan.tasks) counts[t.status]++
    const live = new Set(
      plan.tasks.flatMap((t) =>
        t.status !== 'done' && t.claim !== null && !expiredAt(t.claim, new Date(now)) ? [t.claim.by] : [],
      ),
    )
    const ev = await vouchedEvents(store, (e) => e.state === 'pending')
    // What it could not count is said, as every listing says it (a folder without project.md, an unreadable file).
    ctx.notes.skipped([...loaded.broken, ...ev.broken])
    const elsewhere = await remoteClaims(store, ctx.env, ctx.now(), null)
    const overlaps = await loadOverlaps(store, ctx.env, (await ctx.identity()).id, elsewhere)
    const f = readyFrontier(plan, 3, undefined, elsewhere, (t, picked) => overlaps.hold(t, picked))
    const data: OverviewDocT = {
      schema: 'workspace-overview/v1',
      version: 1,
      projects: store.projectSlugs().length,
      tasks: plan.tasks.length,
      counts,
      wip: { active: counts.active, capacity: store.config.wip_limit },
      pending_events: ev.events.filter(isPendingProposal).length,
      open_questions: ev.events.filter(isOpenQuestion).length,
      live_agents: live.size,
      record_conflicts: conflictCopies(store.dir, { skipEvents: true, watch: store.live }).length,
      ready_now: f.ready.map((t) => ({
        id: t.id,
        ref: qualifiedRef(t),
        title: t.title,
        priority: t.priority,
        command: `dacli task claim ${qualifiedRef(t)}`,
      })),
      held_back: f.held.length,
      delivery: progressOf((await store.listRecords()).records.filter(labelled), store.projectSlugs()),
      remote_claims: remoteClaimsOf(store, loaded.tasks, ctx.now()),
    }
    return {
      data,
      human(out) {
        const s = out.style
        out.line(`${s('bold', store.config.name)}  ${count(data.projects, 'project')}, ${count(data.tasks, 'task')}`)
        out.line(`  ${STATUSES.map((k) => `${s(STATUS_STYLE[k], k)} ${s('bold', String(counts[k]))}`).join('  ·  ')}`)
        const cap = data.wip.capacity
        const wip =
          cap === null
            ? `${counts.active} active`
            : `${counts.active}/${cap} active${counts.active > cap ? s('red', ' (over the WIP limit)') : ''}`
        out.line(
          `  WIP ${wip}  ·  ${count(data.live_agents, 'live agent')}  ·  ${count(data.pending_events, 'pending event')}`,
        )
        if (data.record_conflicts > 0)
          out.line(
            s(
              'red',
              `  ${count(data.record_conflicts, 'unresolved record conflict copy', 'unresolved record conflict copies')} — record push refuses until resolved (dacli status lists them)`,
            ),
          )
        const rc = data.remote_claims
        if (rc !== null) {
          const age = rc.fetch_age_seconds === null ? 'never fetched whole' : `fetched ${ago(rc.fetch_age_seconds)}`
          const elsewhere = rc.live.filter((c) => !c.this_clone).length
          out.line(
            `  ${count(rc.live.length, 'live claim')} on ${rc.remote} (${elsewhere} from other clones), ${age}${s('dim', ' — dacli claims list refreshes')}`,
          )
        }
        out.line('')
        out.line(s('bold', 'Ready now'))
        if (data.ready_now.length === 0) out.line(`  ${f.explanation ?? 'nothing is ready'}`)
        out.table(
          ['PRI', 'REF', 'TITLE'],
          data.ready_now.map((r) => [r.priority ?? '-', shortRef(r.ref), r.title]),
          { indent: 2 },
        )
        if (data.ready_now.length > 0)
          out.line(s('dim', `  start: dacli task claim ${shortRef(data.ready_now[0]?.ref ?? '')}`))
        out.line('')
        out.line(s('dim', 'more: dacli next · dacli status · dacli task list · dacli context <ref>'))
        if (data.pending_events > 0) out.line(s('dim', 'apply pending proposals: dacli sync'))
        if (data.open_questions > 0)
          out.line(
            s(
              'yellow',
              `${countWith(data.open_questions, 'open question', 'waits', 'wait')} for a person: dacli threads --open`,
            ),
          )
      },
    }
  },
})

/** The live claims the remote holds, as last seen, each with the task here and the age of its sighting. */
function remoteClaimsOf(store: Store, tasks: readonly TaskSummary[], now: Date): OverviewDocT['remote_claims'] {
  const age = claimViewAge(store, now)
  if (age === null) return null
  const byId = new Map(tasks.map((t) => [t.id, t]))
  const live = remoteClaimViews(store, now)
    .filter((c) => !c.expired)
    .map((c) => {
      const t = byId.get(c.task)
      return {
        id: c.task,
        ref: t === undefined ? null : qualifiedRef(t),
        by: c.by,
        expires: c.expires,
        host: c.host,
        workspace: c.workspace,
        this_clone: c.this_clone,
        fetched_at: c.fetched_at,
        fetch_age_seconds: c.fetch_age_seconds,
      }
    })
  return { ...age, live }
}
