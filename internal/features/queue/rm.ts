import { arg, defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { removeQueue } from '../../domain/queue/queues.js'
import { queueDoc } from './doc.js'

export const rm = defineCommand({
  path: 'queue rm',
  summary: 'Remove a queue (its tasks are not touched)',
  description:
    'Deletes .dacli/queues/<queue>.md. A queue with tasks still waiting their turn is refused (exit 3), and one that cannot be read (a line that is not an item) exit 1, unless --force, which always deletes the file.',
  args: [arg('queue', 'the queue')],
  flags: { force: bool('remove it even with tasks waiting their turn') },
  json: 'queue/v1',
  mutates: true,
  destructive: true,
  examples: ['dacli queue rm release-1.2'],
  async run(ctx, input) {
    const q = await removeQueue(await ctx.store(), input.args.queue, input.flags.force === true)
    const data = queueDoc(q, 'rm')
    return { data, human: (out) => out.line(`removed queue ${q.slug} (${q.path})`) }
  },
})
