// The table view (#/table/<project>, or #/table for every project): one row a task, columns sortable by a click
// or Enter on their header (the sort is kept in the address with the filters). Only the rows in sight are in the
// page (a virtualized list: fixed-height rows between two spacers), so 10,000 tasks scroll as fast as 50.

import { get } from './api.js'
import { fill, h, lease, short, statusChip, taskHref } from './dom.js'
import { filterBar, hashQuery, matches, readFilter, writeFilter } from './filters.js'
import type { Shell, View } from './main.js'
import type { TaskItem, TaskList } from './types.js'

/** Row height in pixels (app.css .vt tr); the window renders what fits plus OVERSCAN either side. */
const ROW = 34
const OVERSCAN = 12

const STATUS_RANK: Record<string, number> = { open: 0, active: 1, blocked: 2, done: 3, removed: 4 }
const PRIORITY_RANK: Record<string, number> = { must: 0, should: 1, could: 2, wont: 3 }

interface Column {
  key: string
  label: string
  cell: (t: TaskItem) => Node | string
  cmp: (a: TaskItem, b: TaskItem) => number
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const byRef = (a: TaskItem, b: TaskItem) => byText(a.project, b.project) || a.seq - b.seq
const nullsLast = (a: number | null, b: number | null) =>
  a === null && b === null ? 0 : a === null ? 1 : b === null ? -1 : a - b

const COLUMNS: readonly Column[] = [
  { key: 'ref', label: 'Ref', cell: (t) => h('a', { href: taskHref(t.ref) }, short(t.ref)), cmp: byRef },
  {
    key: 'title',
    label: 'Title',
    cell: (t) => t.title,
    cmp: (a, b) => byText(a.title.toLowerCase(), b.title.toLowerCase()),
  },
  {
    key: 'status',
    label: 'Status',
    cell: (t) => statusChip(t.status),
    cmp: (a, b) => (STATUS_RANK[a.status] ?? 9) - (STATUS_RANK[b.status] ?? 9),
  },
  {
    key: 'owner',
    label: 'Owner',
    cell: (t) => t.owner ?? 'unowned',
    cmp: (a, b) => byText(a.owner ?? '~', b.owner ?? '~'),
  },
  {
    key: 'priority',
    label: 'Priority',
    cell: (t) => t.priority ?? '—',
    cmp: (a, b) => (PRIORITY_RANK[a.priority ?? ''] ?? 9) - (PRIORITY_RANK[b.priority ?? ''] ?? 9),
  },
  {
    key: 'te',
    label: 'Te',
    cell: (t) => (t.estimate_te === null ? 'unsized' : t.estimate_te.toFixed(1)),
    cmp: (a, b) => nullsLast(a.estimate_te, b.estimate_te),
  },
  {
    key: 'criteria',
    label: 'Criteria',
    cell: (t) => (t.acceptance_total === 0 ? 'none' : `${t.acceptance_done}/${t.acceptance_total}`),
    cmp: (a, b) =>
      nullsLast(
        a.acceptance_total === 0 ? null : a.acceptance_done / a.acceptance_total,
        b.acceptance_total === 0 ? null : b.acceptance_done / b.acceptance_total,
      ),
  },
  {
    key: 'labels',
    label: 'Labels',
    cell: (t) => t.labels.join(', '),
    cmp: (a, b) => byText(a.labels.join(','), b.labels.join(',')),
  },
  {
    key: 'lease',
    label: 'Lease',
    cell: (t) =>
      t.status === 'active' && t.claim_expires !== null
        ? h('span', { class: 'lease', 'data-expires': t.claim_expires }, lease(t.claim_expires))
        : '',
    cmp: (a, b) =>
      nullsLast(
        a.claim_expires === null ? null : Date.parse(a.claim_expires),
        b.claim_expires === null ? null : Date.parse(b.claim_expires),
      ),
  },
]

export function tableView(root: HTMLElement, shell: Shell, project: string | null): View {
  const filter = readFilter()
  const q = hashQuery()
  let sortKey = COLUMNS.some((c) => c.key === q.get('sort')) ? (q.get('sort') as string) : 'ref'
  let dir: 1 | -1 = q.get('dir') === 'desc' ? -1 : 1
  let tasks: TaskItem[] = []
  let rows: TaskItem[] = []
  const bar = filterBar(filter, () => order())
  const tabs = h('div', { class: 'tabs', role: 'tablist' })
  const info = h('p', { class: 'muted small', 'aria-live': 'polite' })
  const head = h('thead', {})
  const body = h('tbody', {})
  const scroller = h(
    'div',
    { class: 'vt', tabindex: '0', 'aria-label': 'tasks (scroll for more)' },
    h('table', { class: 'tasks', 'aria-rowcount': 0 }, head, body),
  )
  scroller.addEventListener('scroll', () => paint())
  fill(root, h('div', { class: 'toolbar' }, tabs), bar.el, info, scroller)

  function header(): void {
    fill(
      head,
      h(
        'tr',
        {},
        COLUMNS.map((c) =>
          h(
            'th',
            {
              scope: 'col',
              'data-key': c.key,
              'aria-sort': c.key === sortKey ? (dir === 1 ? 'ascending' : 'descending') : 'none',
            },
            h(
              'button',
              {
                type: 'button',
                class: 'sort',
                onclick: () => {
                  dir = c.key === sortKey ? (dir === 1 ? -1 : 1) : 1
                  sortKey = c.key
                  order()
                },
              },
              c.label,
              h('span', { class: 'arrow', 'aria-hidden': 'true' }, c.key === sortKey ? (dir === 1 ? ' ▲' : ' ▼') : ''),
            ),
          ),
        ),
      ),
    )
  }

  function order(): void {
    writeFilter(filter, { sort: sortKey === 'ref' ? '' : sortKey, dir: dir === 1 ? '' : 'desc' })
    const col = COLUMNS.find((c) => c.key === sortKey) ?? (COLUMNS[0] as Column)
    rows = tasks.filter((t) => matches(t, filter)).sort((a, b) => dir * col.cmp(a, b) || byRef(a, b))
    bar.update(tasks)
    header()
    fill(info, `${rows.length} of ${tasks.length} task${tasks.length === 1 ? '' : 's'}`)
    scroller.querySelector('table')?.setAttribute('aria-rowcount', String(rows.length + 1))
    paint(true)
  }

  let painted = ''
  function paint(force = false): void {
    const height = scroller.clientHeight || 600
    const start = Math.max(0, Math.floor(scroller.scrollTop / ROW) - OVERSCAN)
    const end = Math.min(rows.length, Math.ceil((scroller.scrollTop + height) / ROW) + OVERSCAN)
    const key = `${start}:${end}`
    if (!force && key === painted) return
    painted = key
    // Heights through the CSSOM: the page's CSP allows no style attributes.
    const spacer = (px: number) => {
      const tr = h('tr', { class: 'spacer', 'aria-hidden': 'true' })
      tr.style.height = `${px}px`
      return tr
    }
    fill(
      body,
      spacer(start * ROW),
      rows.slice(start, end).map((t, i) =>
        h(
          'tr',
          { 'data-ref': t.ref, 'aria-rowindex': start + i + 2 },
          COLUMNS.map((c) => h('td', { 'data-key': c.key }, c.cell(t))),
        ),
      ),
      spacer((rows.length - end) * ROW),
    )
  }

  return {
    async update() {
      await shell.projectsReady
      const slug = project !== null && project !== '' ? project : null
      const query = location.hash.includes('?') ? `?${location.hash.split('?')[1]}` : ''
      fill(
        tabs,
        h('a', { href: `#/table${query}`, class: slug === null ? 'tab active' : 'tab', role: 'tab' }, 'all projects'),
        shell.projects.map((p) =>
          h(
            'a',
            {
              href: `#/table/${encodeURIComponent(p.slug)}${query}`,
              class: p.slug === slug ? 'tab active' : 'tab',
              role: 'tab',
            },
            p.slug,
          ),
        ),
        h(
          'a',
          { class: 'tab', href: `#/board/${encodeURIComponent(slug ?? shell.project ?? '')}${query}` },
          'Board view',
        ),
      )
      const list = await get<TaskList>('task/list', slug === null ? {} : { project: slug })
      tasks = list.tasks
      root.setAttribute('data-project', slug ?? '')
      order()
    },
  }
}
