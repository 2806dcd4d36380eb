import { classifiedError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import { shortRef } from '../../clikit/text.js'
import { queueSlugs, readQueue } from '../../domain/queue/queues.js'
import { itemRef } from './doc.js'
import type { QueueListDocT } from './json.js'

export const list = defineCommand({
  path: 'queue list',
  summary: 'Every queue with how many tasks wait their turn',
  description:
    'One line per .dacli/queues/<queue>.md; a file that cannot be read (a line that is not an item) is listed under skipped with the reason.',
  args: [],
  flags: {},
  json: 'queue-list/v1',
  mutates: false,
  examples: ['dacli queue list'],
  async run(ctx) {
    const store = await ctx.store()
    const data: QueueListDocT = { schema: 'queue-list/v1', queues: [], skipped: [] }
    for (const slug of queueSlugs(store)) {
      try {
        const q = await readQueue(store, slug)
        const count = (t: string) => q.items.filter((i) => i.turn === t).length
        const head = q.items.find((i) => i.turn === 'waiting')
        data.queues.push({
          slug,
          title: q.title,
          total: q.items.length,
          waiting: count('waiting'),
          done: count('done'),
          failed: count('failed'),
          head: head === undefined ? null : itemRef(head),
        })
      } catch (e) {
        if (classifiedError(e) === null) throw e
        const reason = e instanceof Error ? e.message : String(e)
        data.skipped.push({ slug, path: `.dacli/queues/${slug}.md`, reason })
        ctx.notes.warn(`skipped queue ${slug}: ${reason}`)
      }
    }
    return {
      data,
      human(out) {
        if (data.queues.length === 0 && data.skipped.length === 0)
          out.line('no queues yet (dacli queue add <queue> <ref>…)')
        for (const q of data.queues)
          out.line(
            `${out.style('bold', q.slug)}  ${q.title}  ${out.style('dim', `${q.waiting} waiting, ${q.done} done, ${q.failed} failed`)}${q.head ? `  next: ${shortRef(q.head)}` : ''}`,
          )
        for (const s of data.skipped)
          out.line(`${out.style('bold', s.slug)}  ${out.style('red', `cannot be read: ${s.reason}`)}`)
      },
    }
  },
})
