// The board: a column per status (open, active, blocked, done) for one project,
// with tabs for the others. Each card: short ref, title, owner, priority,
// criteria progress and the lease countdown of an active claim.

import { get } from './api.js'
import { fill, h, lease, short, taskHref } from './dom.js'
import type { Shell, View } from './main.js'
import type { TaskItem, TaskList } from './types.js'

const STATUSES = ['open', 'active', 'blocked', 'done'] as const
/** Cards drawn per column before "show all" (a 1,000-task column stays quick). */
const FIRST = 150

function card(t: TaskItem): HTMLElement {
  return h(
    'a',
    { class: `card st-${t.status}`, href: taskHref(t.ref), 'data-ref': t.ref },
    h(
      'div',
      { class: 'card-top' },
      h('span', { class: 'ref' }, short(t.ref)),
      t.priority ? h('span', { class: `prio p-${t.priority}` }, t.priority) : null,
    ),
    h('div', { class: 'title' }, t.title),
    h(
      'div',
      { class: 'card-foot' },
      h('span', { class: 'owner' }, t.owner ?? 'unowned'),
      t.acceptance_total === 0
        ? h('span', { class: 'muted small' }, 'no criteria')
        : h(
            'span',
            { class: 'acc', title: `${t.acceptance_done} of ${t.acceptance_total} criteria checked` },
            h('progress', { value: t.acceptance_done, max: t.acceptance_total }),
            `${t.acceptance_done}/${t.acceptance_total}`,
          ),
    ),
    t.status === 'active' && t.claim_expires !== null
      ? h('div', { class: 'lease', 'data-expires': t.claim_expires }, lease(t.claim_expires))
      : null,
  )
}

export function boardView(root: HTMLElement, shell: Shell, project: string | null): View {
  let filter = ''
  const expanded = new Set<string>()
  const input = h('input', {
    type: 'search',
    placeholder: 'Filter by ref, title or owner',
    'aria-label': 'filter cards',
    oninput: (e: Event) => {
      filter = (e.target as HTMLInputElement).value.toLowerCase()
      draw()
    },
  })
  let tasks: TaskItem[] = []
  const tabs = h('div', { class: 'tabs', role: 'tablist' })
  const columns = h('div', { class: 'columns' })
  fill(root, h('div', { class: 'toolbar' }, tabs, input), columns)

  function draw(): void {
    const shown =
      filter === ''
        ? tasks
        : tasks.filter((t) => `${short(t.ref)} ${t.ref} ${t.title} ${t.owner ?? ''}`.toLowerCase().includes(filter))
    fill(
      columns,
      STATUSES.map((st) => {
        const all = shown.filter((t) => t.status === st)
        const limit = expanded.has(st) ? all.length : FIRST
        return h(
          'section',
          { class: `column col-${st}`, 'data-status': st, 'data-count': all.length },
          h('h2', {}, h('span', { class: `dot st-${st}` }), st, h('span', { class: 'count' }, String(all.length))),
          h('div', { class: 'cards' }, all.slice(0, limit).map(card)),
          all.length > limit
            ? h(
                'button',
                {
                  class: 'more',
                  onclick: () => {
                    expanded.add(st)
                    draw()
                  },
                },
                `Show all ${all.length}`,
              )
            : null,
        )
      }),
    )
  }

  return {
    async update() {
      // A known project loads at once; the project list (tabs, counts) arrives alongside.
      const known = project ?? shell.project
      const listed =
        known === null ? shell.projectsReady.then(() => shell.projects[0]?.slug ?? null) : Promise.resolve(known)
      const slug = await listed
      const [list] = await Promise.all([
        slug === null ? null : get<TaskList>('task/list', { project: slug }),
        shell.projectsReady,
      ])
      if (slug !== null && !shell.projects.some((p) => p.slug === slug)) {
        shell.project = null
        fill(columns, h('p', { class: 'error' }, `No project "${slug}".`))
        return
      }
      shell.project = slug
      try {
        if (slug !== null) localStorage.setItem('dacli-board-project', slug)
      } catch {
        // Storage may be off: the first project is shown then.
      }
      fill(
        tabs,
        shell.projects.map((p) =>
          h(
            'a',
            {
              href: `#/board/${encodeURIComponent(p.slug)}`,
              class: p.slug === slug ? 'tab active' : 'tab',
              role: 'tab',
            },
            p.slug,
            h(
              'span',
              {
                class: 'count',
                title: `${p.counts.open} open, ${p.counts.active} active, ${p.counts.blocked} blocked, ${p.counts.done} done`,
              },
              String(p.counts.open + p.counts.active + p.counts.blocked + p.counts.done),
            ),
          ),
        ),
      )
      if (slug === null) {
        tasks = []
        fill(columns, h('p', { class: 'muted' }, 'No projects yet: dacli project add "<title>"'))
        return
      }
      tasks = list?.tasks ?? []
      root.setAttribute('data-project', slug)
      draw()
    },
  }
}
