// The dependency graph as SVG, left to right by earliest start: one column per
// distinct ES, the critical tasks and the links between them in red, blocked
// tasks dashed, other projects' tasks grey; hovering a task shows its slack.

import { get } from './api.js'
import { fill, h, short, svg, taskHref } from './dom.js'
import type { Shell, View } from './main.js'
import type { CriticalPath } from './types.js'

const W = 190
const H = 46
const GX = 70
const GY = 18
const PAD = 20
/** Tasks drawn at most (a 1,000-task project still lays out in a moment). */
const MAX = 400

type Row = CriticalPath['tasks'][number]

const one = (n: number | null) => (n === null ? '–' : n.toFixed(1))

export function graphView(root: HTMLElement, shell: Shell, project: string | null): View {
  const tabs = h('div', { class: 'tabs', role: 'tablist' })
  const info = h('p', { class: 'muted small' })
  const canvas = h('div', { class: 'graph' })
  const tip = h('div', { class: 'tip', hidden: true, role: 'tooltip' })
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
    ' critical path (no slack) ',
    h('span', { class: 'sw blocked' }),
    ' blocked ',
    h('span', { class: 'sw ext' }),
    ' another project · hover a task for its schedule and slack (Te = (o + 4m + p) / 6)',
  )
  fill(root, h('div', { class: 'toolbar' }, tabs), info, legend, canvas)

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
      const rows = cp.tasks.slice(0, MAX)
      fill(
        info,
        cp.duration === null
          ? `duration unknown: ${cp.unsized.length} unsized (at least ${one(cp.duration_lower_bound)})`
          : `duration ${one(cp.duration)} · ${cp.tasks.length} scheduled task${cp.tasks.length === 1 ? '' : 's'}`,
        cp.tasks.length > MAX ? ` · showing the first ${MAX} by earliest start` : '',
      )
      if (rows.length === 0) {
        fill(canvas, h('p', { class: 'muted' }, 'Nothing to schedule: no open, active or blocked tasks.'))
        return
      }
      // Columns by earliest start; unsized tasks last.
      const keys = [...new Set(rows.map((r) => r.es))].sort(
        (a, b) => (a ?? Number.POSITIVE_INFINITY) - (b ?? Number.POSITIVE_INFINITY),
      )
      const colOf = new Map(keys.map((k, i) => [k, i]))
      const perCol = new Map<number, Row[]>()
      for (const r of rows) {
        const c = colOf.get(r.es) as number
        perCol.set(c, [...(perCol.get(c) ?? []), r])
      }
      const pos = new Map<string, { x: number; y: number }>()
      let maxRows = 0
      for (const [c, list] of perCol) {
        list.sort((a, b) => Number(b.critical) - Number(a.critical) || (a.ref < b.ref ? -1 : 1))
        maxRows = Math.max(maxRows, list.length)
        for (const [i, r] of list.entries()) pos.set(r.id, { x: PAD + c * (W + GX), y: PAD + 18 + i * (H + GY) })
      }
      const width = PAD * 2 + keys.length * (W + GX) - GX
      // Room below the last row for the hover card.
      const height = PAD * 2 + 18 + maxRows * (H + GY) + 80
      const tight = new Set(cp.critical_graph.flatMap((n) => n.after.map((a) => `${a.id}>${n.id}`)))
      const edges = cp.links
        .filter((l) => pos.has(l.from) && pos.has(l.to))
        .map((l) => {
          const a = pos.get(l.from) as { x: number; y: number }
          const b = pos.get(l.to) as { x: number; y: number }
          const x1 = a.x + W
          const y1 = a.y + H / 2
          const x2 = b.x
          const y2 = b.y + H / 2
          const mid = Math.max(30, (x2 - x1) / 2)
          const crit = tight.has(`${l.from}>${l.to}`)
          return svg(
            'path',
            {
              d: `M${x1},${y1} C${x1 + mid},${y1} ${x2 - mid},${y2} ${x2},${y2}`,
              class: crit ? 'edge crit' : 'edge',
              'marker-end': crit ? 'url(#arrow-crit)' : 'url(#arrow)',
            },
            svg(
              'title',
              {},
              `${l.type}: ${short(rows.find((r) => r.id === l.from)?.ref ?? l.from)} → ${short(rows.find((r) => r.id === l.to)?.ref ?? l.to)}`,
            ),
          )
        })
      const heads = keys.map((k, i) =>
        svg('text', { x: PAD + i * (W + GX), y: PAD, class: 'colhead' }, k === null ? 'unsized' : `ES ${one(k)}`),
      )
      const nodes = rows.map((r) => {
        const p = pos.get(r.id) as { x: number; y: number }
        const cls = [
          'node',
          r.critical ? 'crit' : '',
          r.status === 'blocked' ? 'blocked' : '',
          r.external ? 'ext' : '',
          `st-${r.status}`,
        ]
          .filter(Boolean)
          .join(' ')
        const label = `${r.ref} — ${r.title}\nTe ${one(r.te)} · ES ${one(r.es)} EF ${one(r.ef)} · LS ${one(r.ls)} LF ${one(r.lf)}\nslack ${one(r.slack)}${r.critical ? ' (critical)' : ''} · ${r.status}`
        const title = r.title.length > 26 ? `${r.title.slice(0, 25)}…` : r.title
        return svg(
          'a',
          {
            href: taskHref(r.ref),
            class: cls,
            'data-ref': r.ref,
            'data-slack': r.slack ?? '',
            onmouseenter: () => showTip(r, p.x, p.y + H + 6),
            onmouseleave: () => {
              tip.hidden = true
            },
          },
          svg('title', {}, label),
          svg('rect', { x: p.x, y: p.y, width: W, height: H, rx: 7 }),
          svg('text', { x: p.x + 9, y: p.y + 18, class: 'nref' }, `${short(r.ref)}  Te ${one(r.te)}`),
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
          ...heads,
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
