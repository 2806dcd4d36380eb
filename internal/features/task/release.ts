import { arg, defineCommand } from '../../clikit/command.js'
import { releaseTask } from '../../store/index.js'
import { changeResult } from './docs.js'

export const release = defineCommand({
  path: 'task release',
  summary: 'Give a task back: owner cleared, an active task returns to open',
  description:
    'Only the owner releases a task (another identity’s task is refused with exit 3). A read-only identity’s release is recorded as an event (proposed). Releasing an unowned task is `unchanged`.',
  args: [arg('ref', 'the task')],
  flags: {},
  json: 'task-change/v1',
  mutates: true,
  proposes: true,
  idempotent: true,
  async run(ctx, input) {
    const store = await ctx.store()
    return changeResult(store, await releaseTask(store, input.args.ref as string, await ctx.identity()))
  },
})
