import { arg, defineCommand } from '../../clikit/command.js'
import { shortRef } from '../../clikit/text.js'
import { claimedElsewhere } from '../../domain/claims/arbiter.js'
import { describeHold, readiness } from '../../domain/plan/readiness.js'
import { readQueue } from '../../domain/queue/queues.js'
import { describeHeld, loadOverlaps } from '../../domain/task/footprint.js'
import { depsOf, loadPlan, refIn } from '../../domain/task/planview.js'
import { qualifiedRef } from '../../format/refs.js'
import type { QueueNextDocT } from './json.js'

export const next = defineCommand({
  path: 'queue next',
  summary: 'The queue’s first task that is ready and not held back',
  description:
    'Goes down the tasks waiting their turn, in the queue’s order, and offers the first that is open, has no dependency holding its start, is not claimed in another clone, and whose paths do not overlap an active task held by someone else (as dacli next decides). The ones passed over are listed with why (a reference that names no task, removed or never there, among them). Claim the task with task claim; close its turn with queue advance.',
  args: [arg('queue', 'the queue')],
  flags: {},
  json: 'queue-next/v1',
  mutates: false,
  examples: ['dacli queue next release-1.2 --json'],
  async run(ctx, input) {
    const store = await ctx.store()
    const q = await readQueue(store, input.args.queue)
    const plan = await loadPlan(store)
    const elsewhere = claimedElsewhere(store, ctx.now())
    const overlaps = await loadOverlaps(store, ctx.env, (await ctx.identity()).id, elsewhere)
    const statusOf = (id: string) => plan.byId.get(id)?.status ?? null
    const data: QueueNextDocT = { schema: 'queue-next/v1', queue: q.slug, task: null, skipped: [], explanation: null }
    for (const item of q.items) {
      if (item.turn !== 'waiting') continue
      if (item.task === null) {
        data.skipped.push({ ref: item.written, position: item.n, why: `it names no task: ${item.dangling}` })
        continue
      }
      const t = plan.byId.get(item.task.id) ?? item.task
      const ref = qualifiedRef(t)
      const skip = (why: string) => data.skipped.push({ ref, position: item.n, why })
      if (t.status !== 'open') {
        skip(`it is ${t.status}`)
        continue
      }
      if (t.priority === 'wont') {
        skip('its priority is wont')
        continue
      }
      if (elsewhere.has(t.id)) {
        skip('another clone holds a claim on it')
        continue
      }
      const r = readiness(t, depsOf(plan, t), statusOf)
      if (!r.ready) {
        skip(`it waits: ${r.holds.map((h) => describeHold(h, refIn(plan, h.on))).join('; ')}`)
        continue
      }
      const held = overlaps.hold(t, [])
      if (held !== null) {
        skip(`held back: ${held.map((h) => describeHeld(h)).join('; ')}`)
        continue
      }
      data.task = {
        id: t.id,
        ref,
        title: t.title,
        priority: t.priority,
        position: item.n,
        command: `dacli task claim ${ref}`,
      }
      break
    }
    if (data.task === null) {
      const waiting = q.items.filter((i) => i.turn === 'waiting').length
      data.explanation =
        waiting === 0
          ? `queue ${q.slug} has no task waiting its turn`
          : `none of the ${waiting} task${waiting === 1 ? '' : 's'} waiting ${waiting === 1 ? 'its' : 'their'} turn is ready`
    }
    return {
      data,
      human(out) {
        if (data.task === null) out.line(data.explanation ?? '')
        else {
          out.line(`${data.task.position}. ${out.style('bold', shortRef(data.task.ref))}  ${data.task.title}`)
          out.line(out.style('dim', `start: dacli task claim ${shortRef(data.task.ref)}`))
        }
        for (const s of data.skipped) out.line(out.style('dim', `passed over: ${shortRef(s.ref)} — ${s.why}`))
      },
    }
  },
})
