// The queue/v1 document from a queue, and its human rendering.

import type { Out } from '../../clikit/io.js'
import { shortRef } from '../../clikit/text.js'
import type { Queue, QueueItem } from '../../domain/queue/queues.js'
import { qualifiedRef } from '../../format/refs.js'
import type { QueueDocT } from './json.js'

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
      ref: qualifiedRef(i.task),
      id: i.task.id,
      title: i.task.title,
      status: i.task.status,
      turn: i.turn,
      reason: i.reason,
    })),
    head: head === undefined ? null : qualifiedRef(head.task),
    counts,
    added: extra.added ?? [],
    advanced:
      a === undefined
        ? null
        : { ref: qualifiedRef(a.task), turn: a.turn === 'failed' ? 'failed' : 'done', reason: a.reason },
    log: q.log,
  }
}

const MARK = { waiting: '[ ]', done: '[x]', failed: '[-]' }

export function renderQueue(out: Out, d: QueueDocT): void {
  out.line(
    `${out.style('bold', d.title)}  ${out.style('dim', `${d.slug} · ${d.counts.waiting} waiting, ${d.counts.done} done, ${d.counts.failed} failed`)}`,
  )
  for (const i of d.items) {
    const line = `  ${MARK[i.turn]} ${i.n}. ${shortRef(i.ref)}  ${i.title}  ${out.style('dim', i.status)}${i.reason ? ` — ${i.reason}` : ''}`
    out.line(i.turn === 'waiting' && d.head === i.ref ? out.style('bold', line) : line)
  }
}
