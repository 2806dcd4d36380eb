// Wire shapes of the pr slice. Additive only within a version.

import { z } from 'zod'
import { CODES, EVIDENCE_KINDS } from '../../domain/delivery/kinds.js'

export const TaskBrief = z.strictObject({
  id: z.string(),
  ref: z.string().describe('project/seq'),
  title: z.string(),
  status: z.string(),
  branch: z.string().nullable().describe("the task's branch (its worktree's, else the one it kept: branch:), or null"),
})

export const PrBrief = z.strictObject({
  number: z.number().int(),
  url: z.string(),
  title: z.string(),
  state: z.enum(['open', 'closed']),
  draft: z.boolean(),
  merged: z.boolean(),
  head: z.string().describe('the head branch'),
  head_sha: z.string(),
  base: z.string().describe('the base branch'),
  mergeable: z.boolean().nullable().describe('null while GitHub is still computing it'),
  mergeable_state: z.string().nullable().describe("GitHub's summary (clean, dirty, behind, blocked, unstable, draft…)"),
  merge_commit_sha: z.string().nullable(),
})

const Names = z.array(z.string())

export const PrDiagnosisDoc = z.strictObject({
  schema: z.literal('pr-diagnosis/v1'),
  version: z.literal(1),
  task: TaskBrief,
  repository: z.string(),
  found_by: z
    .enum(['branch', 'link', 'marker'])
    .nullable()
    .describe("how the pull request was found: the task's branch, a URL in the task, the marker in its body"),
  pr: PrBrief.nullable(),
  code: z.enum(CODES).describe('the first that applies, in this order after merged/closed'),
  evidence: z.array(
    z.strictObject({
      kind: z.enum(EVIDENCE_KINDS),
      name: z.string().nullable().describe('the check, reviewer or commit it names'),
      detail: z.string(),
    }),
  ),
  next_actions: Names,
  checks: z.strictObject({ passed: Names, pending: Names, failed: Names }),
  reviews: z.strictObject({ approved: Names, changes_requested: Names, requested: Names }),
  observed_at: z.string().describe('RFC 3339 UTC'),
})

export const PrWaitDoc = z.strictObject({
  schema: z.literal('pr-wait/v1'),
  version: z.literal(1),
  task: TaskBrief,
  until: z.enum(['ready', 'merged']),
  outcome: z
    .enum(['reached', 'timeout', 'unreachable'])
    .describe('exit 0 reached, 1 timeout, 5 unreachable (closed, or a conflict)'),
  code: z.enum(CODES).describe('the last diagnosis code'),
  polls: z.number().int(),
  elapsed_ms: z.number().int(),
  changes: z.array(z.strictObject({ at: z.string(), code: z.enum(CODES) })).describe('each change of code, in order'),
  diagnosis: PrDiagnosisDoc,
})

export const PrChangeDoc = z.strictObject({
  schema: z.literal('pr-change/v1'),
  version: z.literal(1),
  task: TaskBrief,
  repository: z.string(),
  action: z.enum(['opened', 'reused', 'merged']),
  pushed: z
    .enum(['pushed', 'up-to-date'])
    .nullable()
    .describe('what pushing the branch did (pr open), or null when nothing was pushed'),
  pr: PrBrief,
  merge: z.strictObject({ method: z.enum(['merge', 'squash', 'rebase']), sha: z.string() }).nullable(),
  task_status: z.string().describe("the task's status afterwards"),
  landed: z.string().nullable().describe('the commit the close logged as landed (pr land), or null'),
})

export const PrChangePreviewDoc = z.strictObject({
  schema: z.literal('pr-change-preview/v1'),
  version: z.literal(1),
  dry_run: z.literal(true),
  task: TaskBrief,
  repository: z.string(),
  action: z
    .enum(['open', 'reuse', 'merge', 'close'])
    .describe(
      'what the same command without --dry-run would do: open a pull request, reuse the open one, merge it (then close the task), or only close the task (merged already)',
    ),
  push: z
    .enum(['pushed', 'up-to-date'])
    .nullable()
    .describe(
      "what pushing the task's branch would do (git push --dry-run asked the remote), or null when nothing would be pushed",
    ),
  pr: PrBrief.nullable().describe('the pull request reused, merged or closed for; null when one would be opened'),
  open: z
    .strictObject({
      title: z.string(),
      body: z.string(),
      head: z.string(),
      base: z.string(),
      draft: z.boolean(),
    })
    .nullable()
    .describe('the pull request that would be opened, as it would be sent; null otherwise'),
  merge: z
    .strictObject({
      method: z.enum(['merge', 'squash', 'rebase']),
      head_sha: z.string().describe('merged only on condition that the head is still this commit'),
    })
    .nullable(),
  logs_pr_opened: z.boolean().describe("pr open: the task's log would gain `pr-opened`"),
  task_status: z
    .string()
    .describe(
      "the task's status afterwards: done once landed, unless the close would be a proposal (not the caller's task)",
    ),
})

export const documents = {
  'pr-diagnosis/v1': PrDiagnosisDoc,
  'pr-wait/v1': PrWaitDoc,
  'pr-change/v1': PrChangeDoc,
  'pr-change-preview/v1': PrChangePreviewDoc,
}

export type PrDiagnosisDocT = z.infer<typeof PrDiagnosisDoc>
export type PrWaitDocT = z.infer<typeof PrWaitDoc>
export type PrChangeDocT = z.infer<typeof PrChangeDoc>
export type PrChangePreviewDocT = z.infer<typeof PrChangePreviewDoc>
export type PrBriefT = z.infer<typeof PrBrief>
export type TaskBriefT = z.infer<typeof TaskBrief>
