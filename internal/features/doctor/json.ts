// Wire shapes of the doctor slice (the codes are listed in FORMAT.md).

import { z } from 'zod'
import { ClaimViewAge } from '../shared/remoteclaim.schema.js'

export const DoctorDoc = z.strictObject({
  schema: z.literal('doctor/v1'),
  ok: z.boolean().describe('no error-severity finding'),
  findings: z.array(
    z.strictObject({
      code: z.string(),
      severity: z.enum(['error', 'warning', 'info']),
      subject: z.string().describe('a path or a reference'),
      message: z.string(),
      hint: z.string(),
    }),
  ),
  remote_claims: ClaimViewAge.describe(
    'how old the view of the remote’s claims is that stale-remote-claim and unpublished-claim were judged from (doctor --fetch refreshes it first); null: never fetched',
  ),
})

export const documents = { 'doctor/v1': DoctorDoc }

export type DoctorDocT = z.infer<typeof DoctorDoc>
