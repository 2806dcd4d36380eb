// One task: what it is, why it is blocked, its criteria (tick them here), its
// dependencies with their status, the evidence of --verify runs, its log, the
// notes about it and its GitHub issue; the actions run as the server's
// identity and a refusal is shown with its policy and next actions.

import { act, type Envelope, get } from './api.js'
import { type Child, fill, h, lease, short, statusChip, taskHref, taskLink } from './dom.js'
import type { Shell, View } from './main.js'
import type { NoteList, Task } from './types.js'

function refusal(e: Envelope): HTMLElement {
  const policy = typeof e.details.policy === 'string' ? e.details.policy : null
  return h(
    'div',
    { class: `result refused kind-${e.kind}`, role: 'alert' },
    h('strong', {}, e.kind === 'refused' ? 'Refused' : e.kind === 'conflict' ? 'Conflict' : 'Failed'),
    ` (exit ${e.exit_code}): `,
    e.message,
    policy === null ? null : h('div', { class: 'policy' }, 'policy: ', h('code', {}, policy)),
    e.next_actions.length === 0
      ? null
      : h(
          'div',
          {},
          'Next actions:',
          h(
            'ul',
            {},
            e.next_actions.map((n) => h('li', {}, h('code', {}, n))),
          ),
        ),
  )
}

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
    flags: Record<string, unknown> = {},
    done = '',
  ): Promise<boolean> {
    const out = await act<{ outcome?: string }>(path, args, flags as Record<string, string>)
    if (!out.ok) {
      fill(result, refusal(out.error))
      await update()
      return false
    }
    const outcome = out.doc.outcome
    fill(
      result,
      h(
        'div',
        { class: 'result ok', role: 'status' },
        outcome === 'proposed'
          ? `${done}: recorded as a proposal for the owner (a read-only identity proposes)`
          : `${done}${outcome === 'unchanged' ? ' (unchanged)' : ''}`,
      ),
    )
    await update()
    return true
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
    h('a', { class: 'back', href: `#/board/${encodeURIComponent(ref.split('/')[0] ?? '')}` }, '← board'),
    result,
    body,
    section('Notes about it', notesList, ro ? null : noteForm),
  )

  async function update(): Promise<void> {
    const [t, notes] = await Promise.all([
      get<Task>('task/show', { ref }),
      get<NoteList>('note/list', { about: ref }).catch(() => null),
    ])
    task = t
    root.setAttribute('data-ref', t.ref)
    const buttons = ro
      ? h('p', { class: 'muted small' }, 'read-only board: no actions')
      : h(
          'div',
          { class: 'actions' },
          t.status !== 'done' && t.status !== 'active'
            ? h(
                'button',
                { onclick: () => void run('task/claim', { ref: t.ref }, {}, `claimed ${short(t.ref)}`) },
                'Claim',
              )
            : null,
          t.status === 'active'
            ? h(
                'button',
                { onclick: () => void run('task/release', { ref: t.ref }, {}, `released ${short(t.ref)}`) },
                'Release',
              )
            : null,
          t.status !== 'done'
            ? h(
                'button',
                {
                  class: 'primary',
                  onclick: () => void run('task/done', { ref: t.ref }, {}, `closed ${short(t.ref)}`),
                },
                'Done',
              )
            : null,
        )
    const blockEntry = [...t.log].reverse().find((l) => l.verb === 'blocked')
    const why = blockEntry?.details.replace(/^by [^:\s]+(: )?/, '') ?? ''
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
            h(
              'p',
              {},
              'by ',
              t.blocked_by === null
                ? '—'
                : h('a', { href: taskHref(t.blocked_by.ref ?? t.blocked_by.id) }, t.blocked_by.ref ?? t.blocked_by.id),
            ),
            h('p', {}, 'why: ', why === '' ? h('span', { class: 'muted' }, 'no reason given') : why),
          )
        : null,
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
