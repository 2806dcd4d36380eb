import { defineCommand } from '../../clikit/command.js'
import { bool, int, str } from '../../clikit/flags.js'
import { oneDecimal, shortRef } from '../../clikit/text.js'
import { describeHold } from '../../domain/plan/readiness.js'
import { loadPlan, readyFrontier, remoteClaims } from '../../domain/task/planview.js'
import { projectFilter } from '../../format/ids.js'
import { qualifiedRef } from '../../format/refs.js'
import type { NextDocT } from './json.js'

export const next = defineCommand({
  path: 'next',
  summary: 'What to work on next: the ready frontier, best first',
  description:
    'Ready means open, not wont, and no dependency holding its start: an FS predecessor must be done, an SS predecessor must have started (active or done); FF and SF links constrain the finish and never hold a start. Tasks another clone holds a live claim on (the remote’s claims as last fetched by claims list, a claim or --fetch) are left out. Ordered by MoSCoW priority, then critical-path slack (when every open and active task in scope has an estimate), then sequence; never a could while a must is ready. An empty frontier is explained.',
  args: [],
  flags: {
    project: str('only this project', { valueName: 'SLUG' }),
    parallel: int('how many tasks to propose', { min: 1, max: 1000, defaultText: '3' }),
    fetch: bool('fetch the remote’s claims first (claims.remote, else origin)'),
  },
  json: 'next/v1',
  mutates: false,
  common: true,
  examples: ['dacli next', 'dacli next --project ledger --parallel 5 --json'],
  async run(ctx, input) {
    const project = projectFilter(input.flags.project)
    const parallel = input.flags.parallel ?? 3
    const store = await ctx.store()
    const plan = await loadPlan(store, project)
    for (const b of plan.broken) ctx.notes.warn(`skipped ${b.path}: ${b.reason} (see dacli doctor)`)
    const elsewhere = await remoteClaims(
      store,
      ctx.env,
      ctx.now(),
      input.flags.fetch === true ? { label: 'dacli next (without --fetch: the claims as last fetched)' } : null,
    )
    const f = readyFrontier(plan, parallel, project, elsewhere)
    const left = plan.tasks.filter((t) => t.status === 'open' && elsewhere.has(t.id)).length
    if (left > 0) ctx.notes.note(`left out ${left} open task${left === 1 ? '' : 's'} claimed in another clone`)
    if (f.slack === null && f.ready.length > 1)
      ctx.notes.note('not every task in scope has an estimate: ordered by priority and sequence only')
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
      waiting: f.waiting.map((w) => {
        const name = (id: string) => {
          const x = plan.byId.get(id) ?? plan.target(w.task, id)
          return x ? qualifiedRef(x) : id
        }
        return {
          ref: qualifiedRef(w.task),
          on: w.on.map(name),
          holds: w.holds.map((h) => ({ ref: name(h.on), type: h.type, status: h.status, needs: h.needs })),
        }
      }),
      explanation: f.explanation,
    }
    return {
      data,
      human(out) {
        if (data.ready.length === 0) {
          out.line(data.explanation ?? 'nothing is ready')
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
        out.line(out.style('dim', `start: dacli task claim ${shortRef(data.ready[0]?.ref ?? '')}`))
      },
    }
  },
})
