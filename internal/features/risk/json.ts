// Wire shapes of the risk slice.

import { z } from 'zod'
import { Skipped } from '../../clikit/skipped.schema.js'

const RiskBody = {
  id: z.string(),
  project: z.string(),
  slug: z.string(),
  title: z.string(),
  impact: z.string(),
  likelihood: z.string(),
  rank: z.number().int().describe('computed: high+high = 1, high+medium = 2, any low = 3, otherwise 2'),
  indicators: z.array(z.string()),
  action: z.string().nullable(),
  managed: z.boolean().describe('has an action'),
  created: z.string().nullable(),
  created_by: z.string().nullable(),
  path: z.string(),
}

export const RiskDoc = z.strictObject({
  schema: z.literal('risk/v1'),
  ...RiskBody,
  outcome: z.enum(['created', 'edited', 'unchanged', 'removed']).describe('what the command did to the risk'),
})
export const RiskListDoc = z.strictObject({
  schema: z.literal('risk-list/v1'),
  risks: z.array(z.strictObject(RiskBody)),
  skipped: Skipped,
})

export const documents = {
  'risk/v1': RiskDoc,
  'risk-list/v1': RiskListDoc,
}

export type RiskDocT = z.infer<typeof RiskDoc>
export type RiskListDocT = z.infer<typeof RiskListDoc>
