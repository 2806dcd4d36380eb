import { classifiedError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { removeTask } from '../../domain/task/lifecycle.js'
import { changeResult } from '../shared/taskdoc.js'

export const rm = defineCommand({
  path: 'task rm',
  summary: 'Remove a task (a tombstone keeps its number from being reused)',
  description:
    'Moves the file to tasks/removed/ as a tombstone. An active or done task, or one that other tasks depend on, needs --force (exit 3 otherwise, naming the reason). Owner only. Removing a task already removed changes nothing (outcome unchanged, exit 0).',
  args: [arg('ref', 'the task')],
  flags: { force: bool('remove it even if it is active or done or others depend on it') },
  json: 'task-change/v1',
  mutates: true,
  destructive: true,
  async run(ctx, input) {
    const store = await ctx.store()
    const who = await ctx.identity()
    try {
      return changeResult(store, await removeTask(store, input.args.ref, who, input.flags.force === true))
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
