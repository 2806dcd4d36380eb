// The queue/v1 document from a queue, and its human rendering.

import type { Out } from '../../clikit/io.js'
import { shortRef } from '../../clikit/text.js'
import type { Queue, QueueItem } from '../../domain/queue/queues.js'
import type { TaskSummary } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import type { QueueDocT } from './json.js'

/** An item's reference: the task's qualified one, or as written when it names no task. */
export const itemRef = (i: { task: TaskSummary | null; written: string }) =>
  i.task === null ? i.written : qualifiedRef(i.task)

export function queueDoc(
  q: Queue,
  action: QueueDocT['action'],
  extra: { added?: string[]; advanced?: QueueItem } = {},
): QueueDocT {
  const counts = { waiting: 0, done: 0, failed: 0 }
  for (const i of q.items) counts[i.turn]++
  const head = q.items.find((i) => i.turn === 'waiting')
  const a = extra.advanced
  return {
    schema: 'queue/v1',
    action,
    slug: q.slug,
    title: q.title,
    path: q.path,
    items: q.items.map((i) => ({
      n: i.n,
      ref: itemRef(i),
      id: i.task?.id ?? null,
      title: i.task?.title ?? null,
      status: i.task?.status ?? null,
      dangling: i.dangling,
      turn: i.turn,
      reason: i.reason,
    })),
    head: head === undefined ? null : itemRef(head),
    counts,
    added: extra.added ?? [],
    advanced:
      a === undefined ? null : { ref: itemRef(a), turn: a.turn === 'failed' ? 'failed' : 'done', reason: a.reason },
    log: q.log,
  }
}

const MARK = { waiting: '[ ]', done: '[x]', failed: '[-]' }

export function renderQueue(out: Out, d: QueueDocT): void {
  out.line(
    `${out.style('bold', d.title)}  ${out.style('dim', `${d.slug} · ${d.counts.waiting} waiting, ${d.counts.done} done, ${d.counts.failed} failed`)}`,
  )
  for (const i of d.items) {
    const what =
      i.dangling === null
        ? `${i.title}  ${out.style('dim', i.status ?? '')}`
        : out.style('yellow', `names no task: ${i.dangling}`)
    const line = `  ${MARK[i.turn]} ${i.n}. ${shortRef(i.ref)}  ${what}${i.reason ? ` — ${i.reason}` : ''}`
    out.line(i.turn === 'waiting' && d.head === i.ref ? out.style('bold', line) : line)
  }
}
