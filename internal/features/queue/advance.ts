import { arg, defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { shortRef } from '../../clikit/text.js'
import { advanceQueue } from '../../domain/queue/queues.js'
import { checkTitle } from '../../format/ids.js'
import { itemRef, queueDoc, renderQueue } from './doc.js'

export const advance = defineCommand({
  path: 'queue advance',
  summary: 'Close the head’s turn (done, or failed with a reason) and move on',
  description:
    'The head is the first task waiting its turn. Its line becomes `- [x]` (done) or, with --fail, `- [-] <ref> — <reason>`, and ## Log gains a line naming who closed it and how. The task itself is not changed (close it with task done). A queue with no task waiting is a conflict (exit 5), and so is a head that names no task (removed, or never there) unless --fail closes its turn.',
  args: [arg('queue', 'the queue')],
  flags: { fail: str('the head’s turn failed, for this reason (logged)', { valueName: 'REASON' }) },
  json: 'queue/v1',
  mutates: true,
  examples: ['dacli queue advance release-1.2', 'dacli queue advance release-1.2 --fail "flaky upstream API"'],
  async run(ctx, input) {
    const fail = input.flags.fail === undefined ? null : checkTitle(input.flags.fail, '--fail reason')
    const store = await ctx.store()
    const who = await ctx.identity()
    const r = await advanceQueue(store, input.args.queue, who.id, fail)
    const data = queueDoc(r.queue, 'advance', { advanced: r.closed })
    return {
      data,
      human(out) {
        out.line(
          `${fail === null ? 'done' : 'failed'}: ${shortRef(itemRef(r.closed))}${fail === null ? '' : ` — ${fail}`}`,
        )
        renderQueue(out, data)
      },
    }
  },
})
