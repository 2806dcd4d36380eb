// Reading and writing the question payload (its schema: payload.schema.ts). A hand-written reader, because zod
// is kept off the read path; payload.test.ts proves it answers exactly what the schema does for any value, so
// a field added to the schema fails that test until the reader knows it too.

import type { QuestionPayload } from './payload.schema.js'

export type { QuestionPayload }

/** The payload of a question event's `data`, as the schema reads it: a value of the wrong type reads as absent. */
export function questionPayload(data: Readonly<Record<string, unknown>>): QuestionPayload {
  return {
    project: typeof data.project === 'string' ? data.project : null,
    need: typeof data.need === 'string' ? data.need : null,
    blocks: typeof data.blocks === 'boolean' ? data.blocks : false,
    conflict: typeof data.conflict === 'string' ? data.conflict : null,
    ours: typeof data.ours === 'string' ? data.ours : null,
    theirs: typeof data.theirs === 'string' ? data.theirs : null,
  }
}
