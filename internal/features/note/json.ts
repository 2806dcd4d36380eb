// Wire shapes of the note slice (notes, glossary).

import { z } from 'zod'
import { PageFields } from '../../clikit/page.schema.js'
import { Skipped, SkippedTotal } from '../../clikit/skipped.schema.js'

const Ref = z.strictObject({ id: z.string(), ref: z.string().nullable() }).nullable()

const NoteBody = {
  id: z.string(),
  project: z.string(),
  kind: z.enum(['decision', 'finding', 'metric', 'ref']),
  slug: z.string(),
  title: z.string(),
  about: Ref.describe('the task it is about'),
  severity: z.enum(['major', 'moderate', 'minor']).nullable(),
  body: z.string().nullable(),
  sections: z.strictObject({
    chose: z.string().nullable(),
    rejected: z.string().nullable(),
    because: z.string().nullable(),
    goal: z.string().nullable(),
    question: z.string().nullable(),
    metric: z.string().nullable(),
  }),
  source_event: z.string().nullable().describe('the finding event it was created from'),
  answers: z.string().nullable().describe('the question (q-<ULID>) it answers (dacli answer)'),
  created: z.string().nullable(),
  created_by: z.string().nullable(),
  path: z.string(),
}

export const NoteDoc = z.strictObject({
  schema: z.literal('note/v1'),
  ...NoteBody,
  id: z.string().nullable().describe('null while it is only a proposal (outcome proposed)'),
  slug: z.string().nullable().describe('null while it is only a proposal'),
  outcome: z
    .enum(['created', 'proposed', 'existing', 'edited', 'unchanged', 'removed'])
    .describe(
      'created, or proposed (a read-only identity’s finding became an event); existing (note show); edited, unchanged or removed (note edit, note rm)',
    ),
  event_id: z.string().nullable(),
})

export const NoteListDoc = z.strictObject({
  schema: z.literal('note-list/v1'),
  notes: z.array(z.strictObject(NoteBody)),
  ...PageFields,
  skipped: Skipped,
  ...SkippedTotal,
})

export const GlossaryDoc = z.strictObject({
  schema: z.literal('glossary/v1'),
  project: z.string(),
  terms: z.array(z.strictObject({ term: z.string(), definition: z.string() })),
  changed: z.boolean().describe('a --term call changed the glossary'),
})

export const documents = {
  'note/v1': NoteDoc,
  'note-list/v1': NoteListDoc,
  'glossary/v1': GlossaryDoc,
}

export type NoteDocT = z.infer<typeof NoteDoc>
export type NoteBodyT = Omit<NoteDocT, 'schema' | 'outcome' | 'event_id' | 'id' | 'slug'> & { id: string; slug: string }
export type NoteListDocT = z.infer<typeof NoteListDoc>
export type GlossaryDocT = z.infer<typeof GlossaryDoc>
