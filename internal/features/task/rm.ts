import { cmd } from '../../base/commands.js'
import { classifiedError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { removeTask } from '../../domain/task/lifecycle.js'
import { qualifiedRef } from '../../format/refs.js'
import { changeResult } from '../shared/taskdoc.js'

export const rm = defineCommand({
  path: 'task rm',
  summary: 'Remove a task (a tombstone keeps its number from being reused)',
  description:
    'Moves the file to tasks/removed/ as a tombstone. An active or done task, or one that other tasks depend on, needs --force (exit 3 otherwise, naming the reason). Owner only. Its worktree, if any, stays (a note says where; `worktree remove` and `worktree prune` still remove it). Removing a task already removed changes nothing (outcome unchanged, exit 0).',
  args: [arg('ref', 'the task')],
  flags: { force: bool('remove it even if it is active or done or others depend on it') },
  json: 'task-change/v1',
  mutates: true,
  destructive: true,
  async run(ctx, input) {
    const store = await ctx.store()
    const who = await ctx.identity()
    try {
      const r = await removeTask(store, input.args.ref, who, input.flags.force === true)
      // The worktree is not removed with the task: its tombstone still names it, so worktree remove and prune can.
      if (r.task.worktree !== null)
        ctx.notes.note(
          `its worktree stays at ${r.task.worktree.path} (branch ${r.task.worktree.branch}): ${cmd(`worktree remove ${qualifiedRef(r.task)}`)}`,
        )
      return changeResult(store, r)
    } catch (e) {
      // Already removed (its tombstone is there): an idempotent repeat, as contract §1 has it.
      if (classifiedError(e)?.details.removed === undefined) throw e
      const { findTombstone } = await import('../../store/tombstones.js')
      const tomb = await findTombstone(store, input.args.ref)
      if (tomb === null) throw e
      return changeResult(store, {
        action: 'rm',
        outcome: 'unchanged',
        task: tomb.task,
        event_id: null,
        details: { removed: true, dependents: [] },
      })
    }
  },
})
