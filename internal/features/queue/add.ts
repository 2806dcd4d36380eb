import { arg, defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { shortRef } from '../../clikit/text.js'
import { addToQueue } from '../../domain/queue/queues.js'
import { checkTitle } from '../../format/ids.js'
import { queueDoc, renderQueue } from './doc.js'

export const add = defineCommand({
  path: 'queue add',
  summary: 'Create a queue, or append tasks to it: an ordered list for one agent to work through',
  description:
    'Writes .dacli/queues/<queue>.md (meant to be edited by hand: one `- [ ] <ref>` line per task under ## Tasks, in order). Every reference must name one task (else exit 4, nothing written); a task already waiting its turn in the queue is not added twice. Without references it creates an empty queue. queue next offers its first task that is ready; queue advance closes the head’s turn.',
  args: [
    arg('queue', 'the queue’s name, its file name without .md (lower-case letters, digits, ".", "-" and "_")'),
    { name: 'refs', description: 'the tasks to append, in order', required: false, rest: true, list: true },
  ],
  flags: { title: str('the queue’s title (its # heading)') },
  json: 'queue/v1',
  mutates: true,
  examples: ['dacli queue add release-1.2 ledger/3 ledger/5 web/2', 'dacli queue add nightly --title "Nightly chores"'],
  async run(ctx, input) {
    const refs = (input.args.refs ?? '').split(' ').filter((r) => r !== '')
    const title = input.flags.title === undefined ? undefined : checkTitle(input.flags.title)
    const store = await ctx.store()
    const who = await ctx.identity()
    const r = await addToQueue(store, input.args.queue, who.id, refs, title)
    const data = queueDoc(r.queue, 'add', { added: r.added })
    return {
      data,
      human(out) {
        out.line(
          `${r.created ? 'created' : 'updated'} queue ${data.slug}${r.added.length > 0 ? `: added ${r.added.map(shortRef).join(', ')}` : ''}`,
        )
        renderQueue(out, data)
      },
    }
  },
})
