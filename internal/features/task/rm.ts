import { arg, defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { removeTask } from '../../domain/task/lifecycle.js'
import { changeResult } from '../shared/taskdoc.js'

export const rm = defineCommand({
  path: 'task rm',
  summary: 'Remove a task (a tombstone keeps its number from being reused)',
  description:
    'Moves the file to tasks/removed/ as a tombstone. An active or done task, or one that other tasks depend on, needs --force (exit 3 otherwise, naming the reason). Owner only.',
  args: [arg('ref', 'the task')],
  flags: { force: bool('remove it even if it is active or done or others depend on it') },
  json: 'task-change/v1',
  mutates: true,
  destructive: true,
  async run(ctx, input) {
    const store = await ctx.store()
    return changeResult(
      store,
      await removeTask(store, input.args.ref, await ctx.identity(), input.flags.force === true),
    )
  },
})
