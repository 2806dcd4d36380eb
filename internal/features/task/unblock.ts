import { arg, defineCommand } from '../../clikit/command.js'
import { unblockTask } from '../../domain/task/lifecycle.js'
import { changeResult } from '../shared/taskdoc.js'

export const unblock = defineCommand({
  path: 'task unblock',
  summary: 'Move a blocked task back (to active when owned, else open)',
  args: [arg('ref', 'the task')],
  flags: {},
  json: 'task-change/v1',
  mutates: true,
  proposes: true,
  idempotent: true,
  async run(ctx, input) {
    const store = await ctx.store()
    return changeResult(store, await unblockTask(store, input.args.ref, await ctx.identity()))
  },
})
