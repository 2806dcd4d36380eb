// Who is working: live claims with their holder and lease, the identities, what
// waits for an owner (pending events: proposals and findings of read-only
// agents) and for a person (open questions asked with `dacli ask`).

import { get } from './api.js'
import { claimExpired } from './board.js'
import { fill, h, lease, table, taskHref, taskLink } from './dom.js'
import type { Shell, View } from './main.js'
import type { AgentList, EventList, TaskList, ThreadList } from './types.js'

export function agentsView(root: HTMLElement, _shell: Shell): View {
  const claims = h('section', { class: 'block', id: 'claims' })
  const agents = h('section', { class: 'block', id: 'agents' })
  const pending = h('section', { class: 'block', id: 'pending' })
  const questions = h('section', { class: 'block', id: 'questions' })
  fill(root, claims, questions, pending, agents)
  return {
    async update() {
      const [active, list, events, threads] = await Promise.all([
        get<TaskList>('task/list', { status: 'active' }),
        get<AgentList>('agent/list'),
        get<EventList>('events/list', { pending: true }),
        get<ThreadList>('threads', { open: true }),
      ])
      fill(
        questions,
        h('h3', {}, `Open questions (${threads.open})`),
        threads.threads.length === 0
          ? h('p', { class: 'muted' }, 'nobody is waiting for an answer (dacli ask)')
          : table(
              ['Asked', 'By', 'About', 'Question'],
              threads.threads.map((q) => [
                h('td', { class: 'muted' }, q.asked_at),
                h('td', {}, q.asked_by),
                h('td', {}, q.about?.ref ? taskLink(q.about.ref) : '—'),
                h(
                  'td',
                  {},
                  q.question,
                  q.blocks ? h('span', { class: 'chip st-blocked' }, 'blocks its task') : null,
                  q.need ? h('div', { class: 'muted small' }, `needs: ${q.need}`) : null,
                  q.about?.ref
                    ? h(
                        'div',
                        { class: 'small' },
                        h('a', { href: taskHref(q.about.ref), class: 'answer-link' }, 'answer it on its task →'),
                      )
                    : null,
                ),
              ]),
            ),
      )
      // A claim whose lease has run out is not live: anyone may take the task over. Listed apart, and said in words.
      const now = Date.now()
      const live = active.tasks.filter((t) => !claimExpired(t, now))
      const expired = active.tasks.filter((t) => claimExpired(t, now))
      const rows = (list: typeof active.tasks) =>
        table(
          ['Task', 'Holder', 'Lease', 'Title'],
          list.map((t) => [
            h('td', {}, taskLink(t.ref)),
            h('td', {}, t.owner ?? '—'),
            h(
              'td',
              {},
              t.claim_expires === null
                ? 'no expiry'
                : h(
                    'span',
                    { class: claimExpired(t, now) ? 'lease expired' : 'lease', 'data-expires': t.claim_expires },
                    lease(t.claim_expires),
                  ),
            ),
            h('td', {}, t.title),
          ]),
        )
      fill(
        claims,
        h('h3', {}, `Live claims (${live.length})`),
        live.length === 0 ? h('p', { class: 'muted' }, 'nobody holds a task') : rows(live),
        expired.length === 0
          ? null
          : [
              h('h3', { class: 'expired-head' }, `⚠ Expired claims (${expired.length})`),
              h(
                'p',
                { class: 'muted small' },
                'the lease ran out: the holder may renew it, anyone may take the task over',
              ),
              h('div', { id: 'expired-claims' }, rows(expired)),
            ],
      )
      fill(
        pending,
        h('h3', {}, `Pending events (${events.total})`),
        events.events.length === 0
          ? h('p', { class: 'muted' }, 'nothing waits for an owner (dacli sync applies proposals)')
          : table(
              ['Created', 'Kind', 'By', 'About', 'Summary'],
              events.events.map((e) => [
                h('td', { class: 'muted' }, e.created),
                h('td', {}, e.kind),
                h('td', {}, e.created_by),
                h('td', {}, e.about?.ref ? taskLink(e.about.ref) : (e.about?.id ?? '—')),
                h('td', {}, e.body.split('\n')[0] ?? ''),
              ]),
            ),
      )
      fill(
        agents,
        h('h3', {}, `Identities (${list.agents.length})`),
        table(
          ['Id', 'Grant', 'Role', 'Parent', 'State'],
          list.agents.map((a) => [
            h('td', {}, h('code', {}, a.id)),
            h('td', {}, a.grant),
            h('td', {}, a.role ?? '—'),
            h('td', {}, a.parent ?? '—'),
            h('td', {}, a.retired ? 'retired' : 'live'),
          ]),
        ),
      )
    },
  }
}
