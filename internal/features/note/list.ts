import { defineCommand } from '../../clikit/command.js'
import { oneOf, str } from '../../clikit/flags.js'
import { pageFlags, pageOf, skippedOn } from '../../clikit/pageflags.js'
import { shortRef } from '../../clikit/text.js'
import { listNotes, NOTE_KINDS } from '../../domain/notes/notes.js'
import { projectFilter } from '../../format/ids.js'
import { resolveAmong } from '../../format/refs.js'
import { noteBody } from './docs.js'
import type { NoteListDocT } from './json.js'

export const list = defineCommand({
  path: 'note list',
  summary: 'List notes, filtered by project, kind or the task they are about',
  args: [],
  flags: {
    project: str('only this project', { valueName: 'SLUG' }),
    kind: oneOf(NOTE_KINDS, 'only this kind'),
    about: str('only notes about this task', { valueName: 'REF' }),
    ...pageFlags,
  },
  json: 'note-list/v1',
  mutates: false,
  async run(ctx, input) {
    const project = projectFilter(input.flags.project)
    const store = await ctx.store()
    const aboutRef = input.flags.about
    const about =
      aboutRef === undefined ? null : await store.readTask(aboutRef, project === undefined ? {} : { prefer: project })
    const kind = input.flags.kind
    const { notes, broken } = await listNotes(store, project)
    ctx.notes.skipped(broken)
    // A note's `about` may be written by hand as any task reference (`ledger/1`): resolved as `note show` does.
    const tasks = about === null ? [] : (await store.listTasks()).tasks
    const aboutId = (n: { about: string | null; project: string }) =>
      n.about === null ? null : (resolveAmong(tasks, n.about, n.project)?.id ?? n.about)
    const picked = notes.filter(
      (n) => (kind === undefined || n.kind === kind) && (about === null || aboutId(n) === about.id),
    )
    const { items, page } = pageOf(picked, input.flags)
    const data: NoteListDocT = {
      schema: 'note-list/v1',
      notes: await Promise.all(items.map((n) => noteBody(store, n))),
      ...page,
      ...skippedOn(broken, page.limit),
    }
    return {
      data,
      human(out) {
        if (data.notes.length === 0) out.line('no notes match')
        out.table(
          ['NOTE', 'KIND', 'SEVERITY', 'ABOUT', 'TITLE'],
          data.notes.map((n) => [
            `${n.project}/${n.slug}`,
            n.kind,
            n.severity ?? '-',
            n.about?.ref ? shortRef(n.about.ref) : '-',
            n.title,
          ]),
          { shrink: 4 },
        )
      },
    }
  },
})
