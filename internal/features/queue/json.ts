// Wire shapes of the queue slice.

import { z } from 'zod'

const Turn = z.enum(['waiting', 'done', 'failed'])

const Item = z.strictObject({
  n: z.number().int().describe('position in the queue, from 1'),
  ref: z.string().describe('the task’s qualified reference; for a dangling item, the reference as written'),
  id: z.string().nullable().describe('null for a dangling item'),
  title: z.string().nullable().describe('null for a dangling item'),
  status: z.enum(['open', 'active', 'blocked', 'done']).nullable().describe('null for a dangling item'),
  dangling: z
    .string()
    .nullable()
    .describe('why the reference names no task (the task was removed, or never there); null when it names one'),
  turn: Turn.describe('waiting its turn, its turn done, or its turn failed'),
  reason: z.string().nullable().describe('why its turn failed'),
})

export const QueueDoc = z.strictObject({
  schema: z.literal('queue/v1'),
  action: z.enum(['show', 'add', 'advance', 'rm']),
  slug: z.string(),
  title: z.string(),
  path: z.string(),
  items: z.array(Item),
  head: z.string().nullable().describe('the first task waiting its turn (what advance closes), or null'),
  counts: z.strictObject({ waiting: z.number().int(), done: z.number().int(), failed: z.number().int() }),
  added: z.array(z.string()).describe('queue add: the references appended (a task already waiting is not added twice)'),
  advanced: z
    .strictObject({ ref: z.string(), turn: z.enum(['done', 'failed']), reason: z.string().nullable() })
    .nullable()
    .describe('queue advance: the turn it closed'),
  log: z.array(z.string()).describe('the ## Log lines'),
})

export const QueueListDoc = z.strictObject({
  schema: z.literal('queue-list/v1'),
  queues: z.array(
    z.strictObject({
      slug: z.string(),
      title: z.string(),
      total: z.number().int(),
      waiting: z.number().int(),
      done: z.number().int(),
      failed: z.number().int(),
      head: z.string().nullable(),
    }),
  ),
  skipped: z
    .array(z.strictObject({ slug: z.string(), path: z.string(), reason: z.string() }))
    .describe('queue files that could not be read (a bad line): fix them by hand'),
})

export const QueueNextDoc = z.strictObject({
  schema: z.literal('queue-next/v1'),
  queue: z.string(),
  task: z
    .strictObject({
      id: z.string(),
      ref: z.string(),
      title: z.string(),
      priority: z.enum(['must', 'should', 'could', 'wont']).nullable(),
      position: z.number().int(),
      command: z.string(),
    })
    .nullable()
    .describe('the first task waiting its turn that is ready and not held back; null when none is'),
  skipped: z
    .array(z.strictObject({ ref: z.string(), position: z.number().int(), why: z.string() }))
    .describe('tasks before it (or all, when none is ready) waiting their turn but not ready, with why'),
  explanation: z.string().nullable().describe('why no task is offered; null when one is'),
})

export const documents = { 'queue/v1': QueueDoc, 'queue-list/v1': QueueListDoc, 'queue-next/v1': QueueNextDoc }

export type QueueDocT = z.infer<typeof QueueDoc>
export type QueueListDocT = z.infer<typeof QueueListDoc>
export type QueueNextDocT = z.infer<typeof QueueNextDoc>
