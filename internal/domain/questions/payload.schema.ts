// The question payload — what a question event carries besides its text — defined once, as a zod schema: its
// type is the schema's, and the one reader (payload.ts) answers exactly what the schema would (a property test
// holds the two together; zod itself stays off the read path, FORMAT.md "Events").

import { z } from 'zod'

export const QuestionPayloadSchema = z.object({
  /** The project of the task the question is about (kept, so a question outlives its task's file). */
  project: z.string().nullable().catch(null),
  /** What the asker needs to go on (`ask --need`), or null. */
  need: z.string().nullable().catch(null),
  /** Whether the question holds its task up (the task is blocked by it). */
  blocks: z.boolean().catch(false),
  /** A merge conflict this question decides: the field both clones changed differently (FORMAT.md), or null. */
  conflict: z.string().nullable().catch(null),
  /** The merging clone's value of that field, as JSON (a conflict question only). */
  ours: z.string().nullable().catch(null),
  /** The other side's value (what the task kept), as JSON (a conflict question only). */
  theirs: z.string().nullable().catch(null),
})

export type QuestionPayload = z.infer<typeof QuestionPayloadSchema>
