// Wire shapes of the milestone slice.

import { z } from 'zod'
import { Skipped } from '../../clikit/skipped.schema.js'

const Counts = z.strictObject({
  open: z.number().int(),
  active: z.number().int(),
  blocked: z.number().int(),
  done: z.number().int(),
})

export const MilestoneListDoc = z.strictObject({
  schema: z.literal('milestone-list/v1'),
  project: z.string().nullable().describe('the --project filter, or null for every project'),
  milestones: z.array(
    z.strictObject({
      name: z.string(),
      total: z.number().int().describe('tasks in the milestone'),
      counts: Counts,
      progress: z.number().describe('done / total, from 0 to 1'),
      acceptance_done: z.number().int().describe('checked acceptance criteria over its tasks'),
      acceptance_total: z.number().int(),
      projects: z.array(z.string()).describe('the projects its tasks belong to'),
      command: z.string().describe('the command listing its tasks'),
    }),
  ),
  unassigned: z.number().int().describe('tasks in scope without a milestone'),
  skipped: Skipped,
})

export const documents = { 'milestone-list/v1': MilestoneListDoc }

export type MilestoneListDocT = z.infer<typeof MilestoneListDoc>
