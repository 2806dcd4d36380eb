// Wire shapes of the record slice (the git-backed record and task history).
// Additive only within a version (COMPATIBILITY.md).

import { z } from 'zod'

const Oid = z.string().describe('a git commit or blob id (40 hex digits)')

const FileChanged = z.strictObject({
  path: z.string().describe('the file, in the repository layout (.dacli/…)'),
  change: z.enum(['added', 'modified', 'deleted']),
})

const Person = z.strictObject({ name: z.string(), email: z.string() })

export const RecordResultDoc = z.strictObject({
  schema: z.literal('record-result/v1'),
  outcome: z.enum(['recorded', 'unchanged']).describe('unchanged: the workspace equals the branch tip; no commit'),
  commit: Oid.nullable().describe('the new commit, null when unchanged'),
  parent: Oid.nullable().describe('the branch tip the commit was made on; null when the branch was created'),
  branch: z.string().describe('the record branch (record_branch in config.yml)'),
  message: z.string().nullable().describe('the commit subject, null when unchanged'),
  author: Person.describe('the acting identity as a git author'),
  agent: z.string().describe('the acting identity (the Dacli-Agent trailer)'),
  files_changed: z.array(FileChanged),
})

const LogCommit = z.strictObject({
  id: Oid,
  parents: z.array(Oid),
  author: Person,
  agent: z.string().nullable().describe('the Dacli-Agent trailer, null for commits not written by dacli'),
  command: z.string().nullable().describe('the Dacli-Command trailer'),
  time: z.string().describe('RFC 3339 UTC (the author time)'),
  message: z.string().describe('the subject line'),
  files_changed: z.array(FileChanged).describe('against the first parent (everything, for the first commit)'),
})

export const RecordLogDoc = z.strictObject({
  schema: z.literal('record-log/v1'),
  branch: z.string(),
  tip: Oid.nullable().describe('null when nothing has been recorded yet'),
  commits: z.array(LogCommit).describe('newest first'),
  limit: z.number().int(),
  truncated: z.boolean().describe('true when older commits exist beyond the limit'),
})

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

export const RecordPushDoc = z.strictObject({
  schema: z.literal('record-push/v1'),
  remote: z.string(),
  branch: z.string(),
  outcome: z.enum(['pushed', 'up-to-date']),
  commit: Oid.describe('the record branch tip that the remote now has'),
  recorded: Oid.nullable().describe('a commit made first for changes not yet recorded, or null'),
})

export const RecordPullDoc = z.strictObject({
  schema: z.literal('record-pull/v1'),
  remote: z.string(),
  branch: z.string(),
  outcome: z
    .enum(['materialized', 'up-to-date', 'fast-forward', 'merged'])
    .describe('materialized: .dacli/ was created from the record branch (a fresh clone)'),
  commit: Oid.describe('the record branch tip after the pull'),
  previous: Oid.nullable().describe('the local tip before the pull (after recording local changes)'),
  remote_commit: Oid,
  recorded: Oid.nullable().describe('a commit made first for local changes not yet recorded, or null'),
  files_changed: z.array(FileChanged).describe('what changed in .dacli/ on this machine'),
  renumbered: z.array(
    z.strictObject({
      id: z.string(),
      project: z.string(),
      from: z.number().int(),
      to: z.number().int(),
      path: z.string(),
    }),
  ),
})

export const documents = {
  'record-result/v1': RecordResultDoc,
  'record-log/v1': RecordLogDoc,
  'task-history/v1': TaskHistoryDoc,
  'record-push/v1': RecordPushDoc,
  'record-pull/v1': RecordPullDoc,
}

export type RecordResultDocT = z.infer<typeof RecordResultDoc>
export type RecordLogDocT = z.infer<typeof RecordLogDoc>
export type TaskHistoryDocT = z.infer<typeof TaskHistoryDoc>
export type HistoryEntryT = z.infer<typeof HistoryEntry>
export type RecordPushDocT = z.infer<typeof RecordPushDoc>
export type RecordPullDocT = z.infer<typeof RecordPullDoc>
export type FileChangedT = z.infer<typeof FileChanged>
