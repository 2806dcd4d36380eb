import { defineCommand } from '../../clikit/command.js'
import { bool, str } from '../../clikit/flags.js'
import { nextPageCommand, pageFlags, pageOf, skippedOn } from '../../clikit/pageflags.js'
import { shortRef } from '../../clikit/text.js'
import { vouchedEvents } from '../../domain/identity/vouched.js'
import { qualifiedRef } from '../../format/refs.js'
import type { EventListDocT } from './json.js'

export const list = defineCommand({
  path: 'events list',
  summary: 'List events, newest first: proposals, findings, claims waiting for an owner',
  args: [],
  flags: {
    pending: bool('only events still waiting (not applied, dismissed or answered)'),
    about: str('only events about this task', { valueName: 'REF' }),
    ...pageFlags,
  },
  json: 'event-list/v1',
  mutates: false,
  // The Go dacli's `events tail` (newest first, --limit) is this command: scripts written for it keep working
  // until 0.2.0, with a warning (clikit/alias.ts).
  aliases: [{ old: 'events tail', until: '0.2.0', why: 'the Go dacli’s name for the newest-first event list' }],
  async run(ctx, input) {
    const store = await ctx.store()
    const aboutRef = input.flags.about
    const about = aboutRef === undefined ? null : await store.readTask(aboutRef)
    // Only events their authors provably wrote are listed (the forged ones are said, as skipped).
    const { events, broken } = await vouchedEvents(store, () => true)
    ctx.notes.skipped(broken)
    const pending = input.flags.pending === true
    const matches = events
      .filter((e) => (!pending || e.state === 'pending') && (about === null || e.about === about.id))
      .reverse()
    const { items: page, page: paging } = pageOf(matches, input.flags)
    const tasks = page.some((e) => e.about !== null) ? (await store.listTasks()).tasks : []
    const data: EventListDocT = {
      schema: 'event-list/v1',
      events: page.map((e) => {
        const t = e.about === null ? undefined : tasks.find((x) => x.id === e.about)
        return {
          id: e.id,
          kind: e.event_kind,
          created: e.created,
          created_by: e.created_by,
          about: e.about === null ? null : { id: e.about, ref: t ? qualifiedRef(t) : null },
          applied: e.applied,
          state: e.state,
          dismissed: e.dismissed,
          data: e.data,
          body: e.body,
          path: e.path,
        }
      }),
      ...paging,
      ...skippedOn(broken, paging.limit),
    }
    return {
      data,
      human(out) {
        if (data.events.length === 0) out.line(pending ? 'no pending events' : 'no events')
        out.table(
          ['CREATED', 'STATE', 'KIND', 'BY', 'ABOUT', 'SUMMARY'],
          data.events.map((e) => [
            out.style('dim', e.created.replace('T', ' ').slice(0, 16)),
            e.state === 'pending'
              ? out.style('yellow', 'pending')
              : e.kind === 'question' && e.applied
                ? 'answered'
                : e.state,
            e.kind,
            e.created_by,
            e.about?.ref ? shortRef(e.about.ref) : (e.about?.id ?? '-'),
            e.body.split('\n')[0] ?? '',
          ]),
          { shrink: [5, 3, 2] },
        )
        if (data.next_cursor !== null)
          out.line(
            out.style(
              'dim',
              `${data.total - Number(data.next_cursor)} more: ${nextPageCommand('events list', input.argv, data.next_cursor)}`,
            ),
          )
      },
    }
  },
})
