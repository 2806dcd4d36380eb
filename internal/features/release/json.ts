// Wire shapes of the release slice. Additive only within a version.

import { z } from 'zod'

const Branch = z.strictObject({ name: z.string(), sha: z.string() })
const PrRef = z.strictObject({
  number: z.number().int(),
  url: z.string(),
  state: z.enum(['open', 'closed']),
  merged: z.boolean(),
})

export const ReleaseTrainDoc = z.strictObject({
  schema: z.literal('release-train-plan/v1'),
  version: z.literal(1),
  project: z.string(),
  repository: z.string(),
  dry_run: z.boolean(),
  source: Branch,
  target: Branch,
  tasks: z
    .array(
      z.strictObject({
        id: z.string(),
        ref: z.string(),
        title: z.string(),
        landed: z.string().describe('the commit its close logged as landed: on source, not on target'),
        pr: PrRef.nullable(),
      }),
    )
    .describe("the project's tasks landed on source and not on target (by commit reachability)"),
  required_checks: z.array(
    z.strictObject({ name: z.string(), state: z.enum(['passed', 'pending', 'failed', 'missing']) }),
  ),
  reviews: z.strictObject({ required: z.number().int(), approved: z.number().int() }),
  blockers: z.array(z.string()).describe('what stands between this train and its merge (empty: it may merge)'),
  promotion: z
    .strictObject({
      action: z.enum(['planned', 'existing', 'opened', 'reused', 'updated']),
      pr: PrRef.nullable(),
    })
    .describe(
      'the promotion pull request source → target: planned (dry run, none yet), existing (dry run), opened, reused, or updated (reused, its body rewritten to list the tasks of this train)',
    ),
  merged: z.string().nullable().describe('the merge commit when --merge merged it, else null'),
  released: z
    .array(z.strictObject({ id: z.string(), ref: z.string(), commit: z.string() }))
    .describe(
      'tasks this apply recorded released (their log gained `promoted <target> <commit>`): merged to the target now, or found there already; empty for a dry run',
    ),
})

export const documents = { 'release-train-plan/v1': ReleaseTrainDoc }
export type ReleaseTrainDocT = z.infer<typeof ReleaseTrainDoc>
