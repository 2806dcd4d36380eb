// Wire shapes of the lint slice.

import { z } from 'zod'

export const LintDoc = z.strictObject({
  schema: z.literal('lint/v1'),
  findings: z.array(
    z.strictObject({
      code: z.string(),
      severity: z.enum(['error', 'warning', 'info']),
      subject: z.string(),
      message: z.string(),
    }),
  ),
})

export const documents = { 'lint/v1': LintDoc }

export type LintDocT = z.infer<typeof LintDoc>
