import { count } from '../../base/text.js'
import { defineCommand, optionalArg } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { shortRef } from '../../clikit/text.js'
import { listNotes, listRisks } from '../../domain/notes/notes.js'
import { type LintFinding, lintDecision, lintRisk, lintTask } from '../../domain/plan/lint.js'
import { projectFilter } from '../../format/ids.js'
import type { TaskRecord } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import type { LintDocT } from './json.js'

const toLint = (t: TaskRecord) => ({
  ref: qualifiedRef(t),
  title: t.title,
  status: t.status,
  criteria: t.acceptance.map((a) => a.text),
})

export const lint = defineCommand({
  path: 'lint',
  summary: 'Find vague plans: tasks without criteria, ambiguous wording, unexplained decisions, unmanaged risks',
  description:
    'Checks open work for acceptance criteria (INVEST: testable), files that cannot be read (with doctor\'s code: invalid-field, invalid-id …), ambiguous wording in titles and criteria ("properly", "fast", "etc.", "as needed", "user-friendly" …), decisions without a rejected alternative and rank 1–2 risks without an action. Exit 0 whatever it finds.',
  args: [optionalArg('ref', 'only this task')],
  flags: { project: str('only this project', { valueName: 'SLUG' }) },
  json: 'lint/v1',
  mutates: false,
  async run(ctx, input) {
    const project = projectFilter(input.flags.project)
    const store = await ctx.store()
    const findings: LintFinding[] = []
    const ref = input.args.ref
    if (project !== undefined) store.requireProject(project)
    if (ref !== undefined) {
      findings.push(...lintTask(toLint(await store.readTask(ref, project === undefined ? {} : { prefer: project }))))
    } else {
      // Every task's summary and criteria, each file parsed at most once (through the index; no full records).
      const listing = await store.listWithCriteria(project)
      for (const t of listing.tasks) {
        if (t.status !== 'done')
          findings.push(...lintTask({ ref: qualifiedRef(t), title: t.title, status: t.status, criteria: t.criteria }))
      }
      const notes = await listNotes(store, project)
      for (const n of notes.notes.filter((x) => x.kind === 'decision')) {
        findings.push(...lintDecision({ subject: `${n.project}/${n.slug}`, rejected: n.sections.rejected }))
      }
      const risks = await listRisks(store, project)
      for (const r of risks.risks)
        findings.push(...lintRisk({ subject: `${r.project}/${r.slug}`, rank: r.rank, action: r.action }))
      // A file that could not be read (a wrong-typed field, an invalid id …) is a plan nobody can act on.
      for (const b of [...listing.broken, ...notes.broken, ...risks.broken]) {
        findings.push({ code: b.code, severity: 'error', subject: b.path, message: b.reason })
      }
    }
    const data: LintDocT = { schema: 'lint/v1', findings }
    return {
      data,
      human(out) {
        if (findings.length === 0) {
          out.line('clean: no findings')
          return
        }
        const sev = (f: LintFinding) =>
          out.style(f.severity === 'error' ? 'red' : f.severity === 'warning' ? 'yellow' : 'dim', f.severity)
        out.table(
          ['SEVERITY', 'CODE', 'SUBJECT', 'FINDING'],
          // A task by its short reference, as every table names one: the FINDING column keeps the room.
          findings.map((f) => [sev(f), f.code, shortRef(f.subject), f.message]),
        )
        const by = (s: string) => findings.filter((f) => f.severity === s).length
        out.line(
          out.style(
            'dim',
            `${count(findings.length, 'finding')}: ${count(by('error'), 'error')}, ${count(by('warning'), 'warning')}, ${by('info')} info`,
          ),
        )
      },
    }
  },
})
