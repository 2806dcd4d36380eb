import { UsageError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { bool, oneOf, str } from '../../clikit/flags.js'
import { editNote, type NoteChanges, type NoteSection } from '../../domain/notes/edit.js'
import { SEVERITIES } from '../../domain/notes/notes.js'
import { checkTitle } from '../../format/ids.js'
import { checkSectionText } from '../../format/markdown.js'
import { noteBody, renderNote } from './docs.js'
import type { NoteDocT } from './json.js'

const SECTION_FLAGS: readonly NoteSection[] = ['chose', 'rejected', 'because', 'goal', 'question', 'metric']

export const edit = defineCommand({
  path: 'note edit',
  summary: 'Change a note’s title, text, sections, severity or task',
  description:
    'Rewrites the note file in place with the same lossless rules as a task (unknown keys, comments and untouched text keep their bytes); the file name, and so the slug, never changes. --chose, --rejected and --because apply to decisions, --goal, --question and --metric to metrics, --severity to findings (exit 2 otherwise); a decision keeps a rejected alternative and a metric its goal and question (exit 3). Nothing to change is exit 2; the same values again change nothing (outcome unchanged).',
  args: [arg('id', 'the note: n-<ULID>, <project>/<slug> or a slug')],
  flags: {
    title: str('a new title'),
    body: str('replace the free text under the title'),
    chose: str('decision: what was chosen'),
    rejected: str('decision: what was rejected'),
    because: str('decision: why'),
    goal: str('metric: its goal'),
    question: str('metric: its question'),
    metric: str('metric: what is measured'),
    severity: oneOf(SEVERITIES, 'finding: how much'),
    about: str('the task it is about', { valueName: 'REF' }),
    'clear-about': bool('it is about no task'),
  },
  json: 'note/v1',
  mutates: true,
  idempotent: true,
  examples: ['dacli note edit ledger/use-a-write-shim --because "one seam, reversible, measured in ledger/4"'],
  async run(ctx, input) {
    const f = input.flags
    if (f.about !== undefined && f['clear-about'] === true)
      throw new UsageError('--about and --clear-about contradict each other: give one')
    const sections: Partial<Record<NoteSection, string>> = {}
    for (const k of SECTION_FLAGS) {
      const v = f[k]
      if (v !== undefined) sections[k] = checkSectionText(v, `--${k}`)
    }
    const p: NoteChanges = {
      ...(f.title === undefined ? {} : { title: checkTitle(f.title) }),
      ...(f.body === undefined ? {} : { body: checkSectionText(f.body, '--body') }),
      ...(Object.keys(sections).length === 0 ? {} : { sections }),
      ...(f.severity === undefined ? {} : { severity: f.severity }),
    }
    const store = await ctx.store()
    if (f.about !== undefined) p.about = (await store.readTask(f.about)).id
    if (f['clear-about'] === true) p.about = null
    if (Object.keys(p).length === 0) {
      throw new UsageError(
        'nothing to edit: give --title, --body, --chose, --rejected, --because, --goal, --question, --metric, --severity, --about or --clear-about',
      )
    }
    const who = await ctx.identity()
    const { note, fields } = await editNote(store, input.args.id, who.id, p)
    const body = await noteBody(store, note)
    const data: NoteDocT = {
      schema: 'note/v1',
      ...body,
      outcome: fields.length === 0 ? 'unchanged' : 'edited',
      event_id: null,
    }
    return {
      data,
      human(out) {
        out.line(
          fields.length === 0
            ? `${body.project}/${body.slug} unchanged`
            : `edited ${out.style('bold', `${body.project}/${body.slug}`)}: ${fields.join(', ')}`,
        )
        renderNote(out, body)
      },
    }
  },
})
