// Drawing a schedule: the text table and the critical DAG, mermaid and dot.

import { byText } from '../../base/order.js'
import { count } from '../../base/text.js'
import type { Out } from '../../clikit/out.js'
import { oneDecimal, shortRef } from '../../clikit/text.js'
import type { CriticalPathDocT } from './json.js'

type Doc = CriticalPathDocT
type Row = Doc['tasks'][number]
export type Link = { from: string; to: string; type: string }

const short = shortRef
const label = (r: Row) =>
  `${short(r.ref)} ${r.title}${r.te === null ? ' (unsized)' : ` (Te ${r.te})`}${r.status === 'blocked' ? ' [blocked]' : ''}${r.external ? ' [other project]' : ''}`

/** Links between two critical tasks that set the successor's dates. */
function criticalLinks(doc: Doc): Set<string> {
  return new Set(doc.critical_graph.flatMap((n) => n.after.map((a) => `${a.id}>${n.id}`)))
}

export function mermaid(doc: Doc, links: readonly Link[]): string {
  const node = new Map(doc.tasks.map((r, i) => [r.id, `n${i + 1}`]))
  // Mermaid reads `#name;` as an entity and a label's text as HTML: a title's `#`, quote and angle brackets are
  // written as entities, so `<b>` or `#quot;` in a title is shown as typed, never interpreted.
  const esc = (s: string) => s.replace(/#/g, '#35;').replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;')
  const lines = ['flowchart LR', ...doc.tasks.map((r) => `  ${node.get(r.id)}["${esc(label(r))}"]`)]
  const tight = criticalLinks(doc)
  const critEdges: number[] = []
  links.forEach((l, i) => {
    lines.push(`  ${node.get(l.from)} ${l.type === 'FS' ? '-->' : `-- ${l.type} -->`} ${node.get(l.to)}`)
    if (tight.has(`${l.from}>${l.to}`)) critEdges.push(i)
  })
  const crit = doc.tasks.filter((r) => r.critical).map((r) => node.get(r.id))
  if (crit.length > 0) {
    lines.push('  classDef critical fill:#fde2e2,stroke:#c0392b,stroke-width:3px')
    lines.push(`  class ${crit.join(',')} critical`)
  }
  const blocked = doc.tasks.filter((r) => r.status === 'blocked').map((r) => node.get(r.id))
  if (blocked.length > 0) {
    lines.push('  classDef blocked stroke-dasharray:5 5')
    lines.push(`  class ${blocked.join(',')} blocked`)
  }
  for (const i of critEdges) lines.push(`  linkStyle ${i} stroke:#c0392b,stroke-width:3px`)
  return lines.join('\n')
}

export function dot(doc: Doc, links: readonly Link[]): string {
  const node = new Map(doc.tasks.map((r, i) => [r.id, `n${i + 1}`]))
  const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')
  const tight = criticalLinks(doc)
  const lines = ['digraph critical_path {', '  rankdir=LR;', '  node [shape=box, style=rounded];']
  for (const r of doc.tasks) {
    const attrs = [
      `label="${esc(label(r))}"`,
      r.critical ? 'color="#c0392b", penwidth=3' : '',
      r.status === 'blocked' ? 'style="rounded,dashed"' : '',
    ].filter(Boolean)
    lines.push(`  ${node.get(r.id)} [${attrs.join(', ')}];`)
  }
  for (const l of links) {
    const attrs = [
      l.type === 'FS' ? '' : `label="${l.type}"`,
      tight.has(`${l.from}>${l.to}`) ? 'color="#c0392b", penwidth=3' : '',
    ]
      .filter(Boolean)
      .join(', ')
    lines.push(`  ${node.get(l.from)} -> ${node.get(l.to)}${attrs ? ` [${attrs}]` : ''};`)
  }
  lines.push('}')
  return lines.join('\n')
}

/** `after a + b; finishes with c`: how a critical task follows its critical predecessors, by link type. */
function relations(after: readonly { ref: string; type: string }[]): string {
  const verb: Record<string, string> = { FS: 'after', SS: 'starts with', FF: 'finishes with', SF: 'finishes once' }
  const tail: Record<string, string> = { SF: ' starts' }
  return ['FS', 'SS', 'FF', 'SF']
    .map((type) => {
      const refs = after.filter((a) => a.type === type).map((a) => short(a.ref))
      return refs.length === 0 ? null : `${verb[type]} ${refs.join(' + ')}${tail[type] ?? ''}`
    })
    .filter((x) => x !== null)
    .join('; ')
}

const n = oneDecimal

/** The critical DAG in steps: a task's step is one past its latest critical predecessor's (ties by reference). */
function steps(doc: Doc): string[][] {
  const byId = new Map(doc.critical_graph.map((c) => [c.id, c]))
  const depth = new Map<string, number>()
  const depthOf = (id: string, seen: Set<string>): number => {
    const known = depth.get(id)
    if (known !== undefined) return known
    if (seen.has(id)) return 0
    seen.add(id)
    const preds = (byId.get(id)?.after ?? []).filter((a) => byId.has(a.id))
    const d = preds.length === 0 ? 0 : 1 + Math.max(...preds.map((a) => depthOf(a.id, seen)))
    depth.set(id, d)
    return d
  }
  const out: string[][] = []
  for (const c of doc.critical_graph) {
    const d = depthOf(c.id, new Set())
    const step = out[d] ?? []
    step.push(c.ref)
    out[d] = step
  }
  return out.filter((x) => x !== undefined).map((refs) => refs.sort(byText))
}

/**
 * The text report. `refOf` names any scheduled task (the chain reaches tasks off the page); `nextPage` is the
 * command for the page after this one, or null on the last page.
 */
export function text(doc: Doc, out: Out, refOf: (id: string) => string, nextPage: string | null): void {
  const s = out.style
  const what = doc.scope === 'workspace' ? 'workspace (every project)' : `project ${doc.project}`
  out.line(
    doc.duration !== null
      ? `${what} — duration: ${s('bold', n(doc.duration))} (in the estimates' units)`
      : `${what} — duration: unknown, ${count(doc.unsized.length, 'unsized task')}${doc.duration_lower_bound === null ? '' : `; at least ${n(doc.duration_lower_bound)}`}`,
  )
  out.line(
    s(
      'dim',
      '★ critical (no slack) · Te expected duration (o+4m+p)/6 · ES/EF earliest start/finish · LS/LF latest · slack: how far it can slip without moving the end',
    ),
  )
  out.line('')
  const mark = (r: Row) =>
    [
      r.status === 'blocked' ? s('red', '[blocked]') : '',
      r.status === 'active' ? s('dim', '[active]') : '',
      r.external ? s('dim', '[other project]') : '',
    ]
      .filter(Boolean)
      .join(' ')
  out.table(
    ['', 'TASK', 'TE', 'ES', 'EF', 'LS', 'LF', 'SLACK', 'TITLE'],
    doc.tasks.map((r) => [
      r.critical ? s('red', '★') : ' ',
      short(r.ref),
      n(r.te),
      n(r.es),
      n(r.ef),
      n(r.ls),
      n(r.lf),
      n(r.slack),
      `${r.title}${mark(r) === '' ? '' : `  ${mark(r)}`}`,
    ]),
    { right: [2, 3, 4, 5, 6, 7] },
  )
  if (nextPage !== null) {
    const start = Number(doc.cursor ?? 0)
    out.line(s('dim', `showing ${start + 1}–${start + doc.tasks.length} of ${doc.total}; next page: ${nextPage}`))
  }
  if (doc.critical_path.length > 0) {
    const more = doc.omitted.critical_path
    out.line('')
    out.line(
      `critical path: ${doc.critical_path.map((id) => short(refOf(id))).join(' → ')}${more > 0 ? ` → … (${count(more, 'more task')})` : ''}`,
    )
  } else if (doc.critical_graph.length > 0) {
    // Branches: drawn as steps (parallel critical tasks side by side), then how each follows its predecessors.
    out.line('')
    out.line(
      `critical path: ${steps(doc)
        .map((step) => step.map(short).join(' ‖ '))
        .join(' → ')}`,
    )
    out.line(s('dim', '  ‖ = critical tasks that run side by side; each follows:'))
    out.table(
      ['TASK', 'ES', 'FOLLOWS'],
      doc.critical_graph.map((c) => {
        const row = doc.tasks.find((r) => r.id === c.id)
        return [short(c.ref), n(row?.es ?? null), c.after.length === 0 ? 'starts it' : relations(c.after)]
      }),
      { indent: 2, right: [1] },
    )
  }
  if (doc.unsized.length > 0)
    out.line(
      s(
        'yellow',
        `unsized: ${doc.unsized.map(short).join(', ')} — what waits on their duration stays unscheduled (dacli task edit <ref> --estimate o,m,p)`,
      ),
    )
  for (const x of doc.excluded)
    out.line(
      s(
        'dim',
        `excluded (wont): ${short(x.ref)}${x.dependents.length > 0 ? ` — ${x.dependents.map(short).join(', ')} ${x.dependents.length === 1 ? 'depends' : 'depend'} on it` : ''}`,
      ),
    )
}
