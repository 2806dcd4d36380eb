// The board: a column per status (open, active, blocked, done) for one project,
// with tabs for the others. Each card: short ref, title, owner, priority,
// criteria progress, the lease countdown of an active claim (or "claim expired"),
// and for a blocked task why (the blocking task and reason, or the question and
// who asked it). Unreadable task files appear as problem cards naming the file.
//
// Acting: "New task" runs `task add`; a card dragged to another column, or moved
// with Shift+← / Shift+→ while focused, runs the command that makes that move
// (actions.ts). Arrow keys move the focus between cards. Search and filters live
// in the address, so a reload keeps them.

import { ask, move, perform, STATUSES, type Status } from './actions.js'
import { get } from './api.js'
import { fill, h, lease, short, taskHref } from './dom.js'
import { filterBar, matches, readFilter } from './filters.js'
import type { Shell, View } from './main.js'
import type { Task, TaskItem, TaskList, ThreadList } from './types.js'

/** Cards drawn per column, and added by each "show more" (a 1,000-task column stays quick). */
const FIRST = 150

type Question = ThreadList['threads'][number]

/** Why a blocked task is blocked, in words. */
export function blockedWhy(t: Task | null, q: Question | undefined): string {
  if (q !== undefined) return `waiting on a question from ${q.asked_by}: “${q.question}”`
  if (t === null) return 'blocked (reading why…)'
  const entry = [...t.log].reverse().find((l) => l.verb === 'blocked')
  const why = entry?.details.replace(/^by [^:\s]+(: )?/, '') ?? ''
  const by = t.blocked_by === null ? null : short(t.blocked_by.ref ?? t.blocked_by.id)
  if (by !== null && why !== '') return `blocked by ${by}: ${why}`
  if (by !== null) return `blocked by ${by}${entry ? '' : ' (no reason logged)'}`
  if (why !== '') return `blocked: ${why}`
  return 'blocked with no reason given (see its log)'
}

export function claimExpired(t: { status: string; claim_expires: string | null }, now = Date.now()): boolean {
  return t.status === 'active' && t.claim_expires !== null && Date.parse(t.claim_expires) <= now
}

function card(t: TaskItem, why: string | null): HTMLElement {
  const expired = claimExpired(t)
  return h(
    'a',
    {
      class: `card st-${t.status}${expired ? ' claim-expired' : ''}`,
      href: taskHref(t.ref),
      'data-ref': t.ref,
      'data-status': t.status,
      draggable: 'true',
      'aria-roledescription': 'task card',
      'aria-label': `${short(t.ref)} ${t.title}, ${t.status}${t.owner ? `, owned by ${t.owner}` : ''}`,
    },
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
    t.labels.length === 0
      ? null
      : h(
          'div',
          { class: 'labels' },
          t.labels.map((l) => h('span', { class: 'label' }, l)),
        ),
    t.status === 'active' && t.claim_expires !== null
      ? h(
          'div',
          { class: expired ? 'lease expired' : 'lease', 'data-expires': t.claim_expires },
          lease(t.claim_expires),
        )
      : null,
    expired ? h('div', { class: 'flag expired-flag' }, '⚠ claim expired: anyone may take it over') : null,
    why === null ? null : h('div', { class: 'why' }, why),
  )
}

export function boardView(root: HTMLElement, shell: Shell, project: string | null): View {
  const filter = readFilter()
  /** Cards shown per column beyond the first FIRST (grows by FIRST with each "show more"). */
  const expanded = new Map<string, number>()
  const ro = shell.session.read_only
  let tasks: TaskItem[] = []
  let questions = new Map<string, Question>()
  /** task show of blocked tasks, by ref@version (a changed task is read again). */
  const shown = new Map<string, Task | null>()
  let skipped: TaskList['skipped'] = []
  let focusRef: string | null = null
  /** While a card is dragged the columns are not redrawn (the drag would lose its card); once, after the drop. */
  let dragging = false
  let pending = false
  /** What the columns were last drawn from: a live event that changed nothing here redraws nothing. */
  let drawnFrom = ''
  const tabs = h('div', { class: 'tabs', role: 'tablist' })
  const bar = filterBar(filter, () => draw())
  const result = h('div', { class: 'results', 'aria-live': 'polite' })
  const problems = h('div', { class: 'problems' })
  const columns = h('div', { class: 'columns' })
  const newTask = ro
    ? null
    : h('button', { type: 'button', class: 'primary new-task', onclick: () => void create() }, '+ New task')
  const tableLink = h('a', { class: 'tab', href: '#/table' }, 'Table view')
  const hint = h(
    'p',
    { class: 'muted small hint' },
    ro
      ? 'Read-only board: no actions. Arrow keys move between cards, Enter opens one.'
      : 'Drag a card to another column, or focus it and press Shift+← / Shift+→ to move it (arrow keys move between cards, Enter opens one).',
  )
  fill(root, h('div', { class: 'toolbar' }, tabs, newTask, tableLink), bar.el, hint, result, problems, columns)

  async function create(): Promise<void> {
    const slug = shell.project
    if (slug === null) return
    const v = await ask(
      `New task in ${slug}`,
      [
        { name: 'title', label: 'Title', required: true },
        { name: 'priority', label: 'Priority', kind: 'select', options: ['', 'must', 'should', 'could', 'wont'] },
        { name: 'estimate', label: 'Estimate (optimistic,probable,pessimistic)', placeholder: 'e.g. 1,2,4' },
        { name: 'accept', label: 'Acceptance criteria (one a line)', kind: 'textarea' },
      ],
      'Create',
    )
    if (v === null) return
    const accept = (v.accept ?? '')
      .split('\n')
      .map((x) => x.trim())
      .filter((x) => x !== '')
    const doc = await perform<{ ref?: string }>(
      result,
      'task/add',
      { title: (v.title ?? '').trim() },
      {
        project: slug,
        priority: v.priority || undefined,
        estimate: v.estimate?.trim() || undefined,
        accept: accept.length === 0 ? undefined : accept,
      },
      `created “${(v.title ?? '').trim()}”`,
    )
    if (doc?.ref) focusRef = doc.ref
    if (doc !== null) await shell.refresh()
  }

  async function moveTo(t: TaskItem, to: Status): Promise<void> {
    focusRef = t.ref
    if (await move(t, to, result)) await shell.refresh()
  }

  function focusCard(ref: string | null): void {
    if (ref === null) return
    const el = columns.querySelector<HTMLElement>(`.card[data-ref="${CSS.escape(ref)}"]`)
    el?.focus()
  }

  function onKey(e: KeyboardEvent): void {
    const el = (e.target as HTMLElement).closest<HTMLElement>('.card')
    if (el === null) return
    const ref = el.getAttribute('data-ref') ?? ''
    const st = el.getAttribute('data-status') as Status
    const col = STATUSES.indexOf(st)
    const t = tasks.find((x) => x.ref === ref)
    if (e.shiftKey && (e.key === 'ArrowRight' || e.key === 'ArrowLeft')) {
      e.preventDefault()
      const to = STATUSES[col + (e.key === 'ArrowRight' ? 1 : -1)]
      if (to !== undefined && t !== undefined && !ro) void moveTo(t, to)
      return
    }
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      const sib = e.key === 'ArrowDown' ? el.nextElementSibling : el.previousElementSibling
      ;(sib as HTMLElement | null)?.focus()
      return
    }
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault()
      for (
        let i = col + (e.key === 'ArrowRight' ? 1 : -1);
        i >= 0 && i < STATUSES.length;
        i += e.key === 'ArrowRight' ? 1 : -1
      ) {
        const first = columns.querySelector<HTMLElement>(`.column[data-status="${STATUSES[i]}"] .card`)
        if (first) {
          first.focus()
          return
        }
      }
    }
  }
  columns.addEventListener('keydown', onKey)
  columns.addEventListener('dragstart', (e) => {
    const el = (e.target as HTMLElement).closest<HTMLElement>('.card')
    if (el === null || e.dataTransfer === null) return
    e.dataTransfer.setData('text/x-dacli-ref', el.getAttribute('data-ref') ?? '')
    e.dataTransfer.effectAllowed = 'move'
    el.classList.add('dragging')
    dragging = true
  })
  columns.addEventListener('dragend', (e) => {
    ;(e.target as HTMLElement).classList?.remove('dragging')
    dragging = false
    if (pending) draw()
  })
  columns.addEventListener('dragover', (e) => {
    const col = (e.target as HTMLElement).closest('.column')
    if (col === null || ro) return
    e.preventDefault()
    for (const c of columns.querySelectorAll('.column.over')) if (c !== col) c.classList.remove('over')
    col.classList.add('over')
  })
  columns.addEventListener('dragleave', (e) => {
    const col = (e.target as HTMLElement).closest('.column')
    if (col !== null && !col.contains(e.relatedTarget as Node | null)) col.classList.remove('over')
  })
  columns.addEventListener('drop', (e) => {
    const col = (e.target as HTMLElement).closest('.column')
    for (const c of columns.querySelectorAll('.column.over')) c.classList.remove('over')
    if (col === null || e.dataTransfer === null || ro) return
    e.preventDefault()
    const ref = e.dataTransfer.getData('text/x-dacli-ref')
    const t = tasks.find((x) => x.ref === ref)
    const to = col.getAttribute('data-status') as Status
    if (t !== undefined) void moveTo(t, to)
  })

  function whyOf(t: TaskItem): string | null {
    if (t.status !== 'blocked') return null
    return blockedWhy(shown.get(`${t.ref}@${t.version}`) ?? null, questions.get(t.ref))
  }

  function draw(): void {
    if (dragging) {
      pending = true
      return
    }
    pending = false
    const had = (document.activeElement as HTMLElement | null)?.closest?.('.card')?.getAttribute('data-ref') ?? null
    const visible = tasks.filter((t) => matches(t, filter))
    bar.update(tasks)
    fill(
      problems,
      skipped.map((s) =>
        h(
          'div',
          { class: 'card problem', role: 'note', 'data-path': s.path },
          h(
            'div',
            { class: 'card-top' },
            h('strong', {}, '⚠ unreadable task file'),
            h('span', { class: 'chip' }, s.code),
          ),
          h('code', { class: 'path' }, s.path),
          h('div', { class: 'small' }, s.reason),
          h('div', { class: 'muted small' }, 'dacli doctor explains it; the file is left as it is'),
        ),
      ),
    )
    fill(
      columns,
      STATUSES.map((st) => {
        const all = visible.filter((t) => t.status === st)
        const limit = FIRST + (expanded.get(st) ?? 0)
        return h(
          'section',
          {
            class: `column col-${st}`,
            'data-status': st,
            'data-count': all.length,
            'aria-label': `${st}: ${all.length} task${all.length === 1 ? '' : 's'}`,
          },
          h('h2', {}, h('span', { class: `dot st-${st}` }), st, h('span', { class: 'count' }, String(all.length))),
          h(
            'div',
            { class: 'cards' },
            all.slice(0, limit).map((t) => card(t, whyOf(t))),
          ),
          all.length > limit
            ? h(
                'button',
                {
                  class: 'more',
                  onclick: () => {
                    expanded.set(st, (expanded.get(st) ?? 0) + FIRST)
                    focusRef = all[limit]?.ref ?? null
                    draw()
                  },
                },
                `Show ${Math.min(FIRST, all.length - limit)} more (${all.length - limit} not shown; the table view scrolls through all)`,
              )
            : null,
        )
      }),
    )
    focusCard(focusRef ?? had)
    focusRef = null
    watchBlocked()
  }

  /**
   * Why a blocked card is blocked needs its task (the blocker and the logged reason): read when the card comes into
   * sight, four at a time, once per version of the task, and written into the card in place.
   */
  const queue: TaskItem[] = []
  let reading = 0
  const sight = new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (!e.isIntersecting) continue
      sight.unobserve(e.target)
      const t = tasks.find((x) => x.ref === e.target.getAttribute('data-ref'))
      if (t !== undefined && !shown.has(`${t.ref}@${t.version}`)) queue.push(t)
    }
    pump()
  })
  function pump(): void {
    while (reading < 4 && queue.length > 0) {
      const t = queue.shift() as TaskItem
      const key = `${t.ref}@${t.version}`
      if (shown.has(key)) continue
      reading++
      shown.set(key, null)
      void get<Task>('task/show', { ref: t.ref })
        .then((doc) => {
          shown.set(key, doc)
          const el = columns.querySelector(`.card[data-ref="${CSS.escape(t.ref)}"] .why`)
          if (el !== null) el.textContent = blockedWhy(doc, questions.get(t.ref))
        })
        .catch(() => shown.delete(key))
        .finally(() => {
          reading--
          pump()
        })
    }
  }
  function watchBlocked(): void {
    sight.disconnect()
    for (const el of columns.querySelectorAll<HTMLElement>('.column[data-status="blocked"] .card')) {
      const t = tasks.find((x) => x.ref === el.getAttribute('data-ref'))
      if (t !== undefined && !questions.has(t.ref) && shown.get(`${t.ref}@${t.version}`) == null) sight.observe(el)
    }
  }

  async function update(): Promise<void> {
    // A known project loads at once; the project list (tabs, counts) arrives alongside.
    const known = project ?? shell.project
    const listed =
      known === null ? shell.projectsReady.then(() => shell.projects[0]?.slug ?? null) : Promise.resolve(known)
    const slug = await listed
    const [list, threads] = await Promise.all([
      slug === null ? null : get<TaskList>('task/list', { project: slug }),
      slug === null ? null : get<ThreadList>('threads', { open: true, project: slug }).catch(() => null),
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
    const query = location.hash.includes('?') ? `?${location.hash.split('?')[1]}` : ''
    tableLink.setAttribute('href', `#/table/${encodeURIComponent(slug ?? '')}${query}`)
    fill(
      tabs,
      shell.projects.map((p) =>
        h(
          'a',
          {
            href: `#/board/${encodeURIComponent(p.slug)}${query}`,
            class: p.slug === slug ? 'tab active' : 'tab',
            role: 'tab',
            'aria-selected': p.slug === slug ? 'true' : 'false',
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
    const from = JSON.stringify([slug, list?.tasks, list?.skipped, threads?.threads])
    if (from === drawnFrom) return
    drawnFrom = from
    tasks = list?.tasks ?? []
    skipped = list?.skipped ?? []
    questions = new Map()
    for (const q of threads?.threads ?? []) {
      if (q.about?.ref && q.blocks && q.state === 'open' && !questions.has(q.about.ref)) questions.set(q.about.ref, q)
    }
    root.setAttribute('data-project', slug)
    draw()
  }
  return { update }
}
