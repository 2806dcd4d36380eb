import { arg, defineCommand, flagBool } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { doneTask } from '../../store/index.js'
import { changeResult } from './docs.js'

export const done = defineCommand({
  path: 'task done',
  summary: 'Close a task — every acceptance criterion must be checked',
  description:
    'This verifies, it does not just record: any unchecked criterion refuses with exit 3 and lists them in details.unmet (do not retry unchanged — check them first). A task without criteria is refused unless --allow-unverified, which closes it and marks it unverified. A non-owner’s done (or a read-only identity’s) is recorded as a propose-status event for the owner (outcome proposed).',
  args: [arg('ref', 'the task')],
  flags: { 'allow-unverified': bool('close a task that has no acceptance criteria, marking it unverified') },
  json: 'task-change/v1',
  mutates: true,
  proposes: true,
  idempotent: true,
  common: true,
  async run(ctx, input) {
    const store = await ctx.store()
    const c = await doneTask(store, input.args.ref as string, await ctx.identity(), {
      allowUnverified: flagBool(input, 'allow-unverified'),
    })
    return changeResult(store, c)
  },
})
