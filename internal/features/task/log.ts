// `task log`: a task’s history, its ## Log merged with the git commits (record branch, HEAD) that changed it.

import { shortOid } from '../../adapters/git/objects.js'
import { arg, defineCommand } from '../../clikit/command.js'

export const log = defineCommand({
  path: 'task log',
  summary: "Show a task's history: its ## Log merged with the record-branch (and HEAD) commits that changed it",
  description:
    'Commits are matched by the task’s id, not by its path, so moves between status folders and renumberings are followed. Record-branch commits name the acting identity and command (Dacli-Agent / Dacli-Command trailers); HEAD commits appear when the workspace is committed with the code (at most 5000 HEAD commits are examined; `truncated` says when that limit cut the walk). Outside git only the ## Log lines are shown.',
  args: [arg('ref', 'a task reference: 7, 007, 007-slug, slug, t-<ULID>, each optionally as <project>/<ref>')],
  flags: {},
  json: 'task-history/v1',
  mutates: false,
  examples: ['dacli task log ledger/2', 'dacli task log 2 --json'],
  async run(ctx, input) {
    const store = await ctx.store()
    const t = await store.readTask(input.args.ref)
    const { HEAD_SCAN_LIMIT, taskHistory } = await import('../../domain/task/history.js')
    const data = await taskHistory(store, store.git === null ? null : await ctx.git(), t)
    const { entries, truncated } = data
    return {
      data,
      human(out) {
        out.line(`${out.style('bold', data.task.ref)}  ${data.task.title}`)
        for (const e of entries) {
          const what =
            e.source === 'log'
              ? `${e.actor ?? ''} ${e.verb ?? ''}${e.details ? ` ${e.details}` : ''}`
              : `${shortOid(e.commit ?? '')} ${e.actor ?? e.author ?? ''}  ${e.message ?? ''}${e.change === 'moved' || e.change === 'added' ? `  → ${e.path}` : ''}`
          out.line(`  ${out.style('dim', e.at)}  ${e.source.padEnd(6)}  ${what}`)
        }
        if (!data.git) out.line(out.style('dim', '  (not in a git repository: log lines only)'))
        if (truncated) out.line(out.style('dim', `  … HEAD history examined up to ${HEAD_SCAN_LIMIT} commits`))
      },
    }
  },
})
