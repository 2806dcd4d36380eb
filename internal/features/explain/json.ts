// Wire shape of `explain`: why a task is where it is, every
// part carrying where it was read (`source`) and when (`observed_at`).

import { z } from 'zod'
import { RemoteClaimView } from '../shared/remoteclaim.schema.js'

const Sourced = {
  source: z
    .string()
    .describe('where this part was read: a file under .dacli/, a git command, a cache, or the command it reproduces'),
  observed_at: z
    .string()
    .describe('when it was read (RFC 3339 UTC); for remote claims, when the remote was last fetched'),
}

const Unmet = z.strictObject({
  id: z.string().nullable().describe('the predecessor’s id, or null when the reference does not resolve'),
  ref: z.string().describe('the predecessor as people write it (as written, when it does not resolve)'),
  title: z.string().nullable(),
  type: z.enum(['FS', 'SS']).describe('the link type (FF and SF never hold a start)'),
  status: z
    .enum(['open', 'active', 'blocked', 'done'])
    .nullable()
    .describe('the predecessor’s status, or null when it does not resolve'),
  needs: z.enum(['done', 'started']).describe('what the link needs before this task may start'),
  source: z.string().describe('the predecessor’s task file'),
})

const OpenQuestion = z.strictObject({
  id: z.string(),
  question: z.string(),
  need: z.string().nullable(),
  asked_by: z.string(),
  asked_at: z.string(),
  blocks: z.boolean().describe('asked as a blocker: the task waits until it is settled'),
  source: z.string().describe('the question’s event file'),
})

const Commit = z.strictObject({ sha: z.string(), subject: z.string() })

export const ExplainDoc = z.strictObject({
  schema: z.literal('progress-explain/v1'),
  observed_at: z.string().describe('when explain ran'),
  task: z.strictObject({
    id: z.string(),
    ref: z.string(),
    title: z.string(),
    project: z.string(),
    priority: z.string().nullable(),
    owner: z.string().nullable(),
    ...Sourced,
  }),
  status: z.strictObject({
    value: z.enum(['open', 'active', 'blocked', 'done']).describe('the task’s folder'),
    blocked_by: z.string().nullable().describe('what a blocked task waits on: a question (q-…) or a task (its id)'),
    blocked_by_kind: z.enum(['question', 'task']).nullable(),
    blocked_by_ref: z.string().nullable().describe('the blocking task as people write it, when it resolves'),
    reason: z.string().nullable().describe('a blocked task: what its last `blocked` log line says'),
    ...Sourced,
  }),
  readiness: z.strictObject({
    ready: z.boolean().describe('open, not wont, and no dependency holds its start (the rule behind next)'),
    reason: z.enum(['ready', 'active', 'blocked', 'done', 'wont', 'waiting']),
    unmet: z.array(Unmet).describe('every dependency holding the start, whatever the task’s own state'),
    ...Sourced,
  }),
  schedule: z.strictObject({
    rank: z
      .number()
      .int()
      .nullable()
      .describe('its place in `dacli next` (1 = offered first), or null when not offered'),
    ready_count: z.number().int().describe('how many tasks `dacli next` has ready'),
    why_unranked: z.string().nullable().describe('why next does not offer it, or null when it does'),
    slack: z
      .number()
      .nullable()
      .describe('how far it can slip without delaying the plan (Te units), or null when unsized, done or out of plan'),
    critical: z.boolean().describe('on the critical path'),
    ...Sourced,
  }),
  claim: z.strictObject({
    held: z
      .boolean()
      .describe('someone holds a live claim: in this clone’s task file, or another clone’s on the remote'),
    by: z.string().nullable(),
    at: z.string().nullable(),
    expires: z.string().nullable().describe('null: no lease (the claim holds until released)'),
    lease_left_seconds: z
      .number()
      .int()
      .nullable()
      .describe('negative when the lease has run out; null without a lease'),
    expired: z.boolean().describe('the lease ran out: anyone may take the task over'),
    where: z
      .enum(['local', 'remote'])
      .nullable()
      .describe('local: this clone only; remote: arbitrated by a git remote (refs/dacli/claims/<id>)'),
    remote: z.string().nullable().describe('the arbitrating remote, for a remote claim'),
    other_clone: z
      .strictObject({ host: z.string(), workspace: z.string() })
      .nullable()
      .describe('the claim is another clone’s, as last fetched from the remote'),
    remote_claim: RemoteClaimView.nullable(),
    ...Sourced,
  }),
  questions: z.strictObject({
    open: z.array(OpenQuestion).describe('questions about the task still waiting for a person, oldest first'),
    answered: z.number().int(),
    dismissed: z.number().int(),
    ...Sourced,
  }),
  criteria: z.strictObject({
    total: z.number().int(),
    checked: z.number().int(),
    verified: z.number().int().describe('checked by a passing --verify run recorded under ## Verification'),
    attested: z.number().int().describe('checked without a recorded passing run'),
    unverified: z.boolean().describe('closed with --allow-unverified'),
    unchecked: z.array(z.strictObject({ n: z.number().int(), text: z.string() })),
    ...Sourced,
  }),
  landing: z.strictObject({
    branch: z.string().nullable().describe('the branch holding the task’s work, or null when it has none'),
    branch_source: z
      .enum(['worktree', 'flag', 'log'])
      .nullable()
      .describe('its worktree, --branch, or the branch named by a landed/unlanded line of its log'),
    trunk: z.string().nullable(),
    trunk_commit: z.string().nullable(),
    landed: z
      .boolean()
      .nullable()
      .describe('every commit of the branch is on trunk; null when there is no branch or it cannot be told'),
    missing: z.array(Commit).describe('commits of the branch trunk does not have'),
    merged_as: z.string().nullable().describe('a deleted branch: the merge commit on trunk that names it'),
    head: z
      .string()
      .nullable()
      .optional()
      .describe(
        'the branch’s tip; equal to trunk_commit when the branch has no commits of its own (null: gone or unknown)',
      ),
    logged: z
      .strictObject({ verb: z.enum(['landed', 'unlanded']), details: z.string(), at: z.string() })
      .nullable()
      .describe('what the close logged, for a closed task'),
    unknown_reason: z.string().nullable().describe('why landing cannot be told (no git, no trunk), or null'),
    ...Sourced,
  }),
  next_action: z.strictObject({
    command: z.string().nullable().describe('the one command to run next, or null when there is nothing to do'),
    who: z.enum(['agent', 'person', 'nobody']).describe('who is expected to take it'),
    why: z.string(),
    ...Sourced,
  }),
})

export const documents = { 'progress-explain/v1': ExplainDoc }
export type ExplainDocT = z.infer<typeof ExplainDoc>
