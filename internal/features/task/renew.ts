import { arg, defineCommand, flagNum } from '../../clikit/command.js'
import { duration } from '../../clikit/flags.js'
import { renewClaim } from '../../store/index.js'
import { changeResult } from './docs.js'

export const renew = defineCommand({
  path: 'task renew',
  summary: 'Extend your claim on a task',
  description:
    'Sets the claim to expire --lease (or the workspace’s claim_lease) from now. Only the current owner renews (exit 3 otherwise); with no lease configured and none given, the claim never expires and renewing is `unchanged`.',
  args: [arg('ref', 'the task')],
  flags: { lease: duration('the new lease, counted from now', { defaultText: 'claim_lease in config.yml' }) },
  json: 'task-change/v1',
  mutates: true,
  examples: ['dacli task renew ledger/2 --lease 2h'],
  async run(ctx, input) {
    const store = await ctx.store()
    const lease = flagNum(input, 'lease')
    return changeResult(
      store,
      await renewClaim(
        store,
        input.args.ref as string,
        await ctx.identity(),
        lease === undefined ? {} : { leaseMs: lease },
      ),
    )
  },
})
