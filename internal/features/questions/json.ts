// Wire shapes of the questions slice: ask, answer, threads.

import { z } from 'zod'
import { Skipped } from '../../clikit/skipped.schema.js'

const TaskRef = z.strictObject({
  id: z.string(),
  ref: z.string().nullable().describe('null when the task is gone'),
  title: z.string().nullable(),
  status: z.string().nullable(),
})

const AnswerBody = z.strictObject({
  note: z
    .strictObject({
      id: z.string(),
      kind: z.enum(['decision', 'finding']).nullable(),
      title: z.string().nullable(),
      path: z.string().nullable(),
    })
    .describe('the note that answers it; kind, title and path are null when that note is gone (removed)'),
  text: z
    .string()
    .nullable()
    .describe('the answer: a finding’s text, or a decision’s Chose; null when the answer note is gone'),
  rejected: z.string().nullable().describe('a decision: what was rejected'),
  because: z.string().nullable(),
  by: z.string(),
  at: z.string(),
})

export const QuestionBody = {
  id: z.string().describe('q-<ULID>'),
  question: z.string(),
  need: z.string().nullable().describe('what the asker needs in order to go on (--need)'),
  asked_by: z.string(),
  asked_at: z.string(),
  project: z.string().nullable(),
  about: TaskRef.nullable(),
  state: z.enum(['open', 'answered', 'dismissed']),
  blocks: z.boolean().describe('it was asked as a blocker of its task (the task waits until it is settled)'),
  answer: AnswerBody.nullable(),
  dismissed: z.strictObject({ by: z.string(), at: z.string(), reason: z.string().nullable() }).nullable(),
  path: z.string(),
}

export const QuestionDoc = z.strictObject({
  schema: z.literal('question/v1'),
  ...QuestionBody,
  task: z.strictObject({
    ref: z.string(),
    status: z.string(),
    blocked_by: z.string().nullable(),
  }),
  not_blocking_reason: z
    .string()
    .nullable()
    .describe('why the question does not hold the task up (someone else holds it), or null'),
  next: z.array(z.string()).describe('how a person answers it'),
})

export const AnswerDoc = z.strictObject({
  schema: z.literal('answer/v1'),
  question: z.strictObject(QuestionBody),
  note: z.strictObject({ id: z.string(), kind: z.enum(['decision', 'finding']), title: z.string(), path: z.string() }),
  task: z
    .strictObject({
      ref: z.string(),
      status: z.string(),
      unblocked: z.boolean().describe('the answer released the task'),
      still_blocked_by: z.string().nullable().describe('what still blocks it (another question, a task), or null'),
    })
    .nullable()
    .describe('null when the task is gone'),
})

export const ThreadListDoc = z.strictObject({
  schema: z.literal('thread-list/v1'),
  threads: z.array(z.strictObject(QuestionBody)).describe('newest first'),
  total: z.number().int().describe('threads matching the filters, before --limit'),
  open: z.number().int().describe('open questions among them'),
  truncated: z.boolean(),
  skipped: Skipped,
})

export const documents = {
  'question/v1': QuestionDoc,
  'answer/v1': AnswerDoc,
  'thread-list/v1': ThreadListDoc,
}
export type QuestionBodyT = z.infer<z.ZodObject<typeof QuestionBody>>
export type QuestionDocT = z.infer<typeof QuestionDoc>
export type AnswerDocT = z.infer<typeof AnswerDoc>
export type ThreadListDocT = z.infer<typeof ThreadListDoc>
