// Wire shapes of the events slice.

import { z } from 'zod'
import { PageFields } from '../../clikit/page.schema.js'
import { Skipped, SkippedTotal } from '../../clikit/skipped.schema.js'
import { ARCHIVABLE, JOURNAL_CLASSES } from '../../domain/delivery/kinds.js'

const Settled = z.strictObject({ by: z.string(), at: z.string(), reason: z.string().nullable() })

export const EventListDoc = z.strictObject({
  schema: z.literal('event-list/v1'),
  events: z.array(
    z.strictObject({
      id: z.string().describe('a ULID; a question: q-<ULID>'),
      kind: z
        .enum(['claim', 'release', 'finding', 'propose-status', 'comment', 'block', 'dependency', 'question'])
        .describe('an open vocabulary: readers must tolerate kinds added later'),
      created: z.string(),
      created_by: z.string(),
      about: z.strictObject({ id: z.string(), ref: z.string().nullable() }).nullable(),
      applied: z.boolean().describe('true once applied (a question: once answered)'),
      state: z.enum(['pending', 'applied', 'dismissed']),
      dismissed: Settled.nullable().describe('who dismissed it, when and why (events dismiss)'),
      data: z.record(z.string(), z.unknown()),
      body: z.string(),
      path: z.string(),
    }),
  ),
  ...PageFields,
  skipped: Skipped.describe('event files that could not be read, failed their checksum or are forged (never applied)'),
  ...SkippedTotal,
})

export const SyncResultDoc = z.strictObject({
  schema: z.literal('sync-result/v1'),
  applied: z.array(z.string()).describe('event ids applied by this call, oldest first'),
  pending: z
    .array(
      z.strictObject({
        event_id: z.string(),
        reason: z.string(),
        never_applies: z
          .boolean()
          .describe('nothing will ever make it apply (its task is gone or done, or someone else holds it): dismiss it'),
        next: z.array(z.string()).describe('what to do about it (for one that never applies: the dismiss command)'),
      }),
    )
    .describe('events left pending, and why'),
  lost: z
    .array(
      z.strictObject({
        event_id: z.string(),
        task: z.string().describe('the task id the claim was proposed on'),
        by: z.string().describe('who proposed the claim'),
        remote: z.string().describe('the git remote that arbitrates claims (claims.remote)'),
        reason: z.string().describe('who holds the task there'),
      }),
    )
    .describe(
      'proposed claims refused because another clone holds the task on the remote arbitrating claims: each event is settled as dismissed and the task logs claim-lost',
    ),
  skipped: Skipped.describe('event files that could not be read or failed their checksum'),
  open_questions: z
    .number()
    .int()
    .describe('questions waiting for an answer (dacli threads --open); sync never applies them'),
})

export const EventDismissDoc = z.strictObject({
  schema: z.literal('event-dismiss/v1'),
  event_id: z.string(),
  kind: z.string(),
  outcome: z.enum(['dismissed', 'unchanged']).describe('unchanged: it was already dismissed'),
  dismissed: Settled,
  about: z.strictObject({ id: z.string(), ref: z.string().nullable() }).nullable(),
  task: z
    .strictObject({ ref: z.string(), status: z.string(), unblocked: z.boolean() })
    .nullable()
    .describe('for a question that blocked its task: the task after the dismissal'),
})

export const EventJournalDoc = z.strictObject({
  schema: z.literal('event-journal-reconciliation/v1'),
  version: z.literal(1),
  dry_run: z.boolean(),
  plan_id: z.string().describe('a digest of the classification and the chosen classes: pass it to --apply-safe'),
  project: z.string().nullable().describe('the project the plan is limited to (--project), or null for all'),
  archive_classes: z.array(z.enum(ARCHIVABLE)).describe('the classes this plan archives'),
  counts: z.strictObject(
    Object.fromEntries(JOURNAL_CLASSES.map((c) => [c, z.number().int()])) as Record<
      (typeof JOURNAL_CLASSES)[number],
      z.ZodNumber
    >,
  ),
  events: z.array(
    z.strictObject({
      id: z.string(),
      kind: z.string(),
      created: z.string(),
      created_by: z.string(),
      about: z.string().nullable(),
      project: z.string().nullable().describe('its task’s project, or the one it names; null when unknown'),
      path: z.string(),
      class: z.enum(JOURNAL_CLASSES).describe('live: none of the others; it may still apply, never archived'),
      reason: z.string(),
    }),
  ),
  archived: z
    .array(z.strictObject({ id: z.string(), class: z.enum(JOURNAL_CLASSES), to: z.string() }))
    .nullable()
    .describe('where each archived event was moved (never deleted); null for the preview'),
  failed: z
    .array(z.strictObject({ id: z.string(), class: z.enum(JOURNAL_CLASSES), error: z.string() }))
    .nullable()
    .describe('events --apply-safe could not move (left where they were; exit 1); null for the preview'),
})

export const documents = {
  'event-journal-reconciliation/v1': EventJournalDoc,
  'event-list/v1': EventListDoc,
  'sync-result/v1': SyncResultDoc,
  'event-dismiss/v1': EventDismissDoc,
}
export type EventJournalDocT = z.infer<typeof EventJournalDoc>
export type EventListDocT = z.infer<typeof EventListDoc>
export type SyncResultDocT = z.infer<typeof SyncResultDoc>
export type EventDismissDocT = z.infer<typeof EventDismissDoc>
