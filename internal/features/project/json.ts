// Wire shapes of the project slice.

import { z } from 'zod'
import { PageFields } from '../../clikit/page.schema.js'
import { Skipped, SkippedTotal } from '../../clikit/skipped.schema.js'

export const Counts = z.strictObject({
  open: z.number().int(),
  active: z.number().int(),
  blocked: z.number().int(),
  done: z.number().int(),
})

const ProjectBody = {
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  status: z.string().describe('active | paused | done | abandoned'),
  stage: z.string().describe('definition | elicitation | approach | design'),
  counts: Counts,
  total: z.number().int(),
}

export const ProjectDoc = z.strictObject({
  schema: z.literal('project/v1'),
  ...ProjectBody,
  goal: z.string().nullable(),
  sections: z.strictObject({
    vision: z.string().nullable(),
    goal: z.string().nullable(),
    constraints: z.string().nullable(),
    out_of_scope: z.string().nullable(),
    success_criteria: z.string().nullable(),
  }),
  github: z.strictObject({ repo: z.string().nullable(), public_confirmed: z.string().nullable() }).nullable(),
  created: z.string().nullable(),
  created_by: z.string().nullable(),
  path: z.string(),
  removed: z.boolean().describe('true only in the answer of `project rm`'),
})

export const ProjectListDoc = z.strictObject({
  schema: z.literal('project-list/v1'),
  projects: z.array(z.strictObject(ProjectBody)),
  ...PageFields,
  skipped: Skipped.describe('object files that could not be read (see `dacli doctor`)'),
  ...SkippedTotal,
})

export const documents = { 'project/v1': ProjectDoc, 'project-list/v1': ProjectListDoc }

export type ProjectDocT = z.infer<typeof ProjectDoc>
export type ProjectListDocT = z.infer<typeof ProjectListDoc>
export type CountsT = z.infer<typeof Counts>
