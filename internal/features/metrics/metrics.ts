import { formatDuration } from '../../base/duration.js'
import { epochOfStamp } from '../../base/time.js'
import { defineCommand } from '../../clikit/command.js'
import { duration, str } from '../../clikit/flags.js'
import type { Out } from '../../clikit/io.js'
import { progressOf } from '../../domain/delivery/progress.js'
import { FAILURE_CLASSES, type HistoryLine, measure, type TaskHistory } from '../../domain/plan/metrics.js'
import { projectFilter } from '../../format/ids.js'
import { stamp, type TaskRecord } from '../../format/model.js'
import { listEvents } from '../../store/events.js'
import { listTombstones } from '../../store/tombstones.js'
import type { MetricsDocT } from './json.js'

const historyOf = (t: TaskRecord): TaskHistory => ({
  id: t.id,
  log: t.log.map((l): HistoryLine => ({ at: epochOfStamp(l.at), verb: l.verb, details: l.details })),
})

export const metrics = defineCommand({
  path: 'metrics',
  summary: 'Delivery measured from what the store recorded: completion, retries, failures, wall time, tokens',
  description:
    'Reads task logs, tombstones and questions; nothing is estimated. The window holds the tasks that finished (their last done or accept) at or after --since, and for completion the tasks removed in it; each measure is taken over those tasks’ whole histories. completion = done ÷ (done + removed); retry = reopens per finished task; failures counts, by class, reopens, claims taken over (lease-expired), closes that were --allow-unverified or had criteria ticked without --verify (unverified-close), --allow-unlanded closes (unlanded-override) and blocks (a question that blocked the task included); wall_time runs from a task’s first claim to its last close; tokens are what closes reported with --tokens; human_intervention = answered questions per finished task. A measure with no samples is null (shown as —), never 0. No command records a token budget yet, so tokens.budget is null.',
  args: [],
  flags: {
    project: str('only tasks of this project', { valueName: 'SLUG' }),
    since: duration('only tasks finished (or removed) within this long before now', { defaultText: 'all history' }),
  },
  json: 'metrics/v1',
  mutates: false,
  examples: ['dacli metrics', 'dacli metrics --project ledger --since 7d --json'],
  async run(ctx, input) {
    const store = await ctx.store()
    const project = projectFilter(input.flags.project)
    if (project !== undefined) store.requireProject(project)
    const now = ctx.now()
    // To the second, like the log's stamps, so the window printed is exactly the one applied.
    const since = input.flags.since === undefined ? null : Math.floor((now.getTime() - input.flags.since) / 1000) * 1000

    const { records, broken } = await store.listRecords(project)
    const tombs = await listTombstones(store, project)
    const events = await listEvents(store)
    ctx.notes.skipped([...broken, ...tombs.broken, ...events.broken])

    const answered = new Map<string, number>()
    for (const e of events.events) {
      if (e.event_kind !== 'question' || e.answered === null || e.about === null) continue
      answered.set(e.about, (answered.get(e.about) ?? 0) + 1)
    }
    const m = measure({
      done: records.filter((t) => t.status === 'done').map(historyOf),
      removed: tombs.tombstones.map((t) => historyOf(t.task)),
      answered,
      since,
    })
    const data: MetricsDocT = {
      schema: 'metrics/v1',
      schema_version: 1,
      window: { since: since === null ? null : stamp(new Date(since)), until: stamp(now) },
      ...m,
      delivery: progressOf(records, project === undefined ? store.projectSlugs() : [project]),
    }
    return { data, human: (out) => render(out, data, project) }
  },
})

const NONE = '—'
const num = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2))
const secs = (s: number) => (s < 1 ? `${s}s` : formatDuration(s * 1000))
const tasks = (n: number) => `${n} ${n === 1 ? 'task' : 'tasks'}`

function render(out: Out, d: MetricsDocT, project: string | undefined): void {
  const scope = project === undefined ? 'every project' : `project ${project}`
  const window = d.window.since === null ? 'all history' : `finished since ${d.window.since}`
  out.line(`${out.style('bold', 'metrics')}  ${scope}, ${window} (measured ${d.window.until})`)
  const c = d.completion
  const f = d.failures
  const w = d.wall_time
  const t = d.tokens
  out.fields([
    ['tasks finished', String(d.tasks_finished)],
    [
      'completion',
      c.value === null
        ? NONE
        : `${Math.round(c.value * 100)}% (${d.tasks_finished} done of ${c.samples} finished or removed)`,
    ],
    ['retry', d.retry.value === null ? NONE : `${num(d.retry.value)} reopens per finished task`],
    [
      'failures',
      f.classes === null
        ? NONE
        : `${FAILURE_CLASSES.map((k) => `${k} ${f.classes?.[k] ?? 0}`).join(', ')} (over ${tasks(f.samples)})`,
    ],
    [
      'wall time',
      w.median_seconds === null || w.total_seconds === null
        ? NONE
        : `median ${secs(w.median_seconds)}, total ${secs(w.total_seconds)} (claim → done, ${tasks(w.samples)})`,
    ],
    ['tokens', t.output === null ? NONE : `${t.output} output (reported by ${tasks(t.samples)})`],
    ['token budget', t.budget === null ? NONE : `${t.budget} (${tasks(t.budget_samples)})`],
    [
      'human intervention',
      d.human_intervention.value === null
        ? NONE
        : `${num(d.human_intervention.value)} answered questions per finished task`,
    ],
  ])
  for (const p of d.delivery) {
    const st = p.states
    const n = (x: number | null) => (x === null ? NONE : String(x))
    out.line(
      `  delivery ${p.project}: open ${n(st.open)}, claimed ${n(st.claimed)}, pr_open ${n(st.pr_open)}, ready ${n(st.ready)}, landed ${n(st.landed)}, released ${n(st.released)}`,
    )
  }
}
