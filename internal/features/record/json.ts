// Wire shapes of the record slice (the git-backed record).
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

const Decision = z.strictObject({
  question: z.string().describe('the open question (q-<ULID>) that decides it: dacli answer <qid> ours|theirs|<value>'),
  task: z.string().nullable().describe('the task id'),
  ref: z.string().nullable().describe('the task reference, null when the task is gone'),
  field: z.string().describe('a frontmatter key, status, title or section:<heading>'),
  ours: z.unknown().describe('the value of the clone that merged'),
  theirs: z.unknown().describe('the other side’s value, which the task keeps until answered'),
  blocks: z
    .boolean()
    .describe(
      'whether the question blocks its task (blocked_by it, out of next), as when it was raised: false for a done task or one another identity holds',
    ),
  asked_at: z.string(),
})

export const RecordSyncDoc = z.strictObject({
  schema: z.literal('record-sync/v1'),
  remote: z.string(),
  branch: z.string(),
  outcome: z
    .enum(['converged', 'decisions', 'conflicts'])
    .describe(
      'converged: this clone and the remote hold the same record and nothing waits on a person (exit 0); decisions: open merge-conflict questions wait (exit 5); conflicts: conflict copies (beside non-task files, or of a task file that does not parse) wait, nothing was pushed (exit 5)',
    ),
  pulled: z
    .enum(['materialized', 'up-to-date', 'fast-forward', 'merged', 'nothing-to-pull'])
    .describe('what the pull did; nothing-to-pull: the remote has no record branch yet'),
  pushed: z.enum(['pushed', 'up-to-date', 'not-pushed']),
  commit: Oid.nullable().describe('the record branch tip after the sync'),
  attempts: z.number().int().describe('pull-record-push rounds, one more for each push another clone won first'),
  files_changed: z.array(FileChanged).describe('what changed in .dacli/ on this machine'),
  decisions: z.array(Decision).describe('every open merge-conflict question of the workspace, oldest first'),
  conflicts: z
    .array(z.string())
    .describe(
      'conflict copies (*.conflict-<commit>) left beside non-task files, or in a project’s tasks/ folder for a task file that does not parse',
    ),
})

export const documents = {
  'record-result/v1': RecordResultDoc,
  'record-log/v1': RecordLogDoc,
  'record-push/v1': RecordPushDoc,
  'record-pull/v1': RecordPullDoc,
  'record-sync/v1': RecordSyncDoc,
}

export type RecordResultDocT = z.infer<typeof RecordResultDoc>
export type RecordLogDocT = z.infer<typeof RecordLogDoc>
export type RecordPushDocT = z.infer<typeof RecordPushDoc>
export type RecordPullDocT = z.infer<typeof RecordPullDoc>
export type FileChangedT = z.infer<typeof FileChanged>
export type RecordSyncDocT = z.infer<typeof RecordSyncDoc>
