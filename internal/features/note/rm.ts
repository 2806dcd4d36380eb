import { arg, defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { removeNote } from '../../domain/notes/edit.js'
import { noteBody } from './docs.js'
import type { NoteDocT } from './json.js'

export const rm = defineCommand({
  path: 'note rm',
  summary: 'Remove a note (a decision, or a note that answers a question, needs --force)',
  description:
    'Deletes the note file; git history and the record branch keep it. A decision (briefs show it so a rejected option is not proposed again) or a note that answers a question is refused without --force (exit 3, naming why). The document describes the note as it was.',
  args: [arg('id', 'the note: n-<ULID>, <project>/<slug> or a slug')],
  flags: { force: bool('remove a decision or an answer too') },
  json: 'note/v1',
  mutates: true,
  destructive: true,
  async run(ctx, input) {
    const store = await ctx.store()
    const n = await removeNote(store, input.args.id, (await ctx.identity()).id, input.flags.force === true)
    const body = await noteBody(store, n)
    const data: NoteDocT = { schema: 'note/v1', ...body, outcome: 'removed', event_id: null }
    return { data, human: (out) => out.line(`removed ${n.kind} ${body.project}/${body.slug} (${n.path})`) }
  },
})
