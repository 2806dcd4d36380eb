import { count } from '../../base/text.js'
import { defineCommand } from '../../clikit/command.js'
import { vouchedEvents } from '../../domain/identity/vouched.js'
import { STATUSES, type TaskSummary } from '../../format/model.js'
import { conflictCopies } from '../../store/conflicts.js'
import { isOpenQuestion, isPendingProposal } from '../../store/events.js'
import { patchOf } from '../../store/livekept.js'
import type { StatusDocT } from './json.js'

const zero = () => ({ open: 0, active: 0, blocked: 0, done: 0 })

/** A listing's tasks counted by status, once per listing (a server keeps a project's listing until it changes). */
const counted = new WeakMap<readonly TaskSummary[], Readonly<ReturnType<typeof zero>>>()

function countsOf(tasks: readonly TaskSummary[]): Readonly<ReturnType<typeof zero>> {
  const kept = counted.get(tasks)
  if (kept !== undefined) return kept
  // A listing patched from the one before (its summaries replaced by the same tasks in the same status): its counts.
  const from = patchOf(tasks)?.from
  let c = from === undefined ? undefined : counted.get(from)
  if (c === undefined) {
    const n = zero()
    for (const t of tasks) n[t.status]++
    c = n
  }
  counted.set(tasks, c)
  return c
}

export const status = defineCommand({
  path: 'status',
  summary: 'Task counts by status per project, pending events, and who you are',
  args: [],
  flags: {},
  json: 'workspace-status/v1',
  mutates: false,
  async run(ctx) {
    const store = await ctx.store()
    const who = await ctx.identity()
    const { projects, broken } = await store.listProjects()
    const titles = new Map(projects.map((p) => [p.slug, p.title]))
    const totals = zero()
    const rows: StatusDocT['projects'] = []
    const skipped = [...broken]
    // Every project folder whose tasks a listing reads, as `task list` and `next` read them: one whose project file
    // cannot be read (skipped, and said so) still has its tasks counted, under its slug, rather than dropped.
    for (const slug of store.projectSlugs()) {
      const l = await store.projectListing(slug)
      skipped.push(...l.broken)
      const counts = { ...countsOf(l.tasks) }
      for (const s of STATUSES) totals[s] += counts[s]
      rows.push({ slug, title: titles.get(slug) ?? slug, counts })
    }
    // What waits on someone counts only when its author provably wrote it.
    const ev = await vouchedEvents(store, (e) => e.state === 'pending')
    const pending = ev.events.filter(isPendingProposal).length
    const questions = ev.events.filter(isOpenQuestion).length
    const conflicts = conflictCopies(store.dir, { skipEvents: true, watch: store.live }).map((c) => ({
      path: store.rel(c.copy),
      of: store.rel(c.original),
    }))
    ctx.notes.skipped([...skipped, ...ev.broken])
    const data: StatusDocT = {
      schema: 'workspace-status/v1',
      workspace: { id: store.config.id, name: store.config.name, ...store.where() },
      identity: { id: who.id, grant: who.grant, role: who.role },
      projects: rows,
      totals,
      pending_events: pending,
      open_questions: questions,
      record_conflicts: conflicts,
      skipped: [...skipped, ...ev.broken],
    }
    return {
      data,
      human(out) {
        out.line(
          `${out.style('bold', data.workspace.name)}  ${out.style('dim', store.root)}   you are ${who.id} (${who.grant})`,
        )
        if (data.workspace.linked)
          out.line(out.style('dim', `(from the linked worktree ${data.workspace.worktree}: the main worktree's store)`))
        out.line('')
        out.table(
          ['PROJECT', ...STATUSES.map((s) => s.toUpperCase()), 'TITLE'],
          [
            ...rows.map((r) => [r.slug, ...STATUSES.map((s) => String(r.counts[s])), r.title]),
            ['total', ...STATUSES.map((s) => String(totals[s])), ''],
          ],
          { right: [1, 2, 3, 4] },
        )
        if (questions > 0)
          out.line(
            `\n${count(questions, 'open question')} wait${questions === 1 ? 's' : ''} for a person — dacli threads --open`,
          )
        if (pending > 0)
          out.line(
            `\n${pending} pending event${pending === 1 ? '' : 's'} — apply with dacli sync (see dacli events list --pending)`,
          )
        if (conflicts.length > 0) {
          out.line('')
          out.line(
            out.style(
              'red',
              `${conflicts.length} unresolved record conflict cop${conflicts.length === 1 ? 'y' : 'ies'} (left by record pull; record push refuses until resolved):`,
            ),
          )
          for (const c of conflicts) out.line(`  ${c.path}  — theirs, beside ${c.of}`)
          out.line(
            out.style('dim', '  keep what is right in each file, delete the copy, then dacli record (dacli doctor)'),
          )
        }
      },
    }
  },
})
