import { defineCommand, flagStr, optionalArg } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { type LintFinding, lintDecision, lintRisk, lintTask } from '../../engines/lint.js'
import { fileRefOf, listNotes, listRisks, type TaskRecord } from '../../store/index.js'
import { safeSegment } from '../../store/paths.js'
import type { LintDocT } from './json.js'
import { refOf } from './plan.js'

const toLint = (t: TaskRecord) => ({
  ref: refOf(t),
  title: t.title,
  status: t.status,
  criteria: t.acceptance.map((a) => a.text),
})

export const lint = defineCommand({
  path: 'lint',
  summary: 'Find vague plans: tasks without criteria, ambiguous wording, unexplained decisions, unmanaged risks',
  description:
    'Checks open work for acceptance criteria (INVEST: testable), ambiguous wording in titles and criteria ("properly", "fast", "etc.", "as needed", "user-friendly" …), decisions without a rejected alternative and rank 1–2 risks without an action. Exit 0 whatever it finds.',
  args: [optionalArg('ref', 'only this task')],
  flags: { project: str('only this project', { valueName: 'SLUG' }) },
  json: 'lint/v1',
  mutates: false,
  async run(ctx, input) {
    const project = flagStr(input, 'project')
    if (project !== undefined) safeSegment(project, 'project slug')
    const store = await ctx.store()
    const findings: LintFinding[] = []
    const ref = input.args.ref
    if (ref !== undefined) {
      findings.push(...lintTask(toLint(await store.readTask(ref, project === undefined ? {} : { prefer: project }))))
    } else {
      const listing = await store.listTasks(project)
      for (const t of listing.tasks.filter((x) => x.status !== 'done')) {
        findings.push(...lintTask(toLint(await store.readTaskFile(fileRefOf(store.root, t)))))
      }
      for (const n of (await listNotes(store, project)).notes.filter((x) => x.kind === 'decision')) {
        findings.push(...lintDecision({ subject: `${n.project}/${n.slug}`, rejected: n.sections.rejected }))
      }
      for (const r of (await listRisks(store, project)).risks)
        findings.push(...lintRisk({ subject: `${r.project}/${r.slug}`, rank: r.rank, action: r.action }))
    }
    const data: LintDocT = { schema: 'lint/v1', findings }
    return {
      data,
      human(out) {
        if (findings.length === 0) out.line('clean')
        for (const f of findings)
          out.line(`${out.style(f.severity === 'warning' ? 'yellow' : 'dim', f.code)}  ${f.subject}  ${f.message}`)
      },
    }
  },
})
