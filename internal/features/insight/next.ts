import { defineCommand } from '../../clikit/command.js'
import { bool, int, str } from '../../clikit/flags.js'
import { checkCursor, pageFlags, pageOf } from '../../clikit/pageflags.js'
import { oneDecimal, shortRef } from '../../clikit/text.js'
import { describeHold } from '../../domain/plan/readiness.js'
import { describeHeld, loadOverlaps } from '../../domain/task/footprint.js'
import { loadPlan, readyFrontier, remoteClaims } from '../../domain/task/planview.js'
import { projectFilter } from '../../format/ids.js'
import { qualifiedRef } from '../../format/refs.js'
import { labelFilterFlag, withLabels } from '../shared/labels.js'
import type { NextDocT } from './json.js'

export const next = defineCommand({
  path: 'next',
  summary: 'What to work on next: the ready frontier, best first',
  description:
    'Ready means open, not wont, and no dependency holding its start: an FS predecessor must be done, an SS predecessor must have started (active or done); FF and SF links constrain the finish and never hold a start. Tasks another clone holds a live claim on (the remote’s claims as last fetched by claims list, a claim or --fetch) are left out. Ordered by MoSCoW priority, then critical-path slack (when every open and active task in scope has an estimate), then sequence; never a could while a must is ready. An empty frontier is explained. Work never collides: a ready task whose paths (touches: globs, and for a task with a worktree the files its branch changed) overlap those of an active task held by someone else, or of a task proposed above it in the same answer, is not offered but listed under held_back with the task and paths it overlaps.',
  args: [],
  flags: {
    project: str('only this project', { valueName: 'SLUG' }),
    parallel: int('how many tasks to propose', { min: 1, max: 1000, defaultText: '3' }),
    label: labelFilterFlag,
    fetch: bool('fetch the remote’s claims first'),
    ...pageFlags,
  },
  json: 'next/v1',
  mutates: false,
  common: true,
  examples: ['dacli next', 'dacli next --project ledger --parallel 5 --json', 'dacli next --label backend'],
  async run(ctx, input) {
    const project = projectFilter(input.flags.project)
    checkCursor(input.flags.cursor) // before any note: a failure's stderr under --json is the one error envelope
    const parallel = input.flags.parallel ?? 3
    const store = await ctx.store()
    const labelled = withLabels(input.flags.label)
    const loaded = await loadPlan(store, project)
    const plan = input.flags.label === undefined ? loaded : { ...loaded, tasks: loaded.tasks.filter(labelled) }
    ctx.notes.skipped(plan.broken)
    const elsewhere = await remoteClaims(
      store,
      ctx.env,
      ctx.now(),
      input.flags.fetch === true ? { label: 'dacli next (without --fetch: the claims as last fetched)' } : null,
    )
    const overlaps = await loadOverlaps(store, ctx.env, (await ctx.identity()).id, elsewhere)
    const f = readyFrontier(plan, parallel, project, elsewhere, (t, picked) => overlaps.hold(t, picked))
    const left = plan.tasks.filter((t) => t.status === 'open' && elsewhere.has(t.id)).length
    if (left > 0) ctx.notes.note(`left out ${left} open task${left === 1 ? '' : 's'} claimed in another clone`)
    if (f.slack === null && f.ready.length > 1)
      ctx.notes.note('not every task in scope has an estimate: ordered by priority and sequence only')
    // Ready is bounded by --parallel; what waits and what is held back can be every other task: paged.
    const waiting = pageOf(f.waiting, input.flags)
    const held = input.flags.limit === undefined ? f.held : f.held.slice(0, input.flags.limit)
    const data: NextDocT = {
      schema: 'next/v1',
      project: project ?? null,
      parallel,
      ready: f.ready.map((t) => ({
        id: t.id,
        ref: qualifiedRef(t),
        title: t.title,
        priority: t.priority,
        slack: f.slack?.get(t.id) ?? null,
        critical: f.critical.has(t.id),
        command: `dacli task claim ${qualifiedRef(t)}`,
      })),
      waiting: waiting.items.map((t) => {
        const name = (id: string) => {
          const x = plan.byId.get(id) ?? plan.target(t, id)
          return x ? qualifiedRef(x) : id
        }
        const on: string[] = []
        const holds = f.holdsOf(t).map((h) => {
          const ref = name(h.on)
          on.push(ref)
          return { ref, type: h.type, status: h.status, needs: h.needs }
        })
        return { ref: qualifiedRef(t), on, holds }
      }),
      held_back: held.map((h) => ({
        id: h.task.id,
        ref: qualifiedRef(h.task),
        title: h.task.title,
        priority: h.task.priority,
        reason: h.why.map((w) => describeHeld(w)).join('; '),
        overlaps: h.why.map((w) => ({
          id: w.id,
          ref: w.ref,
          holder: w.holder,
          kind: w.kind,
          paths: w.paths,
          touches: w.touches,
        })),
      })),
      held_back_total: f.held.length,
      explanation: f.explanation,
      ...waiting.page,
    }
    return {
      data,
      human(out) {
        const held = () => {
          for (const h of data.held_back.slice(0, 5))
            out.line(
              out.style(
                'dim',
                `held back: ${shortRef(h.ref)} — ${h.overlaps.map((o) => describeHeld(o, shortRef)).join('; ')}`,
              ),
            )
          if (data.held_back.length > 5)
            out.line(out.style('dim', `held back: ${data.held_back.length - 5} more (--json)`))
        }
        if (data.ready.length === 0) {
          out.line(data.explanation ?? 'nothing is ready')
          held()
          for (const w of data.waiting.slice(0, 5))
            out.line(
              out.style(
                'dim',
                `  ${shortRef(w.ref)} waits on ${w.holds.map((h) => describeHold(h, shortRef(h.ref))).join('; ')}`,
              ),
            )
          return
        }
        data.ready.forEach((r, i) => {
          const why = r.critical
            ? out.style('red', 'critical path')
            : r.slack !== null
              ? `slack ${oneDecimal(r.slack)}`
              : ''
          out.line(`${i + 1}. ${out.style('bold', shortRef(r.ref))}  ${r.priority ?? '-'}  ${why}`.trimEnd())
          out.line(`   ${r.title}`)
        })
        for (const w of data.waiting.slice(0, 3))
          out.line(
            out.style(
              'dim',
              `waiting: ${shortRef(w.ref)} — ${w.holds.map((h) => describeHold(h, shortRef(h.ref))).join('; ')}`,
            ),
          )
        if (data.waiting.length > 3) out.line(out.style('dim', `waiting: ${data.waiting.length - 3} more (--json)`))
        held()
        out.line(out.style('dim', `start: dacli task claim ${shortRef(data.ready[0]?.ref ?? '')}`))
      },
    }
  },
})
