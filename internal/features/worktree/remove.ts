import { classifiedError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { removeTaskWorktree } from '../../domain/worktree/worktrees.js'
import { findTombstone } from '../../store/tombstones.js'
import { worktreeDoc } from './docs.js'

export const remove = defineCommand({
  path: 'worktree remove',
  summary: 'Remove a task’s worktree (refuses uncommitted or unpushed, unmerged work)',
  description:
    'Removes the task’s worktree folder through git and clears `worktree` in the task. Refused (exit 3, naming them) while it has uncommitted changes (untracked files count), commits that are neither on trunk nor pushed to any remote, or a git lock — unless --force, which discards uncommitted changes. The task’s branch (never another branch checked out there) is deleted only when trunk has all of it; otherwise it is kept; and commits on a detached HEAD that no branch holds make even --force refuse (exit 3, naming them), so --force never loses a commit, and the task keeps its name (branch:), so closing it still requires it to land. Run from inside that worktree it is refused (exit 3), even with --force: run it from another folder. Repeated once the worktree is gone, it changes nothing and exits 0 (outcome unchanged).',
  args: [arg('ref', 'the task')],
  flags: { force: bool('remove even with uncommitted changes, unpushed commits or a lock') },
  json: 'worktree/v1',
  mutates: true,
  destructive: true,
  examples: ['dacli worktree remove ledger/7', 'dacli worktree remove ledger/7 --force'],
  async run(ctx, input) {
    const store = await ctx.store()
    const t = await store.readTask(input.args.ref).catch(async (e) => {
      // A removed task's tombstone still names its worktree: that worktree can still be removed.
      if (classifiedError(e)?.details.removed === undefined) throw e
      const tomb = await findTombstone(store, input.args.ref)
      if (tomb === null || tomb.task.worktree === null) throw e
      return tomb.task
    })
    const o = await removeTaskWorktree(store, ctx.env, t, await ctx.identity(), input.flags.force === true)
    const data = worktreeDoc('remove', o)
    return {
      data,
      human(out) {
        if (o.outcome === 'unchanged') {
          out.line(`the worktree of ${data.task.ref} was removed already: nothing to do`)
          if (o.branch !== '') out.line(out.style('dim', `  branch ${o.branch} is kept`))
          return
        }
        out.line(`removed the worktree of ${data.task.ref} (${o.path})`)
        if (o.branch !== '')
          out.line(
            out.style(
              'dim',
              o.branch_deleted ? `  branch ${o.branch} was merged and is deleted` : `  branch ${o.branch} is kept`,
            ),
          )
      },
    }
  },
})
