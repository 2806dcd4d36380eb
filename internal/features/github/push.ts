import { arg, defineCommand } from '../../clikit/command.js'
import { count } from '../../clikit/text.js'
import { fetchIssues, openOutbound, withRepoLock } from './flow.js'
import { PUSH_FLAGS } from './options.js'
import { applyPush, planPush, pushPreviewDoc, pushResultDoc } from './outbound.js'
import { renderPush } from './render.js'

export const push = defineCommand({
  path: 'github push',
  summary: 'Project tasks onto GitHub issues: create, update, close (preview with --dry-run)',
  description:
    "One issue per task, found again by the task's github block, else by a hidden marker in the issue body (<!-- dacli:<task-id> ws:<workspace-id> -->, read from the issues list), else created. dacli sets the status:<folder> and priority:<p> labels, closes the issue of a done task (and reopens it if the task is reopened), and rewrites title and body only of issues it authored. The issue number is written back into the task's github block. An interrupted push converges when re-run, without duplicates; a re-run with nothing new changes nothing. The repository's visibility is checked live every time: a public repository without recorded consent is refused (exit 3). Without REF or --since every task of the project is pushed. --json prints github-push-result/v1, or github-push-preview/v1 with --dry-run.",
  args: [
    arg('project', 'the project slug (linked with `github link`)'),
    {
      name: 'ref',
      description: 'a task to push, by reference (default: every task of the project)',
      required: false,
      rest: true,
    },
  ],
  flags: PUSH_FLAGS,
  json: 'github-push-result/v1',
  jsonVariants: ['github-push-preview/v1'],
  mutates: true,
  idempotent: true,
  examples: [
    'dacli github push ledger --dry-run',
    'dacli github push ledger',
    'dacli github push ledger 7 12 --since 2d',
  ],
  async run(ctx, input) {
    const opened = await openOutbound(ctx, input, 'github push')
    const { o, project, p, repo, wsId } = opened
    let { tasks } = opened
    if (o.dryRun) {
      const plan = planPush(tasks, await fetchIssues(p, repo), repo, wsId)
      const data = pushPreviewDoc(project, repo, plan, o)
      return {
        data,
        human(out) {
          renderPush(out, data)
          out.line(out.style('dim', 'dry run: nothing was written'))
        },
      }
    }
    const who = await ctx.identity()
    const data = await withRepoLock(p, repo, async () => {
      // Under the lock, re-read: another push may have finished while we waited.
      tasks = await opened.reload()
      const plan = planPush(tasks, await fetchIssues(p, repo), repo, wsId)
      const busy = plan.steps.filter((s) => s.action !== 'unchanged').length
      if (busy > 0) p.say(`push: ${count(busy, 'issue')} to write on ${repo}…`)
      const items = await applyPush(
        { store: p.store, client: p.session.client, actor: who.id, repo, wsId, say: p.say },
        plan,
      )
      return pushResultDoc(project, repo, items, plan)
    })
    return { data, human: (out) => renderPush(out, data) }
  },
})
