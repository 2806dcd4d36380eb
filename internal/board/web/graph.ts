// The dependency graph as SVG: a layered layout (dagre: ranks left to right, crossings reduced), the critical tasks
// and the links between them in red and thick, blocked tasks dashed, other projects' tasks grey; hovering a task
// shows its schedule and slack. One project at a time, or one task's neighbourhood (#/graph/<project>?around=<ref>
// &depth=N: the tasks within N links of it, either way).
//
// No edge passes through a node: every node of a rank has the same width and x, so a rank is a band; an edge runs
// from its source's right side to its target's left side, crossing the gaps between bands diagonally and each band
// it passes horizontally at the height dagre gave its dummy node there, which dagre keeps clear of that rank's
// nodes. (dagre's own points cut the corners of a band, and so sometimes a neighbour's box.)

import dagre from '@dagrejs/dagre'
import { get } from './api.js'
import { fill, h, short, svg, taskHref } from './dom.js'
import { hashQuery } from './filters.js'
import type { Shell, View } from './main.js'
import type { CriticalPath } from './types.js'

const W = 190
const H = 46
const PAD = 20
/** Tasks laid out at most: a larger project is shown a neighbourhood at a time. */
const MAX = 1000

type Row = CriticalPath['tasks'][number]
type Link = CriticalPath['links'][number]

const one = (n: number | null) => (n === null ? '–' : n.toFixed(1))

/** The tasks within `depth` links of `center` (both directions). */
function neighbourhood(center: string, links: readonly Link[], depth: number): Set<string> {
  const seen = new Set([center])
  let frontier = [center]
  for (let d = 0; d < depth && frontier.length > 0; d++) {
    const next: string[] = []
    for (const l of links) {
      for (const [a, b] of [
        [l.from, l.to],
        [l.to, l.from],
      ] as const) {
        if (frontier.includes(a) && !seen.has(b)) {
          seen.add(b)
          next.push(b)
        }
      }
    }
    frontier = next
  }
  return seen
}

interface Placed {
  pos: Map<string, { x: number; y: number }>
  paths: Map<string, { x: number; y: number }[]>
  width: number
  height: number
}

/** Lay out the rows with dagre and route each link around the nodes (see the header). */
function place(rows: readonly Row[], links: readonly Link[]): Placed {
  const g = new dagre.graphlib.Graph({ multigraph: false })
  g.setGraph({ rankdir: 'LR', nodesep: 18, ranksep: 70, edgesep: 12, marginx: PAD, marginy: PAD })
  g.setDefaultEdgeLabel(() => ({}))
  for (const r of rows) g.setNode(r.id, { width: W, height: H })
  for (const l of links) g.setEdge(l.from, l.to)
  dagre.layout(g)
  const pos = new Map<string, { x: number; y: number }>()
  for (const r of rows) {
    const n = g.node(r.id) as { x: number; y: number }
    pos.set(r.id, { x: n.x - W / 2, y: n.y - H / 2 })
  }
  // The bands: the x of each rank that holds a task.
  const bands = [...new Set([...pos.values()].map((p) => Math.round(p.x)))].sort((a, b) => a - b)
  const paths = new Map<string, { x: number; y: number }[]>()
  for (const l of links) {
    const a = pos.get(l.from)
    const b = pos.get(l.to)
    if (a === undefined || b === undefined) continue
    const via = (g.edge(l.from, l.to) as { points?: { x: number; y: number }[] } | undefined)?.points ?? []
    const pts = [{ x: a.x + W, y: a.y + H / 2 }]
    for (const bx of bands) {
      if (bx <= Math.round(a.x) || bx >= Math.round(b.x)) continue
      // The dummy node's height in this band: the point of dagre's route nearest the band's centre.
      const c = bx + W / 2
      let best = via[0]
      for (const p of via) if (best === undefined || Math.abs(p.x - c) < Math.abs(best.x - c)) best = p
      const y = best === undefined ? (a.y + b.y) / 2 + H / 2 : best.y
      pts.push({ x: bx, y }, { x: bx + W, y })
    }
    pts.push({ x: b.x, y: b.y + H / 2 })
    paths.set(`${l.from}>${l.to}`, pts)
  }
  const gl = g.graph() as { width?: number; height?: number }
  return { pos, paths, width: (gl.width ?? 0) + 2, height: (gl.height ?? 0) + 2 }
}

export function graphView(root: HTMLElement, shell: Shell, project: string | null): View {
  const q = hashQuery()
  const around = q.get('around')
  const depth = Math.min(5, Math.max(1, Number(q.get('depth') ?? 2) || 2))
  const tabs = h('div', { class: 'tabs', role: 'tablist' })
  const info = h('p', { class: 'muted small' })
  const canvas = h('div', { class: 'graph' })
  const tip = h('div', { class: 'tip', hidden: true, role: 'tooltip' })
  const refs = h('datalist', { id: 'graph-refs' })
  const focusInput = h('input', {
    type: 'text',
    name: 'around',
    list: 'graph-refs',
    placeholder: 'a task, e.g. ledger/3',
    'aria-label': 'show the neighbourhood of this task',
    value: around ?? '',
  })
  focusInput.value = around ?? ''
  const depthSelect = h(
    'select',
    { name: 'depth', 'aria-label': 'how many links away' },
    [1, 2, 3, 4, 5].map((d) => h('option', { value: d, selected: d === depth }, `${d} link${d === 1 ? '' : 's'}`)),
  )
  const around_ = h(
    'form',
    {
      class: 'around',
      onsubmit: (e: Event) => {
        e.preventDefault()
        const slug = project ?? shell.project ?? ''
        const v = focusInput.value.trim()
        location.hash = `#/graph/${encodeURIComponent(slug)}${v === '' ? '' : `?around=${encodeURIComponent(v)}&depth=${depthSelect.value}`}`
      },
    },
    h('label', {}, 'Neighbourhood of ', focusInput),
    depthSelect,
    h('button', { type: 'submit' }, 'Show'),
    around === null
      ? null
      : h('a', { href: `#/graph/${encodeURIComponent(project ?? shell.project ?? '')}` }, 'whole project'),
    refs,
  )
  const showTip = (r: Row, x: number, y: number) => {
    fill(
      tip,
      h('strong', {}, short(r.ref)),
      ' ',
      r.title,
      h('br'),
      `Te ${one(r.te)} · ES ${one(r.es)} → EF ${one(r.ef)} · LS ${one(r.ls)} → LF ${one(r.lf)}`,
      h('br'),
      h('span', { class: r.critical ? 'bad' : 'ok' }, `slack ${one(r.slack)}`),
      r.critical ? ' — critical: any slip moves the end' : ' — can slip this much without moving the end',
      r.status === 'blocked' ? ' · blocked' : '',
    )
    tip.style.left = `${x}px`
    tip.style.top = `${y}px`
    tip.hidden = false
  }
  const legend = h(
    'p',
    { class: 'legend small' },
    h('span', { class: 'sw crit' }),
    ' ★ critical path (no slack; its links thick) ',
    h('span', { class: 'sw blocked' }),
    ' blocked (dashed, and says so) ',
    h('span', { class: 'sw ext' }),
    ' another project · hover or focus a task for its schedule and slack (Te = (o + 4m + p) / 6)',
  )
  fill(root, h('div', { class: 'toolbar' }, tabs, around_), info, legend, canvas)

  return {
    async update() {
      await shell.projectsReady
      const slug = project ?? shell.project ?? shell.projects[0]?.slug ?? null
      shell.project = slug
      fill(
        tabs,
        shell.projects.map((p) =>
          h(
            'a',
            { href: `#/graph/${encodeURIComponent(p.slug)}`, class: p.slug === slug ? 'tab active' : 'tab' },
            p.slug,
          ),
        ),
      )
      if (slug === null) {
        fill(canvas, h('p', { class: 'muted' }, 'No projects yet.'))
        return
      }
      const cp = await get<CriticalPath>('critical-path', { project: slug })
      fill(
        refs,
        cp.tasks.map((r) => h('option', { value: short(r.ref) }, r.title)),
      )
      let chosen: Row[] = cp.tasks
      let centre: Row | undefined
      if (around !== null) {
        centre = cp.tasks.find((r) => r.ref === around || short(r.ref) === around || r.id === around)
        if (centre === undefined) {
          fill(info, '')
          fill(
            canvas,
            h('p', { class: 'error' }, `No scheduled task "${around}" in ${slug} (done tasks are not in the graph).`),
          )
          return
        }
        const near = neighbourhood(centre.id, cp.links, depth)
        chosen = cp.tasks.filter((r) => near.has(r.id))
      }
      const rows = chosen.slice(0, MAX)
      fill(
        info,
        cp.duration === null
          ? `duration unknown: ${cp.unsized.length} unsized (at least ${one(cp.duration_lower_bound)})`
          : `duration ${one(cp.duration)} · ${cp.tasks.length} scheduled task${cp.tasks.length === 1 ? '' : 's'}`,
        centre === undefined
          ? ''
          : ` · showing ${short(centre.ref)} and the ${rows.length - 1} task${rows.length === 2 ? '' : 's'} within ${depth} link${depth === 1 ? '' : 's'}`,
        chosen.length > MAX
          ? ` · showing the first ${MAX} by earliest start: pick a task's neighbourhood to see the rest`
          : '',
      )
      if (rows.length === 0) {
        fill(canvas, h('p', { class: 'muted' }, 'Nothing to schedule: no open, active or blocked tasks.'))
        return
      }
      const ids = new Set(rows.map((r) => r.id))
      const links = cp.links.filter((l) => ids.has(l.from) && ids.has(l.to))
      const { pos, paths, width, height: h0 } = place(rows, links)
      // Room below the last row for the hover card.
      const height = h0 + 80
      const tight = new Set(cp.critical_graph.flatMap((n) => n.after.map((a) => `${a.id}>${n.id}`)))
      const refOf = (id: string) => short(rows.find((r) => r.id === id)?.ref ?? id)
      const edges = links.map((l) => {
        const pts = paths.get(`${l.from}>${l.to}`) ?? []
        const crit = tight.has(`${l.from}>${l.to}`)
        return svg(
          'path',
          {
            d: pts.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' '),
            class: crit ? 'edge crit' : 'edge',
            'data-from': l.from,
            'data-to': l.to,
            'marker-end': crit ? 'url(#arrow-crit)' : 'url(#arrow)',
          },
          svg('title', {}, `${l.type}: ${refOf(l.from)} → ${refOf(l.to)}${crit ? ' (critical)' : ''}`),
        )
      })
      const nodes = rows.map((r) => {
        const p = pos.get(r.id) as { x: number; y: number }
        const cls = [
          'node',
          r.critical ? 'crit' : '',
          r.status === 'blocked' ? 'blocked' : '',
          r.external ? 'ext' : '',
          r.id === centre?.id ? 'centre' : '',
          `st-${r.status}`,
        ]
          .filter(Boolean)
          .join(' ')
        const label = `${r.ref} — ${r.title}\nTe ${one(r.te)} · ES ${one(r.es)} EF ${one(r.ef)} · LS ${one(r.ls)} LF ${one(r.lf)}\nslack ${one(r.slack)}${r.critical ? ' (critical)' : ''} · ${r.status}`
        const title = r.title.length > 26 ? `${r.title.slice(0, 25)}…` : r.title
        const flags = r.critical ? '★ ' : ''
        return svg(
          'a',
          {
            href: taskHref(r.ref),
            class: cls,
            'data-ref': r.ref,
            'data-id': r.id,
            'data-slack': r.slack ?? '',
            'data-box': `${p.x},${p.y},${W},${H}`,
            onmouseenter: () => showTip(r, p.x, p.y + H + 6),
            onmouseleave: () => {
              tip.hidden = true
            },
            onfocus: () => showTip(r, p.x, p.y + H + 6),
            onblur: () => {
              tip.hidden = true
            },
          },
          svg('title', {}, label),
          svg('rect', { x: p.x, y: p.y, width: W, height: H, rx: 7 }),
          svg(
            'text',
            { x: p.x + 9, y: p.y + 18, class: 'nref' },
            `${flags}${short(r.ref)}  Te ${one(r.te)}${r.status === 'blocked' ? ' · blocked' : ''}`,
          ),
          svg('text', { x: p.x + 9, y: p.y + 36, class: 'ntitle' }, title),
        )
      })
      const defs = svg('defs', {}, arrowHead('arrow', 'head'), arrowHead('arrow-crit', 'head crit'))
      fill(
        canvas,
        tip,
        svg(
          'svg',
          {
            width,
            height,
            viewBox: `0 0 ${width} ${height}`,
            role: 'img',
            'aria-label': `dependency graph of ${slug}`,
          },
          defs,
          ...edges,
          ...nodes,
        ),
      )
    },
  }
}

/** The arrow drawn at the end of a link (`marker-end: url(#id)`). */
function arrowHead(id: string, cls: string): SVGElement {
  return svg(
    'marker',
    {
      id,
      viewBox: '0 0 10 10',
      refX: 9,
      refY: 5,
      markerWidth: 9,
      markerHeight: 9,
      markerUnits: 'userSpaceOnUse',
      orient: 'auto',
    },
    svg('path', { d: 'M0,0 L10,5 L0,10 z', class: cls }),
  )
}
