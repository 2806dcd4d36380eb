// Wire shapes of the events slice.

import { z } from 'zod'
import { Skipped } from '../../clikit/skipped.schema.js'

export const EventListDoc = z.strictObject({
  schema: z.literal('event-list/v1'),
  events: z.array(
    z.strictObject({
      id: z.string().describe('a ULID'),
      kind: z.enum(['claim', 'release', 'finding', 'propose-status', 'comment', 'block', 'dependency']),
      created: z.string(),
      created_by: z.string(),
      about: z.strictObject({ id: z.string(), ref: z.string().nullable() }).nullable(),
      applied: z.boolean(),
      data: z.record(z.string(), z.unknown()),
      body: z.string(),
      path: z.string(),
    }),
  ),
  total: z.number().int().describe('events matching the filters, before --limit'),
  truncated: z.boolean(),
  skipped: Skipped.describe('event files that could not be read or failed their checksum (never applied)'),
})

export const SyncResultDoc = z.strictObject({
  schema: z.literal('sync-result/v1'),
  applied: z.array(z.string()).describe('event ids applied by this call, oldest first'),
  pending: z
    .array(z.strictObject({ event_id: z.string(), reason: z.string() }))
    .describe('events left pending, and why'),
  skipped: Skipped.describe('event files that could not be read or failed their checksum'),
})

export const documents = { 'event-list/v1': EventListDoc, 'sync-result/v1': SyncResultDoc }
export type EventListDocT = z.infer<typeof EventListDoc>
export type SyncResultDocT = z.infer<typeof SyncResultDoc>
