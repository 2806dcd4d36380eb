// Wire shapes of the worktree slice.

import { z } from 'zod'

const TaskOf = z
  .strictObject({
    id: z.string(),
    ref: z.string(),
    status: z.enum(['open', 'active', 'blocked', 'done']),
    owner: z.string().nullable(),
  })
  .nullable()
  .describe('the task the worktree belongs to; null for a worktree dacli did not make')

const Trunk = z
  .strictObject({ name: z.string().describe('--into, origin/HEAD’s branch, main or master'), commit: z.string() })
  .nullable()
  .describe('null when the repository has none (no origin/HEAD, main or master)')

export const WorktreeDoc = z.strictObject({
  schema: z.literal('worktree/v1'),
  action: z.enum(['add', 'remove']),
  outcome: z
    .enum(['created', 'reused', 'removed', 'unchanged'])
    .describe(
      'reused: the task’s worktree existed already (add is idempotent); unchanged: remove repeated after its worktree was removed (nothing written)',
    ),
  task: z.strictObject({ id: z.string(), ref: z.string() }),
  path: z.string().describe('absolute path of the worktree folder'),
  branch: z.string(),
  head: z.string().nullable().describe('the commit checked out there (null when unknown or removed before)'),
  base: z.string().nullable().describe('add: the revision a new branch started from; null otherwise'),
  branch_deleted: z
    .boolean()
    .nullable()
    .describe('remove: the branch was merged into trunk and deleted (an unmerged branch is kept); null for add'),
})

export const WorktreeListDoc = z.strictObject({
  schema: z.literal('worktree-list/v1'),
  trunk: Trunk,
  worktrees: z.array(
    z.strictObject({
      path: z.string(),
      branch: z.string().nullable().describe('null when detached'),
      head: z.string().nullable(),
      main: z.boolean().describe('the main worktree (holds .dacli/)'),
      locked: z.boolean(),
      prunable: z.boolean().describe('its folder is gone; worktree prune forgets it'),
      dirty: z
        .boolean()
        .nullable()
        .describe('uncommitted changes (untracked files count); null when the folder is gone'),
      changes: z.number().int().nullable(),
      ahead: z.number().int().nullable().describe('commits not on trunk; null without a branch or trunk'),
      behind: z.number().int().nullable().describe('trunk commits not on the branch'),
      task: TaskOf,
    }),
  ),
})

const PruneItem = z.strictObject({
  path: z.string(),
  branch: z.string().nullable(),
  task: z.string().nullable().describe('the task’s qualified reference, or null'),
  reason: z.string(),
})

export const WorktreePruneDoc = z.strictObject({
  schema: z.literal('worktree-prune/v1'),
  trunk: Trunk,
  dry_run: z.boolean(),
  removed: z
    .array(PruneItem.extend({ branch_deleted: z.boolean() }))
    .describe('provably finished worktrees removed (with --dry-run: that would be removed)'),
  kept: z.array(PruneItem).describe('every other linked worktree, with the reason it stays'),
})

export const documents = {
  'worktree/v1': WorktreeDoc,
  'worktree-list/v1': WorktreeListDoc,
  'worktree-prune/v1': WorktreePruneDoc,
}

export type WorktreeDocT = z.infer<typeof WorktreeDoc>
export type WorktreeListDocT = z.infer<typeof WorktreeListDoc>
export type WorktreePruneDocT = z.infer<typeof WorktreePruneDoc>
