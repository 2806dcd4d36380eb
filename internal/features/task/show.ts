import { classifiedError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { blockInfo, renderTask, taskDoc } from '../shared/taskdoc.js'

export const show = defineCommand({
  path: 'task show',
  summary: 'Show one task: status, owner, claim, estimate, dependencies, acceptance, log',
  description:
    'A removed task is shown from its tombstone (status `removed`, under tasks/removed/); every other command treats it as not found (exit 4, saying it was removed).',
  args: [arg('ref', 'the task: 7, 007-slug, slug or t-<ULID>, optionally as <project>/<ref>')],
  flags: {},
  json: 'task/v1',
  mutates: false,
  common: true,
  examples: ['dacli task show ledger/2', 'dacli task show 2 --json'],
  async run(ctx, input) {
    const store = await ctx.store()
    let t: Awaited<ReturnType<typeof store.readTask>>
    try {
      t = await store.readTask(input.args.ref)
    } catch (e) {
      if (classifiedError(e)?.details.removed === undefined) throw e
      const { findTombstone } = await import('../../store/tombstones.js')
      const tomb = await findTombstone(store, input.args.ref)
      if (tomb === null) throw e
      t = tomb.task
    }
    const data = await taskDoc(store, t)
    const block = await blockInfo(store, t)
    return { data, human: (out) => renderTask(out, data, block) }
  },
})
