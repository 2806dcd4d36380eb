// One task: what it is, why it is blocked, its criteria (tick them here), its
// dependencies with their status, the evidence of --verify runs, its log, the
// notes about it and its GitHub issue, the open question it waits on (answer
// it here). The actions — claim, release, block, unblock, done, reopen, edit,
// tick, note, answer — run as the server's identity through the command table;
// a refusal is shown with its policy and next actions.

import { ask, move, perform } from './actions.js'
import { get } from './api.js'
import { blockedWhy } from './board.js'
import { type Child, fill, h, lease, short, statusChip, taskLink } from './dom.js'
import type { Shell, View } from './main.js'
import type { NoteList, Task, ThreadList } from './types.js'

function section(title: string, ...body: Child[]): HTMLElement {
  return h('section', { class: 'block' }, h('h3', {}, title), ...body)
}

export function taskView(root: HTMLElement, shell: Shell, ref: string): View {
  const ro = shell.session.read_only
  const result = h('div', { class: 'results', 'aria-live': 'polite' })
  const body = h('div', { class: 'task-body' })
  const notesList = h('div', { class: 'notes-list' })
  let task: Task | null = null

  async function run(
    path: string,
    args: Record<string, string>,
    flags: Record<string, string | readonly string[] | number | undefined> = {},
    done = '',
  ): Promise<boolean> {
    const doc = await perform(result, path, args, flags, done)
    await shell.refresh()
    return doc !== null
  }

  async function edit(t: Task): Promise<void> {
    const est = t.estimate === null ? '' : `${t.estimate.optimistic},${t.estimate.probable},${t.estimate.pessimistic}`
    const v = await ask(
      `Edit ${short(t.ref)}`,
      [
        { name: 'title', label: 'Title', value: t.title, required: true },
        {
          name: 'priority',
          label: 'Priority',
          kind: 'select',
          options: ['', 'must', 'should', 'could', 'wont'],
          value: t.priority ?? '',
        },
        { name: 'estimate', label: 'Estimate (optimistic,probable,pessimistic)', value: est, placeholder: '1,2,4' },
        { name: 'accept', label: 'Add acceptance criteria (one a line)', kind: 'textarea' },
      ],
      'Save',
    )
    if (v === null) return
    const accept = (v.accept ?? '')
      .split('\n')
      .map((x) => x.trim())
      .filter((x) => x !== '')
    const flags: Record<string, string | readonly string[] | number | undefined> = {
      title: v.title?.trim() !== t.title ? v.title?.trim() : undefined,
      priority: v.priority !== (t.priority ?? '') && v.priority !== '' ? v.priority : undefined,
      estimate: v.estimate?.trim() !== est && v.estimate?.trim() !== '' ? v.estimate?.trim() : undefined,
      accept: accept.length === 0 ? undefined : accept,
    }
    if (Object.values(flags).every((x) => x === undefined)) {
      fill(result, h('div', { class: 'result ok', role: 'status' }, 'nothing changed'))
      return
    }
    // Written only if nobody changed the task since this page read it (exit 5 otherwise, as on the CLI).
    await run('task/edit', { ref: t.ref }, { ...flags, 'if-version': t.version }, `edited ${short(t.ref)}`)
  }

  const kind = h(
    'select',
    { 'aria-label': 'note kind' },
    ['finding', 'decision', 'ref'].map((k) => h('option', { value: k }, k)),
  )
  const noteTitle = h('input', { type: 'text', placeholder: 'Title', 'aria-label': 'note title', required: true })
  const noteBody = h('textarea', { placeholder: 'What you learned (optional)', 'aria-label': 'note body', rows: 3 })
  const rejected = h('input', {
    type: 'text',
    placeholder: 'Rejected alternative (decisions)',
    'aria-label': 'rejected alternative',
  })
  const noteForm = h(
    'form',
    {
      class: 'note-form',
      onsubmit: (e: Event) => {
        e.preventDefault()
        if (task === null || noteTitle.value.trim() === '') return
        const flags: Record<string, string> = { project: task.project, about: task.ref }
        if (noteBody.value.trim() !== '') flags.body = noteBody.value
        if (kind.value === 'decision' && rejected.value.trim() !== '') flags.rejected = rejected.value
        void run(
          'note/add',
          { kind: kind.value, title: noteTitle.value.trim() },
          flags,
          `noted: ${noteTitle.value.trim()}`,
        ).then((ok) => {
          if (ok) {
            noteTitle.value = ''
            noteBody.value = ''
            rejected.value = ''
          }
        })
      },
    },
    h('div', { class: 'row' }, kind, noteTitle),
    rejected,
    noteBody,
    h('button', { type: 'submit' }, 'Add note'),
  )

  // The note form stays put across live reloads (typing is never interrupted); only the list is redrawn.
  fill(
    root,
    h(
      'p',
      { class: 'back' },
      h('a', { href: `#/board/${encodeURIComponent(ref.split('/')[0] ?? '')}` }, '← board'),
      ' · ',
      h(
        'a',
        {
          class: 'neighbourhood',
          href: `#/graph/${encodeURIComponent(ref.split('/')[0] ?? '')}?around=${encodeURIComponent(ref)}&depth=2`,
        },
        'its neighbourhood in the graph',
      ),
    ),
    result,
    body,
    section('Notes about it', notesList, ro ? null : noteForm),
  )

  async function update(): Promise<void> {
    const [t, notes, threads] = await Promise.all([
      get<Task>('task/show', { ref }),
      get<NoteList>('note/list', { about: ref }).catch(() => null),
      get<ThreadList>('threads', { about: ref, open: true }).catch(() => null),
    ])
    task = t
    root.setAttribute('data-ref', t.ref)
    const s = short(t.ref)
    const button = (label: string, onclick: () => void, cls = '') =>
      h('button', { type: 'button', class: cls || null, 'data-action': label.toLowerCase(), onclick }, label)
    const buttons = ro
      ? h('p', { class: 'muted small' }, 'read-only board: no actions')
      : h(
          'div',
          { class: 'actions' },
          t.status === 'open'
            ? button('Claim', () => void run('task/claim', { ref: t.ref }, {}, `claimed ${s}`))
            : null,
          t.status === 'active'
            ? button('Release', () => void run('task/release', { ref: t.ref }, {}, `released ${s}`))
            : null,
          t.status === 'open' || t.status === 'active'
            ? button('Block', () => void move(t, 'blocked', result).then(() => shell.refresh()))
            : null,
          t.status === 'blocked'
            ? button('Unblock', () => void run('task/unblock', { ref: t.ref }, {}, `unblocked ${s}`))
            : null,
          t.status === 'done' ? button('Reopen', () => void move(t, 'open', result).then(() => shell.refresh())) : null,
          button('Edit', () => void edit(t)),
          t.status !== 'done'
            ? button('Done', () => void run('task/done', { ref: t.ref }, {}, `closed ${s}`), 'primary')
            : null,
        )
    const open = (threads?.threads ?? []).filter((q) => q.state === 'open')
    const waiting = open.find((q) => q.blocks && q.id === t.blocked_by?.id) ?? open.find((q) => q.blocks)
    const questions =
      open.length === 0
        ? null
        : section(
            open.length === 1 ? 'Open question' : `Open questions (${open.length})`,
            open.map((q) => {
              const text = h('textarea', {
                rows: 2,
                'aria-label': `answer to ${q.id}`,
                placeholder: 'Your answer (recorded as a finding in the project)',
                required: true,
              })
              return h(
                'div',
                { class: 'question', 'data-question': q.id },
                h('p', {}, h('strong', { class: 'q-text' }, q.question)),
                h(
                  'p',
                  { class: 'muted small' },
                  `asked by ${q.asked_by} at ${q.asked_at}`,
                  q.blocks ? ' · the task waits for the answer' : '',
                  q.need ? ` · needs: ${q.need}` : '',
                ),
                ro
                  ? null
                  : h(
                      'form',
                      {
                        class: 'answer-form',
                        onsubmit: (e: Event) => {
                          e.preventDefault()
                          if (text.value.trim() === '') return
                          void run('answer', { 'question-id': q.id, answer: text.value.trim() }, {}, `answered ${q.id}`)
                        },
                      },
                      text,
                      h('button', { type: 'submit', class: 'primary' }, 'Answer'),
                    ),
              )
            }),
          )
    const gh = t.github?.issue && t.github.repo ? `https://github.com/${t.github.repo}/issues/${t.github.issue}` : null
    fill(
      body,
      h(
        'div',
        { class: 'task-head' },
        h('span', { class: 'ref big' }, t.ref),
        statusChip(t.status),
        t.priority ? h('span', { class: `prio p-${t.priority}` }, t.priority) : null,
      ),
      h('h1', {}, t.title),
      buttons,
      h(
        'dl',
        { class: 'fields' },
        h('dt', {}, 'owner'),
        h('dd', {}, t.owner ?? 'unowned'),
        h('dt', {}, 'claim'),
        h(
          'dd',
          {},
          t.claim === null
            ? '—'
            : [
                `${t.claim.by} since ${t.claim.at}`,
                t.claim.expires
                  ? h('span', { class: 'lease', 'data-expires': t.claim.expires }, lease(t.claim.expires))
                  : null,
              ],
        ),
        t.remote_claim === null ? null : h('dt', {}, 'remote claim'),
        t.remote_claim === null
          ? null
          : h(
              'dd',
              { class: 'remote-claim' },
              `${t.remote_claim.by} on ${t.remote_claim.remote} (${t.remote_claim.this_clone ? 'this clone' : t.remote_claim.host})`,
              t.remote_claim.expires
                ? h('span', { class: 'lease', 'data-expires': t.remote_claim.expires }, lease(t.remote_claim.expires))
                : null,
              h(
                'span',
                { class: 'dim', title: t.remote_claim.fetched_at },
                ` — as seen ${Math.round(t.remote_claim.fetch_age_seconds / 60)} min before this page loaded`,
              ),
            ),
        h('dt', {}, 'estimate'),
        h(
          'dd',
          {},
          t.estimate === null
            ? 'unsized'
            : `${t.estimate.optimistic} / ${t.estimate.probable} / ${t.estimate.pessimistic} (Te ${t.estimate.te.toFixed(1)})`,
        ),
        h('dt', {}, 'GitHub'),
        h(
          'dd',
          {},
          gh === null
            ? '—'
            : h(
                'a',
                { href: gh, rel: 'noopener noreferrer', target: '_blank' },
                `${t.github?.repo}#${t.github?.issue}`,
              ),
        ),
        h('dt', {}, 'file'),
        h('dd', {}, h('code', {}, t.path)),
      ),
      t.status === 'blocked'
        ? section(
            'Blocked',
            h('p', { class: 'why' }, blockedWhy(t, waiting)),
            t.blocked_by?.ref ? h('p', {}, 'blocking task: ', taskLink(t.blocked_by.ref)) : null,
          )
        : null,
      questions,
      t.sections.so_that ? section('So that', h('p', { class: 'pre' }, t.sections.so_that)) : null,
      section(
        `Acceptance (${t.acceptance_done}/${t.acceptance_total})`,
        t.acceptance.length === 0
          ? h('p', { class: 'muted' }, 'no acceptance criteria yet')
          : h(
              'ul',
              { class: 'criteria' },
              t.acceptance.map((a) =>
                h(
                  'li',
                  {},
                  h(
                    'label',
                    {},
                    h('input', {
                      type: 'checkbox',
                      'data-n': a.n,
                      checked: a.checked,
                      disabled: ro || a.checked,
                      onchange: () =>
                        void run('task/check', { ref: t.ref }, { n: String(a.n) }, `checked ${a.n}. ${a.text}`),
                    }),
                    ` ${a.n}. `,
                    a.text,
                  ),
                ),
              ),
            ),
      ),
      t.depends_on.length === 0
        ? null
        : section(
            'Depends on',
            h(
              'table',
              {},
              h(
                'tbody',
                {},
                t.depends_on.map((d) =>
                  h(
                    'tr',
                    {},
                    h('td', {}, h('code', {}, d.type)),
                    h('td', {}, d.ref ? taskLink(d.ref) : d.on),
                    h('td', {}, statusChip(d.status)),
                    h('td', {}, d.title ?? ''),
                  ),
                ),
              ),
            ),
          ),
      t.sections.context ? section('Context', h('p', { class: 'pre' }, t.sections.context)) : null,
      t.verifications.length === 0
        ? null
        : section(
            'Verification',
            h(
              'ul',
              { class: 'log' },
              t.verifications.map((v) =>
                h(
                  'li',
                  {},
                  h('span', { class: 'muted' }, v.at),
                  ` ${v.actor} `,
                  h(
                    'span',
                    { class: v.exit_code === 0 ? 'ok' : 'bad' },
                    v.exit_code === 0 ? 'passed' : `exit ${v.exit_code ?? 'timeout'}`,
                  ),
                  ` in ${v.duration_ms} ms, criteria ${v.checked.join(', ')}: `,
                  h('code', {}, v.command),
                ),
              ),
            ),
          ),
      section(
        'Log',
        h(
          'ul',
          { class: 'log' },
          t.log.map((l) => h('li', {}, h('span', { class: 'muted' }, l.at), ` ${l.actor} ${l.verb} ${l.details}`)),
        ),
      ),
    )
    fill(
      notesList,
      notes === null || notes.notes.length === 0
        ? h('p', { class: 'muted' }, 'none yet')
        : h(
            'ul',
            { class: 'notes' },
            notes.notes.map((n) =>
              h(
                'li',
                {},
                h('span', { class: 'chip' }, n.kind),
                ' ',
                h('strong', {}, n.title),
                n.body ? h('p', { class: 'pre' }, n.body) : null,
              ),
            ),
          ),
    )
  }
  return { update }
}
