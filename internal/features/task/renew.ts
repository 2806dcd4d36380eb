import { arg, defineCommand } from '../../clikit/command.js'
import { duration } from '../../clikit/flags.js'
import { leaseOptionsOf, renewClaim } from '../../domain/task/lifecycle.js'
import { changeResult } from '../shared/taskdoc.js'
import { arbitrationFlags } from './claimflags.js'

export const renew = defineCommand({
  path: 'task renew',
  summary: 'Extend your claim on a task',
  description:
    'Sets the claim to expire --lease (or the workspace’s claim_lease) from now. Only the current owner renews (exit 3 otherwise); with no lease configured and none given, the claim never expires and renewing is `unchanged`. A claim made on a remote is renewed there first, under a lease on this clone’s claim: if another clone took it over meanwhile, exit 5 with the holder and nothing changed.',
  args: [arg('ref', 'the task')],
  flags: {
    lease: duration('the new lease, from now', { defaultText: 'claim_lease in config.yml' }),
    ...arbitrationFlags,
  },
  json: 'task-change/v1',
  mutates: true,
  examples: ['dacli task renew ledger/2 --lease 2h'],
  async run(ctx, input) {
    const store = await ctx.store()
    const opts = leaseOptionsOf(store, ctx.env, input.flags)
    return changeResult(store, await renewClaim(store, input.args.ref, await ctx.identity(), opts))
  },
})
