import { arg, defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { blockTask } from '../../domain/task/lifecycle.js'
import { checkText } from '../../format/ids.js'
import { changeResult } from '../shared/taskdoc.js'

export const block = defineCommand({
  path: 'task block',
  summary: 'Move a task to blocked, saying by what and why',
  description:
    'The owner (or an rw identity on an unowned task) moves it to blocked; --by records the blocking task. A non-owner’s block is recorded as a block event for the owner (outcome proposed). A done task must be reopened first.',
  args: [arg('ref', 'the task')],
  flags: {
    by: str('the task that blocks it', { valueName: 'REF' }),
    why: str('what it waits for'),
  },
  json: 'task-change/v1',
  mutates: true,
  proposes: true,
  examples: ['dacli task block ledger/3 --by ledger/2 --why "needs the shim first"'],
  async run(ctx, input) {
    const store = await ctx.store()
    const by = input.flags.by
    const why = input.flags.why
    if (why !== undefined) checkText(why, '--why')
    const c = await blockTask(store, input.args.ref, await ctx.identity(), {
      ...(by === undefined ? {} : { by }),
      ...(why === undefined ? {} : { why }),
    })
    return changeResult(store, c)
  },
})
