// Wire shapes of the accept slice.

import { z } from 'zod'

const Verification = z
  .strictObject({
    command: z.string(),
    exit_code: z.number().int().nullable(),
    duration_ms: z.number(),
    output_digest: z.string(),
  })
  .nullable()

const Landing = z
  .strictObject({
    branch: z.string(),
    trunk: z.string(),
    head: z.string().nullable().describe('the branch’s tip (null: the branch is gone, merged as a named merge)'),
    landed: z.boolean(),
    overridden: z.boolean().describe('closed with --allow-unlanded while commits were missing'),
    missing: z.array(z.strictObject({ sha: z.string(), subject: z.string() })),
  })
  .nullable()

export const AcceptanceResultDoc = z.strictObject({
  schema: z.literal('acceptance-result/v1'),
  accepted: z.number().int().describe('tasks closed by this call'),
  newly_checked: z
    .number()
    .int()
    .describe('criteria this call ticked (0 with a non-zero total means "already satisfied")'),
  attested: z
    .number()
    .int()
    .describe('criteria this call ticked without --verify: attested on the caller’s word, not verified'),
  satisfied: z.number().int().describe('criteria checked after the call, over the tasks reported'),
  total: z.number().int().describe('criteria in total, over the tasks reported'),
  unverified_tasks: z.number().int().describe('tasks closed through the explicit no-criteria override'),
  tasks: z.array(
    z.strictObject({
      id: z.string(),
      ref: z.string(),
      outcome: z.enum(['accepted', 'unchanged', 'proposed', 'skipped']),
      newly_checked: z.number().int(),
      attested: z.number().int().describe('of newly_checked, how many without --verify (attested, not verified)'),
      satisfied: z.number().int(),
      total: z.number().int(),
      unverified: z.boolean(),
      verification: Verification,
      skipped_reason: z.string().nullable(),
      event_id: z.string().nullable().describe('the proposal event when outcome is proposed'),
      applied_proposals: z.array(z.string()).describe('close proposals this call applied'),
      landing: Landing.describe('a task with a branch: whether its commits are on trunk (null: no branch)'),
    }),
  ),
})

export const documents = { 'acceptance-result/v1': AcceptanceResultDoc }
export type AcceptanceResultDocT = z.infer<typeof AcceptanceResultDoc>
