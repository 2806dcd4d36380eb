import { cmd } from '../../base/commands.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { bool, str } from '../../clikit/flags.js'
import { openPull, planOpen } from '../../domain/delivery/prchange.js'
import { prBrief, previewDoc, renderPreview, taskBrief } from './docs.js'
import type { PrChangeDocT } from './json.js'

export const open = defineCommand({
  path: 'pr open',
  summary: "Open a pull request from the task's branch (pushing it first), or reuse the open one",
  description:
    "Pushes the task's branch (its worktree's, or --branch) to origin with the system git, then opens a pull request into --base (default: trunk — the origin remote's HEAD, else main) titled with the task's title; the body holds the task's why, context, acceptance criteria and its marker, so `pr diagnose` finds the pull request again by its body too. The task's open pull request (by its branch, a link, or its marker) is reused (action reused), never duplicated: its branch, when it is here, is pushed to it (commits made since it was opened reach it); a --base other than its base, or a --branch other than its head, is exit 5. A branch that is not here is exit 4. The task's log gains `pr-opened #N <url>` once (when you may rewrite the task), which `metrics` and `overview` count as the pr_open state. --dry-run makes the same reads and refusals and prints pr-change-preview/v1: what it would push (asked of the remote with git push --dry-run), the pull request it would open (as it would be sent) or reuse, and whether the log would note it; nothing is pushed, no write request reaches GitHub, the task is not touched. Needs a token (GH_TOKEN, GITHUB_TOKEN or `gh auth token`).",
  args: [arg('ref', 'the task')],
  flags: {
    base: str('the branch to merge into', { valueName: 'BRANCH', defaultText: 'trunk' }),
    branch: str("the branch holding the task's work", { valueName: 'NAME', defaultText: "the task's worktree branch" }),
    draft: bool('open it as a draft'),
    'dry-run': bool('say what it would push and open; change nothing'),
  },
  json: 'pr-change/v1',
  jsonVariants: ['pr-change-preview/v1'],
  mutates: true,
  idempotent: true,
  examples: [
    'dacli pr open alpha/7 --dry-run',
    'dacli pr open alpha/7',
    'dacli pr open alpha/7 --base release --draft',
  ],
  async run(ctx, input) {
    const f = input.flags
    const opts = {
      draft: f.draft === true,
      ...(f.base === undefined ? {} : { base: f.base }),
      ...(f.branch === undefined ? {} : { branch: f.branch }),
    }
    if (f['dry-run'] === true) {
      const doc = previewDoc(await planOpen(ctx, input.args.ref, await ctx.identity(), opts))
      return { data: doc, human: (out) => renderPreview(out, doc) }
    }
    const o = await openPull(ctx, input.args.ref, await ctx.identity(), opts)
    const data: PrChangeDocT = {
      schema: 'pr-change/v1',
      version: 1,
      task: taskBrief(o.task),
      repository: o.repo,
      action: o.action,
      pushed: o.pushed,
      pr: prBrief(o.pull),
      merge: null,
      task_status: o.task.status,
      landed: null,
    }
    return {
      data,
      text: `${o.action} #${o.pull.number} ${o.pull.url} (${o.pull.head.ref} → ${o.pull.base.ref})${o.pushed === null ? '' : `; branch ${o.pushed}`}\n  next: ${cmd(`pr wait ${data.task.ref} --until ready`)}`,
    }
  },
})
