import { arg, defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { arbitrationOf } from '../../domain/claims/arbiter.js'
import { reopenTask } from '../../domain/task/lifecycle.js'
import { checkTitle } from '../../format/ids.js'
import { changeResult } from '../shared/taskdoc.js'
import { arbitrationFlags } from './claimflags.js'

export const reopen = defineCommand({
  path: 'task reopen',
  summary: 'Reopen a done or blocked task (unchecks its criteria)',
  description:
    'Moves the task to open, unchecks every criterion, clears the unverified mark, releases its owner and claim (anyone may claim it again; a claim on a remote is deleted there, as task release does) and logs the reason and the released owner. Owner only. An open or active task is refused (exit 3).',
  args: [arg('ref', 'the task')],
  flags: { reason: str('why it is reopened (logged)', { required: true }), ...arbitrationFlags },
  json: 'task-change/v1',
  mutates: true,
  async run(ctx, input) {
    const store = await ctx.store()
    const reason = checkTitle(input.flags.reason, 'reason')
    const arbitration = arbitrationOf(store, ctx.env, input.flags)
    return changeResult(store, await reopenTask(store, input.args.ref, await ctx.identity(), reason, { arbitration }))
  },
})
