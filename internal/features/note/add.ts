import { RefusedError, UsageError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import { oneOf, str } from '../../clikit/flags.js'
import { signerOf } from '../../domain/identity/identity.js'
import { checkKindFlags } from '../../domain/notes/edit.js'
import { addNote, checkNotePolicy, NOTE_KINDS, SEVERITIES } from '../../domain/notes/notes.js'
import { checkTitle, safeSegment } from '../../format/ids.js'
import { checkSectionText } from '../../format/markdown.js'
import { qualifiedRef } from '../../format/refs.js'
import { createEvent } from '../../store/events.js'
import { noteBody, renderNote } from './docs.js'
import type { NoteDocT } from './json.js'

export const add = defineCommand({
  path: 'note add',
  summary: 'Record a decision, finding, metric or reference the moment you learn it',
  description:
    'A decision must say what was rejected (--rejected; refused with exit 3 otherwise) — later briefs show it so nobody re-proposes a rejected option. A metric needs --goal and --question (exit 3 otherwise). A finding is shown to sibling tasks’ briefs, most severe and newest first. A read-only identity’s finding is recorded as a finding event for an owner to apply (outcome proposed); its other kinds are refused. A title that exists gets a numeric suffix: a note is never overwritten.',
  usage:
    '<decision|finding|metric|ref> <title>… --project P [--about REF] [--body T] [--chose T] [--rejected T] [--because T] [--severity S] [--goal T] [--question T] [--metric T]',
  args: [
    { name: 'kind', description: 'decision, finding, metric or ref', required: true },
    { name: 'title', description: 'the note title', required: true, rest: true },
  ],
  flags: {
    project: str('its project', { required: true, valueName: 'SLUG' }),
    about: str('its task', { valueName: 'REF' }),
    body: str('free text'),
    chose: str('decision: what was chosen'),
    rejected: str('decision: what was rejected (required)'),
    because: str('decision: why'),
    severity: oneOf(SEVERITIES, 'finding: how much'),
    goal: str('metric: its goal'),
    question: str('metric: its question'),
    metric: str('metric: what is measured'),
  },
  json: 'note/v1',
  mutates: true,
  proposes: true,
  common: true,
  examples: [
    'dacli note add decision "Use a write shim" --project ledger --rejected "rewrite every caller" --because "one seam, reversible"',
    'dacli note add finding "Batch writes bypass the ORM" --project ledger --about ledger/2 --severity major',
  ],
  async run(ctx, input) {
    const kind = NOTE_KINDS.find((k) => k === input.args.kind)
    if (kind === undefined) {
      throw new UsageError(`unknown note kind "${input.args.kind}": use one of ${NOTE_KINDS.join(', ')}`, {
        details: { allowed: [...NOTE_KINDS] },
      })
    }
    const title = checkTitle(input.args.title)
    const project = safeSegment(input.flags.project, 'project slug')
    const text: Record<string, string> = {}
    for (const f of ['body', 'chose', 'rejected', 'because', 'goal', 'question', 'metric'] as const) {
      const v = input.flags[f]
      if (v !== undefined) text[f] = checkSectionText(v, `--${f}`)
    }
    const severity = input.flags.severity
    checkKindFlags(
      kind,
      Object.keys(text).filter((k) => k !== 'body'),
      severity !== undefined,
      'the note',
    )
    checkNotePolicy({ kind, ...text })
    const store = await ctx.store()
    store.requireProject(project)
    const who = await ctx.identity()
    const aboutRef = input.flags.about
    const aboutTask = aboutRef === undefined ? null : await store.readTask(aboutRef, { prefer: project })
    if (who.grant !== 'rw') {
      if (kind !== 'finding') {
        throw new RefusedError(
          'grant',
          `${who.id} has a read-only grant: only findings can be proposed, not a ${kind}`,
          {
            next: ['record it as a finding, or ask a read-write identity'],
          },
        )
      }
      const e = await createEvent(store, {
        sign: (await signerOf(store)).sign,
        kind: 'finding',
        by: who.id,
        about: aboutTask?.id ?? null,
        ...(aboutTask === null ? {} : { subject: { ref: qualifiedRef(aboutTask), project: aboutTask.project } }),
        data: { project, title, ...(severity ? { severity } : {}), ...(text.body ? { body: text.body } : {}) },
        body: text.body ?? title,
      })
      const data: NoteDocT = {
        schema: 'note/v1',
        id: null,
        project,
        kind: 'finding',
        slug: null,
        title,
        about: aboutTask === null ? null : { id: aboutTask.id, ref: null },
        severity: severity ?? null,
        body: text.body ?? null,
        sections: { chose: null, rejected: null, because: null, goal: null, question: null, metric: null },
        source_event: e.id,
        answers: null,
        created: e.created,
        created_by: who.id,
        path: e.path,
        outcome: 'proposed',
        event_id: e.id,
      }
      return {
        data,
        human: (out) => out.line(`proposed: finding recorded as event ${e.id}; an owner applies it with dacli sync`),
      }
    }
    const n = await addNote(store, {
      project,
      kind,
      title,
      by: who.id,
      about: aboutTask?.id ?? null,
      ...text,
      ...(severity === undefined ? {} : { severity }),
    })
    const body = await noteBody(store, n)
    const data: NoteDocT = { schema: 'note/v1', ...body, outcome: 'created', event_id: null }
    return {
      data,
      human(out) {
        out.line(`recorded ${kind} ${out.style('bold', `${body.project}/${body.slug}`)}`)
        renderNote(out, body)
      },
    }
  },
})
