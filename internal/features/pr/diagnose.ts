import { arg, defineCommand } from '../../clikit/command.js'
import { diagnoseTask } from '../../domain/delivery/pulls.js'
import { diagnosisDoc, renderDiagnosis } from './docs.js'

export const diagnose = defineCommand({
  path: 'pr diagnose',
  summary: "Why a task's pull request is not merged yet: one code, the evidence, the next action",
  description:
    "Finds the task's pull request — from its branch (its worktree's), else a pull request URL written in the task, else the task's marker in a pull request body — in the project's linked repository (else the origin remote's), and reports one code: no_pr, merged, closed, draft, merge_conflict, stale_base, checks_pending, checks_failed, changes_requested, approval_pending or ready — the first that applies, in that order. The evidence names the failing or pending checks, the reviewers, and the commits the base has that the head lacks. Reads only: nothing is written, locally or on GitHub.",
  args: [arg('task', 'the task')],
  flags: {},
  json: 'pr-diagnosis/v1',
  mutates: false,
  examples: ['dacli pr diagnose alpha/7', 'dacli pr diagnose 7 --json'],
  async run(ctx, input) {
    const d = await diagnoseTask(ctx, input.args.task)
    const data = diagnosisDoc(d, ctx.now())
    return { data, human: (out) => renderDiagnosis(out, data) }
  },
})
