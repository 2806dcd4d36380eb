// The wire shape of a claim the remote arbitrating claims holds, as this clone last saw it, dated by that sighting
// (task/v1, progress-explain/v1's claim part, workspace-overview/v1, doctor/v1): a view of another machine is only
// as good as its age.

import { z } from 'zod'

export const ViewAge = {
  fetched_at: z.string().describe('when this was seen on the remote: a fetch, or this clone’s own take or look'),
  fetch_age_seconds: z.number().int().describe('seconds between that sighting and this answer'),
}

export const RemoteClaimView = z
  .strictObject({
    remote: z.string().describe('the git remote arbitrating claims (refs/dacli/claims/<task-id> there)'),
    by: z.string(),
    at: z.string(),
    expires: z.string().nullable(),
    expired: z.boolean(),
    lease_left_seconds: z.number().int().nullable().describe('negative once expired; null without a lease'),
    host: z.string().describe('the host of the clone that made it'),
    workspace: z.string().describe('the .dacli/ folder of the clone that made it'),
    this_clone: z.boolean().describe('made from this clone'),
    ...ViewAge,
  })
  .describe(
    'the claim the remote holds for the task, as last fetched (dacli claims list refreshes it); null: none seen',
  )

/** How old the view of the remote's claims is; null when none was ever fetched. */
export const ClaimViewAge = z
  .strictObject({
    remote: z.string(),
    fetched_at: z
      .string()
      .nullable()
      .describe('the last whole fetch of the remote’s claims; null: only single claims seen'),
    fetch_age_seconds: z.number().int().nullable(),
  })
  .nullable()
