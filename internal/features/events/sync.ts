import { countWith } from '../../base/text.js'
import { defineCommand } from '../../clikit/command.js'
import { syncEvents } from '../../domain/events/sync.js'
import type { SyncResultDocT } from './json.js'

export const sync = defineCommand({
  path: 'sync',
  summary: 'Apply pending events (proposals, findings) to the tasks you may change',
  description:
    'Applies pending events oldest first to tasks you own, unowned tasks, and tasks owned by read-only identities (which can only move through proposals). A proposal to close still needs every criterion checked. With claims.remote in config.yml, a proposed claim, release or close moves the remote claim ref first, as task claim does: a proposed claim is applied only when that compare-and-swap wins; when another clone holds the task there the proposal is refused (reported in `lost`, settled as dismissed, logged on the task as claim-lost), and an unreachable remote leaves it pending. Idempotent: a second run applies nothing twice. What stays pending is reported with the reason; one that can never apply (its task gone or done, or held by someone else) is marked never_applies, with `dacli events dismiss` as its next action. Questions are not applied by sync: a person answers them (dacli threads --open). A tampered event (checksum mismatch) is reported and never applied.',
  args: [],
  flags: {},
  json: 'sync-result/v1',
  mutates: true,
  idempotent: true,
  async run(ctx) {
    const store = await ctx.store()
    const r = await syncEvents(store, await ctx.identity())
    ctx.notes.skipped(r.skipped)
    const data: SyncResultDocT = { schema: 'sync-result/v1', ...r }
    return {
      data,
      human(out) {
        out.line(
          `sync: ${r.applied.length} applied, ${r.pending.length} left pending${r.lost.length > 0 ? `, ${r.lost.length} claim${r.lost.length === 1 ? '' : 's'} lost` : ''}`,
        )
        for (const l of r.lost) out.line(`  lost ${l.event_id}: ${l.reason}`)
        for (const p of r.pending) {
          out.line(
            `  pending ${p.event_id}: ${p.reason}${p.never_applies ? out.style('yellow', ' — it can never apply') : ''}`,
          )
          for (const n of p.next) out.line(out.style('dim', `    next: ${n}`))
        }
        if (r.open_questions > 0)
          out.line(
            `${countWith(r.open_questions, 'open question', 'waits', 'wait')} for a person: dacli threads --open`,
          )
      },
    }
  },
})
