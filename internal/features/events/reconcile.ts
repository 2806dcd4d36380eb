import { UsageError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import { bool, oneOf, str } from '../../clikit/flags.js'
import {
  ARCHIVABLE,
  applyJournal,
  DEFAULT_ARCHIVE,
  JOURNAL_CLASSES,
  type JournalPlan,
  planJournal,
} from '../../domain/delivery/journal.js'
import { safeSegment } from '../../format/ids.js'
import type { EventJournalDocT } from './json.js'

export const reconcile = defineCommand({
  path: 'events reconcile',
  summary: 'Class the pending events (applied, superseded, orphaned, unverifiable) and archive the chosen classes',
  description:
    "Every pending proposal is classed: applied (its effect is already in the task — the log names the event, or the task is already where it asks), superseded (a later event of the same kind by the same author about the same thing), orphaned (its task is gone), unverifiable (its signature does not show its author wrote it), or live (it may still apply; never archived). The preview prints a plan id covering the classification and the classes to archive (--archive, repeatable; default applied, superseded and orphaned). --apply-safe PLAN-ID recomputes (a different id: the journal changed — exit 5, nothing archived) and moves those events' files to .dacli/archive/events/<date>/: never deleted, no longer pending. --project P limits the plan to P's events (those about its tasks, or naming it); an event whose task is gone belongs to no project.",
  args: [],
  flags: {
    archive: oneOf(ARCHIVABLE, 'class to archive', {
      repeatable: true,
      defaultText: 'applied, superseded, orphaned',
    }),
    project: str('only the events of this project (its tasks’, or naming it)', { valueName: 'SLUG' }),
    'dry-run': bool('preview'),
    'apply-safe': str('plan id', { valueName: 'PLAN-ID' }),
  },
  json: 'event-journal-reconciliation/v1',
  mutates: false,
  mutatesWith: ['apply-safe'],
  // Applying moves events out of the journal (into the archive): no longer listed, no longer pending.
  destructive: true,
  examples: [
    'dacli events reconcile',
    'dacli events reconcile --archive orphaned --archive unverifiable',
    'dacli events reconcile --project ledger',
    'dacli events reconcile --apply-safe ep-3f9a1c0b2e4d5f60',
  ],
  async run(ctx, input) {
    const store = await ctx.store()
    const classes = input.flags.archive ?? DEFAULT_ARCHIVE
    const plan = input.flags['apply-safe']
    if (plan !== undefined && input.flags['dry-run'] === true) {
      throw new UsageError('--dry-run and --apply-safe exclude each other: give one', {
        details: { conflicting_flags: ['--dry-run', '--apply-safe'] },
      })
    }
    const project = input.flags.project === undefined ? null : safeSegment(input.flags.project, 'project slug')
    let p: JournalPlan
    let archived: EventJournalDocT['archived'] = null
    let failed: EventJournalDocT['failed'] = null
    if (plan === undefined) p = await planJournal(store, classes, project)
    else ({ plan: p, archived, failed } = await applyJournal(store, classes, plan, ctx.now(), project))
    const data: EventJournalDocT = {
      schema: 'event-journal-reconciliation/v1',
      version: 1,
      dry_run: plan === undefined,
      plan_id: p.plan_id,
      project,
      archive_classes: [...p.archive],
      counts: Object.fromEntries(
        JOURNAL_CLASSES.map((c) => [c, p.classified.filter((x) => x.class === c).length]),
      ) as EventJournalDocT['counts'],
      events: p.classified.map((c) => ({
        id: c.event.id,
        kind: c.event.event_kind,
        created: c.event.created,
        created_by: c.event.created_by,
        about: c.event.about,
        project: c.project,
        path: c.event.path,
        class: c.class,
        reason: c.reason,
      })),
      archived,
      failed,
    }
    return {
      data,
      // Like `cleanup --apply-safe`: the document is printed either way, and an event that could not be moved is exit 1.
      verdict: failed !== null && failed.length > 0 ? 'failure' : null,
      human(out) {
        if (data.events.length === 0) out.line('no pending events')
        for (const e of data.events)
          out.line(`${out.style('bold', e.class)}  ${e.id} ${e.kind} by ${e.created_by}  ${out.style('dim', e.reason)}`)
        for (const f of failed ?? []) out.line(out.style('red', `not archived: ${f.id} (${f.class}) — ${f.error}`))
        // A preview names the apply only when it would archive something: an empty plan has no next step.
        const toArchive = data.events.filter((e) =>
          (data.archive_classes as readonly string[]).includes(e.class),
        ).length
        if (archived !== null) out.line(`archived ${archived.length} event(s)`)
        else if (toArchive === 0)
          out.line(`plan ${data.plan_id}: nothing to archive (classes ${data.archive_classes.join(', ')})`)
        else
          out.line(
            `plan ${data.plan_id} (archives ${toArchive} ${data.archive_classes.join(', ')}): --apply-safe ${data.plan_id}`,
          )
      },
    }
  },
})
