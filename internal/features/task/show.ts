import { arg, defineCommand } from '../../clikit/command.js'
import { blockInfo, renderTask, taskDoc } from './docs.js'

export const show = defineCommand({
  path: 'task show',
  summary: 'Show one task: status, owner, claim, estimate, dependencies, acceptance, log',
  args: [arg('ref', 'a task reference: 7, 007, 007-slug, slug, t-<ULID>, each optionally as <project>/<ref>')],
  flags: {},
  json: 'task/v1',
  mutates: false,
  common: true,
  examples: ['dacli task show ledger/2', 'dacli task show 2 --json'],
  async run(ctx, input) {
    const store = await ctx.store()
    const t = await store.readTask(input.args.ref as string)
    const data = await taskDoc(store, t)
    const block = await blockInfo(store, t)
    return { data, human: (out) => renderTask(out, data, block) }
  },
})
