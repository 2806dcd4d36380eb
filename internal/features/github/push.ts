import { defineCommand } from '../../clikit/command.js'
import { nextPageCommand } from '../../clikit/pageflags.js'
import { fetchIssues, withRepoLock } from '../../domain/github/preflight.js'
import { runPush } from '../../domain/github/pushapply.js'
import { planPush } from '../../domain/github/pushwindow.js'
import { PUSH_ARGS, PUSH_FLAGS, startOutbound } from './flags.js'
import { pushPreviewDoc, pushResultDoc } from './pushdocs.js'
import { failedItems, renderPushPreview, renderPushResult } from './renderpush.js'

export const push = defineCommand({
  path: 'github push',
  summary: 'Project tasks onto GitHub issues: create, update, close (preview with --dry-run)',
  description:
    "One issue per task, found again by the task's github block, else by a hidden marker in the issue body (<!-- dacli:<task-id> ws:<workspace-id> -->, read from the issues list), else created. dacli sets the status:<folder> and priority:<p> labels, closes the issue of a done task (and reopens it if the task is reopened) and of a removed one (labelled status:removed), and rewrites title and body only of issues it authored; it writes only what differs. The issue number is written into the task the moment the issue exists. GitHub's failures are retried within the run (server errors and timeouts with backoff, rate limits after the wait GitHub asks for; a create only after proving the first attempt made nothing); an item that still fails is reported with its reason and the push goes on — exit 1 if any failed, and running the push again finishes the job without duplicates. The repository's visibility is checked live every time: a public repository without recorded consent is refused (exit 3). Without REF or --since every task of the project is pushed. A REF naming a removed task pushes its tombstone: its issue is closed. --json prints github-push-result/v1 (each item's outcome: created, updated, closed, unchanged, adopted or failed), or github-push-preview/v1 with --dry-run; a run with failed items is exit 1 with the error/v1 envelope on stderr, the result document in details.result.",
  args: PUSH_ARGS,
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
    const { o, opened } = await startOutbound(ctx, input, 'github push')
    const { project, p, repo, wsId } = opened
    if (o.dryRun) {
      const plan = planPush(opened.tasks, await fetchIssues(p, repo), repo, wsId)
      const data = pushPreviewDoc(project, repo, plan, o)
      return {
        data,
        human(out) {
          renderPushPreview(out, data, (c) => nextPageCommand('github push', input.argv, c))
          out.line(out.style('dim', 'dry run: nothing was written'))
        },
      }
    }
    const who = await ctx.identity()
    // Under the lock, re-read: another push may have finished while we waited.
    const data = await withRepoLock(p, repo, async () =>
      pushResultDoc(
        project,
        repo,
        await runPush({ ctx, p, project, repo, wsId, actor: who.id }, await opened.reload()),
      ),
    )
    return failedItems(ctx.json, data, data.outcomes.failed, `github push ${project}`, (out) =>
      renderPushResult(out, data),
    )
  },
})
