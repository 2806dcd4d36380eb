// Wire shapes of the claims slice.

import { z } from 'zod'

export const ClaimListDoc = z.strictObject({
  schema: z.literal('claim-list/v1'),
  remote: z.string(),
  fetched_at: z.string().describe('when refs/dacli/claims/* were fetched (now)'),
  claims: z.array(
    z.strictObject({
      task: z.string().describe('the task id (t-<ULID>) the ref is named after'),
      ref: z.string().nullable().describe('its qualified reference in this clone; null when the task is not here'),
      status: z.enum(['open', 'active', 'blocked', 'done']).nullable().describe('its status in this clone'),
      by: z.string(),
      at: z.string(),
      expires: z.string().nullable(),
      expired: z.boolean().describe('the lease ran out: another clone may take it over'),
      workspace: z.string().describe('the .dacli/ folder of the clone that holds it'),
      host: z.string(),
      clone: z
        .string()
        .nullable()
        .describe(
          'the clone id of the clone that holds it (as `whoami --json` gives it there); null for a claim made before clone ids',
        ),
      mine: z.boolean().describe('held by the acting identity in this clone'),
      commit: z.string(),
    }),
  ),
  unreadable: z
    .array(z.strictObject({ task: z.string(), commit: z.string() }))
    .describe('claim refs whose commit is not a dacli claim (never taken over automatically)'),
})

export const documents = { 'claim-list/v1': ClaimListDoc }

export type ClaimListDocT = z.infer<typeof ClaimListDoc>
