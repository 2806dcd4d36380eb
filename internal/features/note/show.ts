import { arg, defineCommand } from '../../clikit/command.js'
import { readNote } from '../../domain/notes/notes.js'
import { noteBody, renderNote } from './docs.js'
import type { NoteDocT } from './json.js'

export const show = defineCommand({
  path: 'note show',
  summary: 'Show one note',
  args: [arg('id', 'the note: n-<ULID>, <project>/<slug> or a slug')],
  flags: {},
  json: 'note/v1',
  mutates: false,
  async run(ctx, input) {
    const store = await ctx.store()
    const n = await readNote(store, input.args.id)
    const body = await noteBody(store, n)
    const data: NoteDocT = { schema: 'note/v1', ...body, outcome: 'existing', event_id: null }
    return { data, human: (out) => renderNote(out, body) }
  },
})
