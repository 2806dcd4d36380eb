// Wire shapes of the agent slice (identities).

import { z } from 'zod'

export const IdentityDoc = z.strictObject({
  schema: z.literal('identity/v1'),
  id: z.string().describe('a-root, or a spawned agent id'),
  grant: z.enum(['rw', 'ro']),
  role: z.string().nullable(),
  display_name: z.string().nullable().describe('for a-root, user.name from the git config; display only'),
  parent: z.string().nullable(),
})

export const documents = { 'identity/v1': IdentityDoc }

export type IdentityDocT = z.infer<typeof IdentityDoc>
