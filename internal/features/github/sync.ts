import { defineCommand } from '../../clikit/command.js'
import { inboundPlan, pullIssues } from '../../domain/github/adoption.js'
import { fetchIssues, withRepoLock } from '../../domain/github/preflight.js'
import { runPush } from '../../domain/github/pushapply.js'
import { afterAdoption, planPush } from '../../domain/github/pushwindow.js'
import { PULL_FLAGS, PUSH_ARGS, PUSH_FLAGS, startOutbound } from './flags.js'
import type { SyncPlanDocT } from './json.js'
import { adoptionPlanDoc, pullResultDoc, refsOf } from './pulldocs.js'
import { pushPreviewDoc, pushResultDoc } from './pushdocs.js'
import { renderPlan, renderPullResult } from './renderpull.js'
import { failedItems, renderPushPreview, renderPushResult } from './renderpush.js'

export const sync = defineCommand({
  path: 'github sync',
  summary: 'Pull, then push: adopt new issues, then project every task (preview with --dry-run)',
  description:
    'Runs `github pull` and then `github push` with one set of flags (the union of both), validated in full before either half starts: a mistyped flag is refused (exit 2) before any API call. The disclosure gate is checked before the pull half writes anything. With --dry-run --json it prints github-sync-plan/v1: the adoption plan (inbound) and the push preview (outbound, with a digest over the whole preview) as the push would run after that pull. --json needs --dry-run; REF and --since narrow the push half.',
  args: PUSH_ARGS,
  flags: { ...PULL_FLAGS, ...PUSH_FLAGS },
  json: 'github-sync-plan/v1',
  mutates: true,
  examples: [
    'dacli github sync ledger --dry-run',
    'dacli github sync ledger --dry-run --json',
    'dacli github sync ledger',
  ],
  async run(ctx, input) {
    const { o, opened } = await startOutbound(ctx, input, 'github sync')
    const { project, p, repo, wsId } = opened
    const { tasks } = opened
    if (o.dryRun) {
      const issues = await fetchIssues(p, repo)
      const { plan, tasks: summaries } = await inboundPlan(p, project, repo, issues)
      const outPlan = planPush({ ...tasks, tasks: afterAdoption(tasks.tasks, plan, repo, o) }, issues, repo, wsId)
      const data: SyncPlanDocT = {
        schema: 'github-sync-plan/v1',
        version: 1,
        project,
        repository: repo,
        inbound: adoptionPlanDoc(project, repo, plan, o),
        outbound: pushPreviewDoc(project, repo, outPlan, o),
      }
      const refs = refsOf(summaries)
      return {
        data,
        human(out) {
          renderPlan(out, data.inbound, refs)
          renderPushPreview(out, data.outbound)
          out.line(out.style('dim', 'dry run: nothing was written'))
        },
      }
    }
    const who = await ctx.identity()
    const data = await withRepoLock(p, repo, async () => {
      const { issues, plan, adopted } = await pullIssues(p, project, repo, {
        actor: who.id,
        now: ctx.now,
        progress: (l, n) => ctx.notes.progress(l, n),
      })
      // GitHub did not change during the pull half (it only reads), so its issue list still holds.
      const pushed = await runPush({ ctx, p, project, repo, wsId, actor: who.id }, await opened.reload(), issues)
      return { pull: pullResultDoc(project, repo, plan, adopted), push: pushResultDoc(project, repo, pushed) }
    })
    return failedItems(ctx.json, data, data.push.outcomes.failed, `github sync ${project}`, (out) => {
      renderPullResult(out, data.pull)
      renderPushResult(out, data.push)
    })
  },
})
