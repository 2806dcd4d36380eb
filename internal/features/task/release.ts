import { arg, defineCommand } from '../../clikit/command.js'
import { arbitrationOf } from '../../domain/claims/arbiter.js'
import { releaseTask } from '../../domain/task/lifecycle.js'
import { changeResult } from '../shared/taskdoc.js'
import { arbitrationFlags } from './claimflags.js'

export const release = defineCommand({
  path: 'task release',
  summary: 'Give a task back: owner cleared, an active task returns to open',
  description:
    'Only the owner releases a task (another identity’s task is refused with exit 3). A read-only identity’s release is recorded as an event (proposed). Releasing an unowned task is `unchanged`. A claim made on a remote (claims.remote, or --remote) is deleted there first, under a lease on this clone’s claim; if another clone holds it now (it took over an expired lease), theirs is left alone and details.remote_claim says so. An unreachable remote is exit 1 with nothing changed; --local releases in this clone only.',
  args: [arg('ref', 'the task')],
  flags: { ...arbitrationFlags },
  json: 'task-change/v1',
  mutates: true,
  proposes: true,
  idempotent: true,
  async run(ctx, input) {
    const store = await ctx.store()
    const arbitration = arbitrationOf(store, ctx.env, input.flags)
    return changeResult(store, await releaseTask(store, input.args.ref, await ctx.identity(), { arbitration }))
  },
})
