// Search and filters, kept in the address (#/board/<project>?q=…&status=…&owner=…&priority=…&label=…), so a
// reload, a bookmark or a link shows the same cards. The project is the route's own part; the rest is the
// query after the hash. Rewriting it uses history.replaceState, which does not rebuild the view.

import { h, short } from './dom.js'
import type { TaskItem } from './types.js'

export interface Filter {
  q: string
  status: string[]
  owner: string
  priority: string
  label: string[]
}

/** The query part of the address's hash (after `?`). */
export function hashQuery(): URLSearchParams {
  const i = location.hash.indexOf('?')
  return new URLSearchParams(i === -1 ? '' : location.hash.slice(i + 1))
}

/** Replace the hash's query, keeping its route, without a navigation. */
export function setHashQuery(q: URLSearchParams): void {
  const route = location.hash.split('?')[0] || '#/board'
  const s = q.toString()
  history.replaceState(null, '', `${route}${s === '' ? '' : `?${s}`}`)
}

const list = (v: string | null) => (v === null || v === '' ? [] : v.split(',').filter((x) => x !== ''))

export function readFilter(q = hashQuery()): Filter {
  return {
    q: q.get('q') ?? '',
    status: list(q.get('status')),
    owner: q.get('owner') ?? '',
    priority: q.get('priority') ?? '',
    label: list(q.get('label')),
  }
}

export function writeFilter(f: Filter, keep: Record<string, string> = {}): void {
  const q = hashQuery()
  const set = (k: string, v: string) => (v === '' ? q.delete(k) : q.set(k, v))
  set('q', f.q)
  set('status', f.status.join(','))
  set('owner', f.owner)
  set('priority', f.priority)
  set('label', f.label.join(','))
  for (const [k, v] of Object.entries(keep)) set(k, v)
  setHashQuery(q)
}

export const isEmpty = (f: Filter) =>
  f.q === '' && f.status.length === 0 && f.owner === '' && f.priority === '' && f.label.length === 0

/** Whether a task passes the filter: every field given must match; the text is searched in ref, title, owner, labels. */
export function matches(t: TaskItem, f: Filter): boolean {
  if (f.status.length > 0 && !f.status.includes(t.status)) return false
  if (f.owner !== '') {
    if (f.owner === 'none' ? t.owner !== null : t.owner !== f.owner) return false
  }
  if (f.priority !== '' && (t.priority ?? 'none') !== f.priority) return false
  if (f.label.length > 0 && !f.label.every((l) => t.labels.includes(l))) return false
  if (f.q !== '') {
    const hay = `${short(t.ref)} ${t.ref} ${t.title} ${t.owner ?? ''} ${t.labels.join(' ')}`.toLowerCase()
    if (
      !f.q
        .toLowerCase()
        .split(/\s+/)
        .every((w) => hay.includes(w))
    )
      return false
  }
  return true
}

/**
 * The filter bar: text, status, owner, priority, label. Its choices come from the tasks loaded; a change
 * rewrites the address and calls `changed`.
 */
export function filterBar(
  f: Filter,
  changed: () => void,
  opts: { statuses?: boolean } = {},
): { el: HTMLElement; update(tasks: readonly TaskItem[]): void } {
  const commit = () => {
    writeFilter(f)
    changed()
  }
  const text = h('input', {
    type: 'search',
    class: 'search',
    placeholder: 'Search ref, title, owner, label',
    'aria-label': 'search tasks',
    'data-filter': 'q',
    value: f.q,
    oninput: (e: Event) => {
      f.q = (e.target as HTMLInputElement).value
      commit()
    },
  })
  text.value = f.q
  const select = (name: 'status' | 'owner' | 'priority' | 'label', label: string) =>
    h('select', {
      'aria-label': label,
      'data-filter': name,
      onchange: (e: Event) => {
        const v = (e.target as HTMLSelectElement).value
        if (name === 'status' || name === 'label') f[name] = v === '' ? [] : [v]
        else f[name] = v
        commit()
      },
    })
  const status = select('status', 'status')
  const owner = select('owner', 'owner')
  const priority = select('priority', 'priority')
  const label = select('label', 'label')
  const clear = h(
    'button',
    {
      type: 'button',
      class: 'clear',
      onclick: () => {
        f.q = ''
        f.status = []
        f.owner = ''
        f.priority = ''
        f.label = []
        text.value = ''
        commit()
        update(lastTasks)
      },
    },
    'Clear filters',
  )
  let lastTasks: readonly TaskItem[] = []
  const options = (el: HTMLSelectElement, all: string, values: readonly string[], current: string) => {
    const vs = current !== '' && !values.includes(current) ? [...values, current] : values
    el.replaceChildren(
      h('option', { value: '' }, all),
      ...vs.map((v) => h('option', { value: v, selected: v === current }, v)),
    )
    el.value = current
  }
  function update(tasks: readonly TaskItem[]): void {
    lastTasks = tasks
    const uniq = (xs: Iterable<string>) => [...new Set(xs)].sort()
    options(status, 'any status', ['open', 'active', 'blocked', 'done'], f.status[0] ?? '')
    options(owner, 'any owner', ['none', ...uniq(tasks.flatMap((t) => (t.owner === null ? [] : [t.owner])))], f.owner)
    options(priority, 'any priority', ['must', 'should', 'could', 'wont', 'none'], f.priority)
    options(label, 'any label', uniq(tasks.flatMap((t) => t.labels)), f.label[0] ?? '')
    clear.hidden = isEmpty(f)
  }
  const el = h(
    'div',
    { class: 'filters', role: 'search' },
    text,
    opts.statuses === false ? null : status,
    owner,
    priority,
    label,
    clear,
  )
  return { el, update }
}
