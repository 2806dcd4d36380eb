import { arg, defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { dismissEvent } from '../../domain/events/dismiss.js'
import { qualifiedRef } from '../../format/refs.js'
import type { EventDismissDocT } from './json.js'

export const dismiss = defineCommand({
  path: 'events dismiss',
  summary: 'Dismiss a pending event that should never apply, saying why',
  description:
    'Marks a pending event dismissed (applied: dismissed, with who, when and why), so it stops being pending: a proposal that can never apply (its task gone or done, or held by someone else — `sync` names these), or a question that no longer matters (its task is released when the question was what blocked it). Allowed to the owner of the event’s task — an rw identity acts as owner of an unowned task or of a task that is gone — and to root. An applied event cannot be dismissed (exit 3); dismissing one twice changes nothing.',
  args: [arg('id', 'the event (its id or a unique prefix; a question’s q-<ULID>)')],
  flags: { reason: str('why it is dismissed (kept in the event)', { required: true }) },
  json: 'event-dismiss/v1',
  mutates: true,
  idempotent: true,
  examples: ['dacli events dismiss 01J9ZK3 --reason "p/002 is held by a-worker-x7; claim another task"'],
  async run(ctx, input) {
    const store = await ctx.store()
    const r = await dismissEvent(store, await ctx.identity(), input.args.id, input.flags.reason)
    const data: EventDismissDocT = {
      schema: 'event-dismiss/v1',
      event_id: r.event.id,
      kind: r.event.event_kind,
      outcome: r.outcome,
      dismissed: r.dismissed,
      about: r.event.about === null ? null : { id: r.event.about, ref: r.task === null ? null : qualifiedRef(r.task) },
      task:
        r.event.event_kind === 'question' && r.task !== null
          ? { ref: qualifiedRef(r.task), status: r.task.status, unblocked: r.unblocked }
          : null,
    }
    return {
      data,
      human(out) {
        if (r.outcome === 'unchanged')
          out.line(
            `unchanged: ${data.event_id} was already dismissed by ${data.dismissed.by} (${data.dismissed.reason ?? ''})`,
          )
        else out.line(`dismissed ${data.kind} ${out.style('bold', data.event_id)}: ${data.dismissed.reason ?? ''}`)
        if (data.task?.unblocked) out.line(`${data.task.ref} is unblocked (now ${data.task.status})`)
      },
    }
  },
})
