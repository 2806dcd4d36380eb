import { arg, defineCommand } from '../../clikit/command.js'
import { nextPageCommand } from '../../clikit/pageflags.js'
import { inboundPlan, pullIssues } from '../../domain/github/adoption.js'
import { fetchIssues, prepare, withRepoLock } from '../../domain/github/preflight.js'
import { PULL_FLAGS, readOptions } from './flags.js'
import { adoptionPlanDoc, pullResultDoc, refsOf } from './pulldocs.js'
import { renderPlan, renderPullResult } from './renderpull.js'

export const pull = defineCommand({
  path: 'github pull',
  summary: 'Adopt GitHub issues as tasks (preview with --dry-run)',
  description:
    'Reads every issue of the linked repository and classifies it: create (no similar open or active task), link (an exact title match with an unmapped task), already_mapped, refused (a possible duplicate, or an exact match already taken — these block), skipped (closed, or carrying a dacli marker). With --dry-run it prints the plan (github-adoption-plan/v1: whole-plan counts, pages of --limit items ordered by issue number) and writes nothing, local or remote. Without it the plan is applied — unless any item blocks, in which case nothing is written (exit 3) and the blocking items are listed. An adopted issue becomes a task whose context quotes the issue, attributed to its author; checkboxes under an "Acceptance" heading become unchecked criteria. Only people apply: --json needs --dry-run. GitHub is only read.',
  args: [arg('project', 'the project slug (linked with `github link`)')],
  flags: PULL_FLAGS,
  json: 'github-adoption-plan/v1',
  mutates: true,
  examples: [
    'dacli github pull ledger --dry-run',
    'dacli github pull ledger --dry-run --json --limit 50 --cursor 50',
    'dacli github pull ledger',
  ],
  async run(ctx, input) {
    const o = readOptions(ctx, input, 'github pull', true)
    const project = input.args.project
    const p = await prepare(ctx, project, undefined, { full: o.full })
    const repo = p.linked.repo
    if (o.dryRun) {
      const issues = await fetchIssues(p, repo)
      const { plan, tasks } = await inboundPlan(p, project, repo, issues)
      const data = adoptionPlanDoc(project, repo, plan, o)
      const refs = refsOf(tasks)
      return {
        data,
        human(out) {
          renderPlan(out, data, refs, (c) => nextPageCommand('github pull', input.argv, c))
          out.line(out.style('dim', 'dry run: nothing was written'))
        },
      }
    }
    const who = await ctx.identity()
    const data = await withRepoLock(p, repo, async () => {
      const { plan, adopted } = await pullIssues(p, project, repo, {
        actor: who.id,
        now: ctx.now,
        progress: (l, n) => ctx.notes.progress(l, n),
      })
      return pullResultDoc(project, repo, plan, adopted)
    })
    return { data, human: (out) => renderPullResult(out, data) }
  },
})
