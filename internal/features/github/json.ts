// Wire shapes of the github slice. Additive only within a version.

import { z } from 'zod'

export const GithubDoctorDoc = z.strictObject({
  schema: z.literal('github-doctor/v1'),
  version: z.literal(1),
  ok: z.boolean().describe('every check passed (the exit code says the same: 0 or 1)'),
  project: z.string().nullable().describe('the project whose repository was checked, or null'),
  repository: z.string().nullable().describe('owner/name that was checked, or null when none could be determined'),
  repository_source: z
    .enum(['project', 'only-linked-project', 'origin'])
    .nullable()
    .describe('where the repository came from: the named project, the only linked project, or the origin remote'),
  api_url: z.string(),
  token_source: z
    .enum(['GH_TOKEN', 'GITHUB_TOKEN', 'gh auth token'])
    .nullable()
    .describe('where the token came from (the token itself is never shown)'),
  visibility: z.enum(['public', 'private', 'internal']).nullable(),
  rate_limit: z
    .strictObject({
      limit: z.number().int(),
      remaining: z.number().int(),
      used: z.number().int().nullable(),
      reset: z.string().nullable().describe('RFC 3339 UTC'),
    })
    .nullable(),
  checks: z
    .array(z.strictObject({ name: z.string(), ok: z.boolean(), detail: z.string() }))
    .describe('token, api, repository, visibility, rate_limit — always all five, in this order'),
})

const PlanOutcome = z.enum(['create', 'link', 'already_mapped', 'refused', 'skipped'])

export const PlanItem = z.strictObject({
  issue_number: z.number().int(),
  title: z.string(),
  outcome: PlanOutcome.describe('the category the item is listed under'),
  task_id: z.string().nullable().describe('the task it maps to, links to, or collides with'),
  score: z.number().nullable().describe('title similarity with that task (1 = exact), when relevant'),
  reason: z
    .string()
    .nullable()
    .describe('why: "exact title match", "possible duplicate", "title already mapped", "dacli marker", "closed issue"'),
  labels: z.array(z.string()).describe('the labels a created task would take (the issue’s, without status:/priority:)'),
  milestone: z.string().nullable().describe('the milestone a created task would take'),
  acceptance: z.array(z.string()).optional().describe('criteria the task would get (only with --include-acceptance)'),
  acceptance_ambiguities: z
    .array(z.string())
    .optional()
    .describe('list items under the Acceptance heading that were not imported (nested or numbered)'),
})

const PlanCounts = z.strictObject({
  create: z.number().int(),
  link: z.number().int(),
  already_mapped: z.number().int(),
  refused: z.number().int(),
  skipped: z.number().int(),
})

export const AdoptionPlanDoc = z.strictObject({
  schema: z.literal('github-adoption-plan/v1'),
  version: z.literal(1),
  project: z.string(),
  repository: z.string(),
  dry_run: z.literal(true),
  total: z.number().int().describe('items in the whole plan'),
  counts: PlanCounts.describe('over the whole plan, not the page'),
  limit: z.number().int(),
  cursor: z.number().int(),
  next_cursor: z.number().int().nullable().describe('pass as --cursor for the next page; null on the last page'),
  truncated: z.boolean().describe('this page does not hold the whole plan'),
  create: z.array(PlanItem),
  link: z.array(PlanItem),
  already_mapped: z.array(PlanItem),
  refused: z.array(PlanItem).describe('blocking: an applying pull refuses (exit 3) while any exists'),
  skipped: z.array(PlanItem),
})

const Adopted = z.strictObject({
  issue_number: z.number().int(),
  title: z.string(),
  task_id: z.string(),
  ref: z.string().describe('<project>/<NNN>-<slug>'),
})

export const PullResultDoc = z.strictObject({
  schema: z.literal('github-pull-result/v1'),
  version: z.literal(1),
  project: z.string(),
  repository: z.string(),
  dry_run: z.literal(false),
  total: z.number().int(),
  counts: z.strictObject({
    created: z.number().int(),
    linked: z.number().int(),
    already_mapped: z.number().int(),
    skipped: z.number().int(),
  }),
  created: z.array(Adopted),
  linked: z.array(Adopted),
})

export const PushItem = z.strictObject({
  task_id: z.string().nullable().describe('null only in a sync preview, for a task the pull half would create'),
  ref: z.string().nullable(),
  title: z.string(),
  action: z.enum(['create', 'update', 'close', 'unchanged']),
  issue_number: z.number().int().nullable().describe('null when the issue does not exist yet'),
  adopted: z.boolean().describe('the issue was found by its marker, not through the task’s github block'),
  state: z.enum(['open', 'closed']).describe('the state the issue ends in'),
  labels: z.array(z.string()).describe('the labels the issue ends with (the task’s labels: added)'),
  milestone: z.string().nullable().describe('the milestone the issue ends in (created on GitHub when missing)'),
  changes: z.array(z.string()).describe('what an update changes: title, body, labels, state, milestone'),
})

const PushCounts = z.strictObject({
  create: z.number().int(),
  update: z.number().int(),
  close: z.number().int(),
  unchanged: z.number().int(),
})

const DuplicateMarkers = z
  .array(z.strictObject({ task_id: z.string(), kept: z.number().int(), others: z.array(z.number().int()) }))
  .describe('issues carrying the same task marker; the lowest number is used, the others are left alone')

const Skipped = z
  .array(z.strictObject({ path: z.string(), reason: z.string() }))
  .describe('task files that could not be read, and so were not pushed (see `dacli doctor`)')

export const PushPreviewDoc = z.strictObject({
  schema: z.literal('github-push-preview/v1'),
  version: z.literal(1),
  project: z.string(),
  repository: z.string(),
  dry_run: z.literal(true),
  total: z.number().int().describe('tasks in the whole preview'),
  counts: PushCounts.describe('over the whole preview'),
  adopted: z.number().int().describe('issues that would be adopted by their marker'),
  limit: z.number().int(),
  cursor: z.number().int(),
  next_cursor: z.number().int().nullable(),
  truncated: z.boolean(),
  items: z.array(PushItem).describe('this page, in task order'),
  duplicate_markers: DuplicateMarkers,
  skipped: Skipped,
  output_digest: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/)
    .describe('over the whole preview (every item, not just the page): equal digests, equal previews'),
})

const PushOutcome = z
  .enum(['created', 'updated', 'closed', 'unchanged', 'adopted', 'failed'])
  .describe('what happened: adopted = the issue was found by its marker (a lost answer, an interrupted push)')

export const PushResultItem = PushItem.extend({
  outcome: PushOutcome,
  reason: z.string().nullable().describe('why the item failed (null unless failed)'),
  attempts: z
    .number()
    .int()
    .describe(
      "attempts at this item's writes, retries included (the reads that check a failed create are not counted)",
    ),
})

const Outcomes = z.strictObject({
  created: z.number().int(),
  updated: z.number().int(),
  closed: z.number().int(),
  unchanged: z.number().int(),
  adopted: z.number().int(),
  failed: z.number().int(),
})

export const PushResultDoc = z.strictObject({
  schema: z.literal('github-push-result/v1'),
  version: z.literal(1),
  project: z.string(),
  repository: z.string(),
  dry_run: z.literal(false),
  total: z.number().int(),
  counts: PushCounts.describe('what was planned'),
  adopted: z.number().int(),
  outcomes: Outcomes.describe('what happened; the exit code is 1 when failed > 0'),
  items: z.array(PushResultItem).describe('every task pushed, in task order'),
  duplicate_markers: DuplicateMarkers,
  skipped: Skipped,
  stopped: z
    .string()
    .nullable()
    .describe('why the push stopped sending early (an outage, a rate limit, the budget); the rest failed unsent'),
  retry: z
    .strictObject({
      max_attempts: z.number().int().describe('per request'),
      budget_ms: z.number().int().describe('all retry waits of the run together, at most'),
      waited_ms: z.number().int(),
      retried: z.number().int().describe('requests sent again'),
      exhausted: z.boolean().describe('a wait did not fit in the budget'),
    })
    .describe('the retry policy and what it spent'),
  rate_limit: z
    .strictObject({ remaining: z.number().int(), limit: z.number().int(), reset: z.string().nullable() })
    .nullable()
    .describe('the quota GitHub reported with its last answer'),
})

export const SyncPlanDoc = z.strictObject({
  schema: z.literal('github-sync-plan/v1'),
  version: z.literal(1),
  project: z.string(),
  repository: z.string(),
  inbound: AdoptionPlanDoc.describe('what the pull half would do'),
  outbound: PushPreviewDoc.describe('what the push half would do after that pull'),
})

export const ProjectionDoc = z.strictObject({
  schema: z.literal('github-projection/v1'),
  version: z.literal(1),
  project: z.string(),
  repository: z.string(),
  include_internal: z.boolean(),
  terminal: z.boolean().describe('done tasks whose issue is closed and in step are listed too'),
  counts: z
    .strictObject({
      tasks: z.number().int(),
      in_sync: z.number().int().describe('an issue that a push would leave as it is'),
      drift: z.number().int().describe('an issue a push would change (update or close)'),
      create: z.number().int().describe('tasks a push would create an issue for'),
      close: z.number().int(),
      with_pr: z.number().int().describe('tasks with a pull request found'),
      terminal_hidden: z.number().int().describe('done tasks, issue closed and in step, not listed (see --terminal)'),
    })
    .describe('over every task of the project, listed or not'),
  total: z.number().int(),
  limit: z.number().int().nullable(),
  cursor: z.string().nullable(),
  next_cursor: z.string().nullable(),
  truncated: z.boolean(),
  items: z.array(
    z.strictObject({
      task_id: z.string(),
      ref: z.string(),
      title: z.string(),
      status: z.enum(['open', 'active', 'blocked', 'done']),
      issue: z
        .strictObject({
          number: z.number().int(),
          state: z.enum(['open', 'closed']),
          found_by: z.enum(['block', 'marker']).describe('the task’s github block, or the marker in the issue body'),
        })
        .nullable(),
      recorded_issue: z.number().int().nullable().describe('the issue number the task’s github block records'),
      action: z.enum(['create', 'update', 'close', 'unchanged']).describe('what github push would do'),
      changes: z.array(z.string()).describe('what an update changes: title, body, labels, state, milestone'),
      sync: z
        .enum(['in_sync', 'drift', 'no_issue', 'issue_missing', 'unrecorded'])
        .describe(
          'in_sync; drift (the issue differs); no_issue (never pushed); issue_missing (the recorded issue is gone); unrecorded (found by its marker, not yet in the task)',
        ),
      pr: z
        .strictObject({
          number: z.number().int(),
          url: z.string(),
          state: z.enum(['open', 'closed', 'merged']),
          draft: z.boolean(),
          found_by: z.enum(['branch', 'link', 'marker']),
        })
        .nullable(),
      internal: z
        .strictObject({
          marker: z.string(),
          title: z.string(),
          labels: z.array(z.string()),
          state: z.enum(['open', 'closed']),
          milestone: z.string().nullable(),
        })
        .optional()
        .describe('with --include-internal: what dacli writes on the issue'),
    }),
  ),
  orphans: z
    .array(
      z.strictObject({
        issue_number: z.number().int(),
        title: z.string(),
        state: z.enum(['open', 'closed']),
        task_id: z.string(),
      }),
    )
    .describe('issues carrying this workspace’s marker for a task that does not exist (removed, or never recorded)'),
  duplicate_markers: DuplicateMarkers,
  skipped: Skipped,
})

export const documents = {
  'github-doctor/v1': GithubDoctorDoc,
  'github-adoption-plan/v1': AdoptionPlanDoc,
  'github-pull-result/v1': PullResultDoc,
  'github-push-preview/v1': PushPreviewDoc,
  'github-push-result/v1': PushResultDoc,
  'github-sync-plan/v1': SyncPlanDoc,
  'github-projection/v1': ProjectionDoc,
}

export type GithubDoctorDocT = z.infer<typeof GithubDoctorDoc>
export type PlanItemT = z.infer<typeof PlanItem>
export type AdoptionPlanDocT = z.infer<typeof AdoptionPlanDoc>
export type PullResultDocT = z.infer<typeof PullResultDoc>
export type PushItemT = z.infer<typeof PushItem>
export type PushPreviewDocT = z.infer<typeof PushPreviewDoc>
export type PushResultDocT = z.infer<typeof PushResultDoc>
export type PushResultItemT = z.infer<typeof PushResultItem>
export type PushOutcomeT = z.infer<typeof PushOutcome>
export type SyncPlanDocT = z.infer<typeof SyncPlanDoc>
export type ProjectionDocT = z.infer<typeof ProjectionDoc>
