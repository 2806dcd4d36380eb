// Wire shapes of the task slice. The store's types are separate: these are what
// `--json` promises (additive only within a version; see COMPATIBILITY.md).

import { z } from 'zod'
import { Skipped, SkippedTotal } from '../../clikit/skipped.schema.js'
import type { taskHistory } from '../../domain/task/history.js'
import { RemoteClaimView } from '../shared/remoteclaim.schema.js'
import type { listItem, TaskChangeDocument, taskDoc } from '../shared/taskdoc.js'

const StatusEnum = z.enum(['open', 'active', 'blocked', 'done', 'removed'])
const PriorityEnum = z.enum(['must', 'should', 'could', 'wont'])
const DepTypeEnum = z.enum(['FS', 'SS', 'FF', 'SF'])

const TaskBody = {
  id: z.string().describe('t-<ULID>: the task’s true, global identity'),
  seq: z.number().int().describe('the per-project sequence number (the NNN of the file name)'),
  ref: z.string().describe('<project>/<NNN>-<slug>: a qualified reference'),
  slug: z.string(),
  project: z.string(),
  title: z.string(),
  status: StatusEnum.describe('the folder the file is in (removed: a tombstone under tasks/removed/)'),
  owner: z.string().nullable().describe('the only identity that may rewrite it; null = unowned'),
  claim: z
    .strictObject({
      by: z.string(),
      at: z.string(),
      expires: z.string().nullable(),
      expired: z.boolean(),
      remote: z
        .string()
        .nullable()
        .describe('the git remote arbitrating the claim (refs/dacli/claims/<id> there); null: this clone only'),
    })
    .nullable(),
  remote_claim: RemoteClaimView.nullable(),
  priority: PriorityEnum.nullable(),
  estimate: z
    .strictObject({
      optimistic: z.number(),
      probable: z.number(),
      pessimistic: z.number(),
      te: z.number().describe('(o + 4m + p) / 6'),
    })
    .nullable(),
  depends_on: z.array(
    z.strictObject({
      on: z.string().describe('the dependency as written (a task id for dacli-written files)'),
      ref: z.string().nullable().describe('its qualified reference, or null when it does not resolve'),
      title: z.string().nullable(),
      type: DepTypeEnum,
      status: StatusEnum.nullable().describe('null when the dependency does not resolve'),
    }),
  ),
  parent: z.strictObject({ id: z.string(), ref: z.string().nullable() }).nullable(),
  acceptance: z.array(z.strictObject({ n: z.number().int(), text: z.string(), checked: z.boolean() })),
  acceptance_done: z.number().int(),
  acceptance_total: z.number().int(),
  unverified: z.boolean().describe('closed through the explicit no-criteria override'),
  sections: z.strictObject({ so_that: z.string().nullable(), context: z.string().nullable() }),
  log: z.array(z.strictObject({ at: z.string(), actor: z.string(), verb: z.string(), details: z.string() })),
  verifications: z
    .array(
      z.strictObject({
        at: z.string(),
        actor: z.string(),
        command: z.string(),
        exit_code: z.number().int().nullable(),
        duration_ms: z.number(),
        output_digest: z.string(),
        checked: z.array(z.number().int()),
        branch: z.string().nullable().describe('the branch checked out where the command ran (its worktree)'),
        commit: z.string().nullable().describe('the commit checked out where the command ran'),
      }),
    )
    .describe('evidence of --verify runs'),
  blocked_by: z.strictObject({ id: z.string(), ref: z.string().nullable() }).nullable(),
  version: z.number().int().describe('bumped by every rewrite; see --if-version'),
  aliases: z.array(z.number().int()).describe('earlier sequence numbers (after a renumbering); they still resolve'),
  tags: z.array(z.string()),
  github: z
    .strictObject({ issue: z.number().int().nullable(), repo: z.string().nullable(), synced_at: z.string().nullable() })
    .nullable(),
  created: z.string().nullable(),
  created_by: z.string().nullable(),
  path: z.string().describe('the file, relative to the repository root'),
  worktree: z
    .strictObject({
      path: z.string().describe('relative to the repository root'),
      branch: z.string(),
    })
    .nullable()
    .describe('the task’s worktree (dacli worktree add), or null'),
  branch: z
    .string()
    .nullable()
    .describe(
      'the branch kept for the task’s work after its worktree was removed (branch: in the file), or null; closing the task requires it to land',
    ),
  touches: z.array(z.string()).describe('paths or globs the task will touch (relative to the repository root)'),
  labels: z.array(z.string()),
  milestone: z.string().nullable(),
}

export const TaskDoc = z.strictObject({ schema: z.literal('task/v1'), ...TaskBody })

export const TaskListItem = z.strictObject({
  id: z.string(),
  seq: z.number().int(),
  ref: z.string(),
  slug: z.string(),
  project: z.string(),
  title: z.string(),
  status: StatusEnum,
  owner: z.string().nullable(),
  priority: PriorityEnum.nullable(),
  acceptance_done: z.number().int(),
  acceptance_total: z.number().int(),
  estimate_te: z.number().nullable(),
  claim_expires: z.string().nullable(),
  version: z.number().int(),
  path: z.string(),
  labels: z.array(z.string()),
  milestone: z.string().nullable(),
})

export const TaskListDoc = z.strictObject({
  schema: z.literal('task-list/v1'),
  tasks: z.array(TaskListItem),
  total: z.number().int().describe('every task matching the filters, across all pages'),
  limit: z.number().int().nullable(),
  cursor: z.string().nullable(),
  next_cursor: z.string().nullable().describe('pass as --cursor for the next page; null on the last page'),
  truncated: z.boolean().describe('true when this page does not hold every match'),
  skipped: Skipped.describe('unreadable files, not listed'),
  ...SkippedTotal,
})

export const TaskChangeDoc = z.strictObject({
  schema: z.literal('task-change/v1'),
  action: z.string().describe('claim, release, renew, check, uncheck, done, block, unblock, reopen, depend, edit, rm'),
  outcome: z
    .enum(['changed', 'unchanged', 'proposed', 'taken-over'])
    .describe('proposed: recorded as an event for the owner to apply (dacli sync)'),
  task: z.strictObject(TaskBody),
  event_id: z.string().nullable().describe('the proposal event, when outcome is proposed'),
  details: z.record(z.string(), z.unknown()),
  worktree: z
    .strictObject({
      path: z.string().describe('absolute: cd there to work'),
      branch: z.string(),
      outcome: z.enum(['created', 'reused']),
    })
    .optional()
    .describe('present with task claim --worktree: the worktree made (or found) for the task'),
})

const Oid = z.string().describe('a git commit or blob id (40 hex digits)')

const HistoryEntry = z.strictObject({
  at: z.string().describe('RFC 3339 UTC'),
  source: z.enum(['log', 'record', 'head']).describe("the task's ## Log, a record-branch commit, or a HEAD commit"),
  actor: z.string().nullable().describe('the identity (log line actor, or the Dacli-Agent trailer)'),
  verb: z.string().nullable().describe('the log verb (created, claimed, …); null for commits'),
  details: z.string().nullable(),
  commit: Oid.nullable(),
  author: z.string().nullable().describe('the commit author as "name <email>"'),
  command: z.string().nullable().describe('the Dacli-Command trailer'),
  message: z.string().nullable().describe('the commit subject'),
  path: z.string().nullable().describe('where the task file was after the commit (before it, when deleted)'),
  change: z.enum(['added', 'modified', 'moved', 'deleted']).nullable(),
})

export const TaskHistoryDoc = z.strictObject({
  schema: z.literal('task-history/v1'),
  task: z.strictObject({
    id: z.string(),
    ref: z.string(),
    title: z.string(),
    status: z.enum(['open', 'active', 'blocked', 'done']),
    path: z.string(),
  }),
  git: z.boolean().describe('false outside a git repository: only the ## Log lines are shown'),
  branch: z.string().describe('the record branch searched'),
  entries: z.array(HistoryEntry).describe('oldest first'),
  commits_scanned: z.strictObject({
    record: z.number().int().nullable().describe('null when the record branch does not exist or git is absent'),
    head: z.number().int().nullable().describe('null when HEAD does not track the workspace'),
  }),
  truncated: z.boolean().describe('true when HEAD history was cut at the scan limit'),
})

export const documents = {
  'task/v1': TaskDoc,
  'task-list/v1': TaskListDoc,
  'task-change/v1': TaskChangeDoc,
  'task-history/v1': TaskHistoryDoc,
}

/**
 * The wire type, which compiles only while the document the store builds fits it: task/v1, its list item and
 * task-change/v1 are built by features/shared/taskdoc.ts, task-history/v1 by domain/task/history.ts (the store does not
 * see these types).
 */
type BuiltAs<_Built extends Wire, Wire> = Wire

export type TaskDocT = BuiltAs<Awaited<ReturnType<typeof taskDoc>>, z.infer<typeof TaskDoc>>
export type TaskListDocT = z.infer<typeof TaskListDoc>
export type TaskListItemT = BuiltAs<ReturnType<typeof listItem>, z.infer<typeof TaskListItem>>
export type TaskChangeDocT = BuiltAs<TaskChangeDocument, z.infer<typeof TaskChangeDoc>>
export type TaskHistoryDocT = BuiltAs<Awaited<ReturnType<typeof taskHistory>>, z.infer<typeof TaskHistoryDoc>>
