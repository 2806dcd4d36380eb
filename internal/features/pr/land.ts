import { cmd } from '../../base/commands.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { bool, oneOf } from '../../clikit/flags.js'
import { arbitrationOf } from '../../domain/claims/arbiter.js'
import { landPull, planLand } from '../../domain/delivery/prchange.js'
import { diagnosisDoc, prBrief, previewDoc, renderPreview, taskBrief } from './docs.js'
import type { PrChangeDocT } from './json.js'

const METHODS = ['merge', 'squash', 'rebase'] as const

export const land = defineCommand({
  path: 'pr land',
  summary: "Merge a task's pull request when it is ready, then close the task as `task done` would",
  description:
    "Diagnoses the pull request first (as `pr diagnose`): anything but ready is refused (exit 3, policy not_ready, the diagnosis in details) and nothing is merged. Ready: merges it with --method (default merge) on condition that its head is still the commit diagnosed (a head that moved, or a state that changed, is exit 5 with nothing merged), fetches the base from origin, and closes the task through `task done`'s rules — the criteria must be checked, and the landing is checked on the merge commit, logged `landed <sha>`. Another clone holding the task live on the claims remote refuses it (exit 5) before anything is merged, as it would refuse the close; so does (exit 3, policy unlanded) a task branch here with commits the pull request's head lacks — push them with `pr open` first. A pull request already merged is not merged again: the task is just closed. --dry-run makes the same reads and refusals (for a merged pull request, the close's rules too) and prints pr-change-preview/v1: merge or close, the method and the head it would merge on; nothing is merged and the task is not touched (the landing itself is checked when it closes). Needs a token.",
  args: [arg('ref', 'the task')],
  flags: {
    method: oneOf(METHODS, 'how GitHub merges it', { defaultText: 'merge' }),
    'dry-run': bool('say whether it would merge and close; change nothing'),
  },
  json: 'pr-change/v1',
  jsonVariants: ['pr-change-preview/v1'],
  mutates: true,
  idempotent: true,
  examples: [
    'dacli pr land alpha/7 --dry-run',
    'dacli pr land alpha/7',
    'dacli pr land alpha/7 --method squash --json',
  ],
  async run(ctx, input) {
    const store = await ctx.store()
    const now = ctx.now()
    const opts = {
      method: input.flags.method ?? 'merge',
      arbitration: arbitrationOf(store, ctx.env, {}),
      notReady: (d: Parameters<typeof diagnosisDoc>[0]) => diagnosisDoc(d, now),
    }
    if (input.flags['dry-run'] === true) {
      const doc = previewDoc(await planLand(ctx, input.args.ref, await ctx.identity(), opts))
      return { data: doc, human: (out) => renderPreview(out, doc) }
    }
    const l = await landPull(ctx, input.args.ref, await ctx.identity(), opts)
    const landedLine = [...l.task.log].reverse().find((e) => e.verb === 'landed')
    const data: PrChangeDocT = {
      schema: 'pr-change/v1',
      version: 1,
      task: taskBrief(l.task),
      repository: l.repo,
      action: 'merged',
      pushed: null,
      pr: prBrief(l.pull),
      merge: l.merge,
      task_status: l.task.status,
      landed: landedLine === undefined ? null : (landedLine.details.split(' ')[0] ?? null),
    }
    return {
      data,
      // What the landed work leaves behind (its worktree, its branch here and on origin) is cleanup's to remove.
      text: `${l.merge === null ? 'already merged' : `merged (${l.merge.method}) as ${l.merge.sha.slice(0, 12)}`}: #${data.pr.number}; ${data.task.ref} is ${l.task.status} (${l.change.outcome})${l.task.status === 'done' ? `\n  next: ${cmd('cleanup')}   what the landed work left behind (worktree, branches)` : ''}`,
    }
  },
})
