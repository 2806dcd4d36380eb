// Wire shapes of the trust slice (the trust anchor: which root keys this clone believes).

import { z } from 'zod'

const Key = z.strictObject({
  file: z.string().describe('the published key file, .dacli/agents/a-root.keys/<short fingerprint>.pub'),
  fingerprint: z.string().nullable().describe('sha256:<64 hex> of the public key; null when the file holds no key'),
  trusted: z.boolean().describe('the anchor vouches for it: what it signs resolves and applies'),
  own: z.boolean().describe('the key of this clone (its private half is in the git directory)'),
  problem: z.string().nullable().describe('why the file is never used (not a key, misnamed, not a regular file)'),
})

export const TrustDoc = z.strictObject({
  schema: z.literal('trust/v1'),
  workspace: z.string().describe('the workspace id (config.yml)'),
  anchor: z
    .strictObject({
      clone: z.string().nullable().describe('the anchor file in the clone’s git directory (null outside git)'),
      user: z.string().nullable().describe('the anchor file in the user’s configuration directory'),
    })
    .describe('where the pinned fingerprints live; both are outside the work tree'),
  pinned: z
    .array(z.strictObject({ fingerprint: z.string(), where: z.enum(['clone', 'user', 'own-key']) }))
    .describe('the fingerprints the anchor vouches for, and where each is pinned'),
  keys: z.array(Key).describe('every file under .dacli/agents/a-root.keys/'),
  accepted: z.array(z.string()).describe('for `trust accept`: the fingerprints pinned by this call'),
  statement: z.string().nullable().describe('for `trust accept`: what was trusted and on what basis'),
})

export type TrustDocT = z.infer<typeof TrustDoc>

export const documents = { 'trust/v1': TrustDoc }
