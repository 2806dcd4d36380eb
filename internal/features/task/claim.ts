import { arg, defineCommand, flagNum } from '../../clikit/command.js'
import { duration } from '../../clikit/flags.js'
import { claimTask } from '../../store/index.js'
import { changeResult } from './docs.js'

export const claim = defineCommand({
  path: 'task claim',
  summary: 'Take ownership of a task (moves an open task to active)',
  description:
    'An unowned task becomes yours and moves to active. Claiming your own task again is `unchanged` (with --lease, the lease is renewed). A task another identity holds under a live claim is a conflict (exit 5, the holder and claim time in details); an expired lease, or an owner that was retired, is taken over (outcome taken-over, logged). A read-only identity’s claim is recorded as a claim event for the owner to apply (outcome proposed, exit 0).',
  args: [arg('ref', 'the task')],
  flags: {
    lease: duration('hold the claim this long; afterwards others may take it over', {
      defaultText: 'claim_lease in config.yml',
    }),
  },
  json: 'task-change/v1',
  mutates: true,
  proposes: true,
  idempotent: true,
  common: true,
  examples: ['dacli task claim ledger/2', 'dacli task claim ledger/2 --lease 4h'],
  async run(ctx, input) {
    const store = await ctx.store()
    const lease = flagNum(input, 'lease')
    const c = await claimTask(
      store,
      input.args.ref as string,
      await ctx.identity(),
      lease === undefined ? {} : { leaseMs: lease },
    )
    return changeResult(store, c)
  },
})
