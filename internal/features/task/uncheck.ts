import { arg, defineCommand } from '../../clikit/command.js'
import { int } from '../../clikit/flags.js'
import { uncheckTask } from '../../domain/task/acceptance.js'
import { changeResult } from '../shared/taskdoc.js'

export const uncheck = defineCommand({
  path: 'task uncheck',
  summary: 'Clear ticked acceptance criteria',
  args: [arg('ref', 'the task')],
  flags: { n: int('the number of a criterion (1-based)', { repeatable: true, min: 1, required: true }) },
  json: 'task-change/v1',
  mutates: true,
  idempotent: true,
  async run(ctx, input) {
    const store = await ctx.store()
    return changeResult(store, await uncheckTask(store, input.args.ref, await ctx.identity(), input.flags.n ?? []))
  },
})
