import { defineCommand, flagStr } from '../../clikit/command.js'
import { oneOf, str } from '../../clikit/flags.js'
import { count, oneDecimal, shortRef } from '../../clikit/text.js'
import { CycleError, criticalPath } from '../../engines/cpm.js'
import { byText } from '../../engines/order.js'
import { RefusedError } from '../../store/errors.js'
import { safeSegment } from '../../store/paths.js'
import type { CriticalPathDocT } from './json.js'
import { cpmInput, inProgressScope, loadPlan, refOf } from './plan.js'

type Row = CriticalPathDocT['tasks'][number]

/** Critical tasks in steps of equal earliest start: a step of two or more runs side by side. */
function chainOf(critical: readonly Row[]): Row[][] {
  const steps = new Map<number, Row[]>()
  for (const r of critical) {
    const key = r.es ?? Number.POSITIVE_INFINITY
    steps.set(key, [...(steps.get(key) ?? []), r])
  }
  return [...steps.entries()].sort((a, b) => a[0] - b[0]).map(([, rs]) => rs.sort((a, b) => byText(a.ref, b.ref)))
}

const label = (r: Row) =>
  `${r.ref.replace(/^([^/]+\/\d+)-.*/, '$1')} ${r.title}${r.te === null ? ' (unsized)' : ` (Te ${r.te})`}`

function mermaid(rows: Row[], links: { from: string; to: string; type: string }[]): string {
  const node = new Map(rows.map((r, i) => [r.id, `n${i + 1}`]))
  const byId = new Map(rows.map((r) => [r.id, r]))
  const esc = (s: string) => s.replace(/"/g, '#quot;')
  const lines = ['flowchart LR', ...rows.map((r) => `  ${node.get(r.id)}["${esc(label(r))}"]`)]
  const critEdges: number[] = []
  links.forEach((l, i) => {
    const a = byId.get(l.from)
    const b = byId.get(l.to)
    lines.push(`  ${node.get(l.from)} ${l.type === 'FS' ? '-->' : `-- ${l.type} -->`} ${node.get(l.to)}`)
    if (a?.critical && b?.critical) critEdges.push(i)
  })
  const crit = rows.filter((r) => r.critical).map((r) => node.get(r.id))
  if (crit.length > 0) {
    lines.push('  classDef critical fill:#fde2e2,stroke:#c0392b,stroke-width:3px')
    lines.push(`  class ${crit.join(',')} critical`)
  }
  for (const i of critEdges) lines.push(`  linkStyle ${i} stroke:#c0392b,stroke-width:3px`)
  return lines.join('\n')
}

function dot(rows: Row[], links: { from: string; to: string; type: string }[]): string {
  const node = new Map(rows.map((r, i) => [r.id, `n${i + 1}`]))
  const byId = new Map(rows.map((r) => [r.id, r]))
  const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')
  const lines = ['digraph critical_path {', '  rankdir=LR;', '  node [shape=box, style=rounded];']
  for (const r of rows) {
    lines.push(`  ${node.get(r.id)} [label="${esc(label(r))}"${r.critical ? ', color="#c0392b", penwidth=3' : ''}];`)
  }
  for (const l of links) {
    const crit = byId.get(l.from)?.critical && byId.get(l.to)?.critical
    const attrs = [l.type === 'FS' ? '' : `label="${l.type}"`, crit ? 'color="#c0392b", penwidth=3' : '']
      .filter(Boolean)
      .join(', ')
    lines.push(`  ${node.get(l.from)} -> ${node.get(l.to)}${attrs ? ` [${attrs}]` : ''};`)
  }
  lines.push('}')
  return lines.join('\n')
}

export const critpath = defineCommand({
  path: 'critical-path',
  summary: 'The critical path: schedule, slack and the chain that sets the duration',
  description:
    'CPM over open and active tasks with Te = (o + 4m + p) / 6 and FS/SS/FF/SF links: ES, EF, LS, LF and slack per task, the critical chain and the project duration (in Te units). Unsized tasks are listed and make the duration null. A dependency cycle is refused (exit 3) naming it. --format mermaid or dot draws the dependency graph with the critical chain highlighted.',
  args: [],
  flags: {
    project: str('only this project', { valueName: 'SLUG' }),
    format: oneOf(['text', 'mermaid', 'dot'], 'how to show it (under --json the diagram is in `diagram`)', {
      defaultText: 'text',
    }),
  },
  json: 'critical-path/v1',
  mutates: false,
  examples: [
    'dacli critical-path --project ledger',
    'dacli critical-path --project ledger --format mermaid > plan.mmd',
  ],
  async run(ctx, input) {
    const project = flagStr(input, 'project')
    if (project !== undefined) safeSegment(project, 'project slug')
    const format = (flagStr(input, 'format') ?? 'text') as 'text' | 'mermaid' | 'dot'
    const store = await ctx.store()
    const plan = await loadPlan(store, project)
    const scope = inProgressScope(plan)
    const input_ = cpmInput(plan, scope)
    let cpm: ReturnType<typeof criticalPath>
    try {
      cpm = criticalPath(input_)
    } catch (e) {
      if (!(e instanceof CycleError)) throw e
      const names = e.cycle.map((id) => {
        const t = plan.byId.get(id)
        return t ? refOf(t) : id
      })
      throw new RefusedError('dependency-cycle', `the dependencies form a cycle: ${names.join(' → ')}`, {
        details: { cycle: names },
        next: [`dacli task depend ${names[0]} --remove ${names[1]}`],
      })
    }
    const byId = plan.byId
    const rows: Row[] = cpm.rows.map((r) => {
      const t = byId.get(r.id)
      return {
        ...r,
        te: r.te === null ? null : Math.round(r.te * 1000) / 1000,
        ref: t ? refOf(t) : r.id,
        title: t?.title ?? '',
      }
    })
    const rowOf = new Map(rows.map((r) => [r.id, r]))
    rows.sort((a, b) => (a.es ?? Number.POSITIVE_INFINITY) - (b.es ?? Number.POSITIVE_INFINITY) || byText(a.ref, b.ref))
    const links = input_.flatMap((t) => t.deps.map((d) => ({ from: d.on, to: t.id, type: d.type })))
    const diagram = format === 'mermaid' ? mermaid(rows, links) : format === 'dot' ? dot(rows, links) : null
    const data: CriticalPathDocT = {
      schema: 'critical-path/v1',
      project: project ?? null,
      duration: cpm.duration,
      unit: 'te',
      tasks: rows,
      critical_path: cpm.critical_path,
      unsized: cpm.unsized.map((id) => rowOf.get(id)?.ref ?? id),
      format,
      diagram,
    }
    return {
      data,
      human(out) {
        if (diagram !== null) {
          out.line(diagram)
          return
        }
        const s = out.style
        if (rows.length === 0) {
          out.line('no open or active tasks to schedule')
          return
        }
        out.line(
          data.duration === null
            ? `duration: unknown — ${count(data.unsized.length, 'unsized task')}`
            : `duration: ${s('bold', oneDecimal(data.duration))} (in the estimates' units)`,
        )
        out.line(
          s(
            'dim',
            'Te = expected duration (o + 4m + p) / 6 · ES/EF, LS/LF = earliest, latest start/finish · slack = how far a task can slip without moving the end · ★ critical (no slack)',
          ),
        )
        out.line('')
        const n = oneDecimal
        out.table(
          ['', 'TASK', 'TE', 'ES', 'EF', 'LS', 'LF', 'SLACK', 'TITLE'],
          rows.map((r) => [
            r.critical ? s('red', '★') : ' ',
            shortRef(r.ref),
            n(r.te),
            n(r.es),
            n(r.ef),
            n(r.ls),
            n(r.lf),
            n(r.slack),
            r.title,
          ]),
          { right: [2, 3, 4, 5, 6, 7] },
        )
        const path = chainOf(rows.filter((r) => r.critical))
        if (path.length > 0) {
          out.line('')
          out.line(`critical path: ${path.map((step) => step.map((r) => shortRef(r.ref)).join(' ‖ ')).join(' → ')}`)
          if (path.some((step) => step.length > 1)) out.line(s('dim', '  ‖ = critical tasks that run side by side'))
        }
        if (data.unsized.length > 0)
          out.line(
            s('yellow', `unsized: ${data.unsized.map(shortRef).join(', ')} (dacli task edit <ref> --estimate o,m,p)`),
          )
      },
    }
  },
})
