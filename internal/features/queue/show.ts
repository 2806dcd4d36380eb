import { arg, defineCommand } from '../../clikit/command.js'
import { readQueue } from '../../domain/queue/queues.js'
import { queueDoc, renderQueue } from './doc.js'

export const show = defineCommand({
  path: 'queue show',
  summary: 'One queue: its tasks in order, each with its turn (waiting, done, failed)',
  description:
    'Reads .dacli/queues/<queue>.md. A line that is not an item is refused (exit 1) naming the file and the line; a reference that names no task (removed, or never there) is shown as dangling, with why.',
  args: [arg('queue', 'the queue')],
  flags: {},
  json: 'queue/v1',
  mutates: false,
  examples: ['dacli queue show release-1.2 --json'],
  async run(ctx, input) {
    const q = await readQueue(await ctx.store(), input.args.queue)
    const data = queueDoc(q, 'show')
    return { data, human: (out) => renderQueue(out, data) }
  },
})
