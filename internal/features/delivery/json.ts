// Wire shapes of the delivery slice (reconcile, cleanup). Additive only within a version.

import { z } from 'zod'
import { CANDIDATE_KINDS, FINDING_CLASSES } from '../../domain/delivery/kinds.js'

/** Every kind with its count (all present). */
const countsOf = <const K extends readonly string[]>(kinds: K) =>
  z.strictObject(Object.fromEntries(kinds.map((k) => [k, z.number().int()])) as Record<K[number], z.ZodNumber>)

const Skipped = z
  .array(z.strictObject({ source: z.string(), reason: z.string() }))
  .describe('sources that could not be read (git, claims, github): their findings are missing, not absent')

export const DeliveryStateDoc = z.strictObject({
  schema: z.literal('delivery-state/v1'),
  version: z.literal(1),
  project: z.string().nullable(),
  dry_run: z.boolean().describe('true for the preview; false when --apply-safe applied the plan'),
  plan_id: z
    .string()
    .describe('a digest of the findings and of the state they were read from: pass it to --apply-safe'),
  trunk: z.strictObject({ name: z.string(), commit: z.string() }).nullable(),
  repository: z.string().nullable().describe('the GitHub repository read for pull requests, or null'),
  skipped: Skipped,
  counts: countsOf(FINDING_CLASSES).describe('findings per class (every class present)'),
  findings: z.array(
    z.strictObject({
      class: z.enum(FINDING_CLASSES),
      subject: z.string().describe('a task reference, a branch, a worktree path, a ref or a pull request'),
      evidence: z.string(),
      fix: z.string(),
      safe: z.boolean().describe('--apply-safe applies it'),
    }),
  ),
  applied: z
    .array(
      z.strictObject({
        class: z.enum(FINDING_CLASSES),
        subject: z.string(),
        outcome: z.enum(['applied', 'failed']),
        detail: z.string(),
      }),
    )
    .nullable()
    .describe('what --apply-safe did, finding by finding; null for the preview'),
})

const Candidate = z.strictObject({
  kind: z.enum(CANDIDATE_KINDS),
  subject: z.string().describe('the ref, or the path relative to the repository root'),
  sha: z.string().nullable(),
  remote: z.string().nullable(),
  branch: z.string().nullable(),
  reason: z.string(),
})

export const RepositoryCleanupDoc = z.strictObject({
  schema: z.literal('repository-cleanup/v1'),
  version: z.literal(1),
  mode: z.enum(['preview', 'apply', 'restore']),
  project: z.string().nullable(),
  plan_id: z.string().nullable().describe('pass it to --apply-safe (null for a restore)'),
  artifact: z.string().nullable().describe('the restore artifact written (apply) or read (restore)'),
  skipped: Skipped,
  counts: countsOf(CANDIDATE_KINDS),
  candidates: z.array(Candidate),
  outcomes: z
    .array(
      z.strictObject({
        kind: z.enum(CANDIDATE_KINDS),
        subject: z.string(),
        outcome: z.enum(['removed', 'restored', 'failed', 'skipped']),
        detail: z.string(),
      }),
    )
    .nullable()
    .describe('what applying or restoring did; null for the preview'),
})

export const documents = {
  'delivery-state/v1': DeliveryStateDoc,
  'repository-cleanup/v1': RepositoryCleanupDoc,
}

export type DeliveryStateDocT = z.infer<typeof DeliveryStateDoc>
export type RepositoryCleanupDocT = z.infer<typeof RepositoryCleanupDoc>
