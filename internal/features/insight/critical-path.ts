import { cmd } from '../../base/commands.js'
import { RefusedError } from '../../base/errors.js'
import { byText } from '../../base/order.js'
import { defineCommand } from '../../clikit/command.js'
import { oneOf, str } from '../../clikit/flags.js'
import { nextPageCommand, pageFlags, pageOf } from '../../clikit/pageflags.js'
import { CycleError } from '../../domain/plan/cpm.js'
import type { Schedule } from '../../domain/plan/schedule.js'
import { loadPlan, refIn, scheduleOf } from '../../domain/task/planview.js'
import { projectFilter } from '../../format/ids.js'
import { dot, mermaid, text } from './critrender.js'
import type { CriticalPathDocT } from './json.js'

type Row = CriticalPathDocT['tasks'][number]

export const criticalPath = defineCommand({
  path: 'critical-path',
  summary: 'The critical path: schedule, slack and the tasks that set the duration',
  description:
    'CPM with Te = (o + 4m + p) / 6 and FS/SS/FF/SF links over the open, active and blocked tasks (blocked ones stay, marked; done ones are finished; wont ones are excluded and listed). An active task has started: ES 0, and FF/SF links may push its finish. ES, EF, LS, LF and slack per task; the critical tasks as a graph (parallel branches stay parallel; `critical_path` is the chain when they form one path); the duration in Te units. With --project, the tasks of other projects it waits on are scheduled too (marked external) and the duration is the project’s own. An unsized task leaves only what depends on its duration unscheduled, and makes the duration null (at least `duration_lower_bound`): LS, LF, slack and the critical tasks are then measured against that lower bound, so a task shown critical may have slack once the unsized task is sized. A dependency cycle is refused (exit 3) naming it. --format mermaid or dot draws the graph with the critical links highlighted.',
  args: [],
  flags: {
    project: str('only this project (and what it waits on)', { valueName: 'SLUG' }),
    format: oneOf(['text', 'mermaid', 'dot'], 'draw the graph (`diagram` under --json)', {
      defaultText: 'text',
    }),
    ...pageFlags,
  },
  json: 'critical-path/v1',
  mutates: false,
  examples: [
    'dacli critical-path --project ledger',
    'dacli critical-path --project ledger --format mermaid > plan.mmd',
  ],
  async run(ctx, input) {
    const project = projectFilter(input.flags.project)
    const format = input.flags.format ?? 'text'
    const store = await ctx.store()
    const plan = await loadPlan(store, project)
    ctx.notes.skipped(plan.broken)
    let s: Schedule
    try {
      s = scheduleOf(plan, project)
    } catch (e) {
      if (!(e instanceof CycleError)) throw e
      const names = e.cycle.map((id) => refIn(plan, id))
      throw new RefusedError('dependency-cycle', `the dependencies form a cycle: ${names.join(' → ')}`, {
        details: { cycle: names },
        next: [cmd(`task depend ${names[0]} --remove ${names[1]}`)],
      })
    }
    const task = (id: string) => plan.byId.get(id)
    const refOfId = (id: string) => refIn(plan, id)
    const rows: Row[] = s.rows.map((r) => ({
      id: r.id,
      ref: refOfId(r.id),
      title: task(r.id)?.title ?? '',
      project: r.project,
      status: r.status as Row['status'],
      external: r.external,
      te: r.te === null ? null : Math.round(r.te * 1000) / 1000,
      es: r.es,
      ef: r.ef,
      ls: r.ls,
      lf: r.lf,
      slack: r.slack,
      critical: r.critical,
    }))
    rows.sort((a, b) => (a.es ?? Number.POSITIVE_INFINITY) - (b.es ?? Number.POSITIVE_INFINITY) || byText(a.ref, b.ref))
    // With --limit or --cursor the rows are paged and every other list cut to the limit (omitted counts what was
    // left out); the links kept are those of the tasks on the page, so a drawn diagram is the page's.
    const { items: pageRows, page } = pageOf(rows, input.flags)
    const onPage = new Set(pageRows.map((r) => r.id))
    const cut = <T>(list: readonly T[]): T[] =>
      input.flags.limit === undefined ? [...list] : list.slice(0, input.flags.limit)
    const links = page.truncated ? s.links.filter((l) => onPage.has(l.from) || onPage.has(l.to)) : s.links
    const graph = s.critical.map((c) => ({
      id: c.id,
      ref: refOfId(c.id),
      after: c.after.map((a) => ({ id: a.id, ref: refOfId(a.id), type: a.type })),
    }))
    const excluded = s.excluded.map((x) => ({
      id: x.id,
      ref: refOfId(x.id),
      title: task(x.id)?.title ?? '',
      reason: x.reason,
      dependents: x.dependents.map(refOfId),
    }))
    const unsized = s.unsized.map(refOfId)
    const data: CriticalPathDocT = {
      schema: 'critical-path/v1',
      project: project ?? null,
      scope: s.scope,
      duration: s.duration,
      duration_lower_bound: s.duration_lower_bound,
      unit: 'te',
      tasks: pageRows,
      critical_path: cut(s.critical_path),
      critical_graph: cut(graph),
      unsized: cut(unsized),
      links: cut(links).map((l) => ({ from: l.from, to: l.to, type: l.type })),
      excluded: cut(excluded),
      format,
      diagram: null,
      ...page,
      omitted: {
        critical_path: s.critical_path.length - cut(s.critical_path).length,
        critical_graph: graph.length - cut(graph).length,
        unsized: unsized.length - cut(unsized).length,
        links: s.links.length - cut(links).length,
        excluded: excluded.length - cut(excluded).length,
      },
    }
    // A page draws its own tasks and the links between them: a link to a task of another page has no node here.
    const drawn = links.filter((l) => onPage.has(l.from) && onPage.has(l.to))
    data.diagram = format === 'mermaid' ? mermaid(data, drawn) : format === 'dot' ? dot(data, drawn) : null
    return {
      data,
      human(out) {
        if (data.diagram !== null) out.line(data.diagram, { wrap: false })
        else if (rows.length === 0 && data.excluded.length === 0)
          out.line('no open, active or blocked tasks to schedule')
        else
          text(
            data,
            out,
            refOfId,
            data.next_cursor === null ? null : nextPageCommand('critical-path', input.argv, data.next_cursor),
          )
      },
    }
  },
})
