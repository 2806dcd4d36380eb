import { arg, defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { addTaskWorktree } from '../../domain/worktree/worktrees.js'
import { worktreeDoc } from './docs.js'

export const add = defineCommand({
  path: 'worktree add',
  summary: 'Give a task its own git worktree and branch (prints the path)',
  description:
    'Creates .dacli/worktrees/<project>-<NNN>-<slug> on a new branch dacli/<project>-<NNN>-<slug> from --base (default: trunk — the remote’s HEAD, else main, else master), records `worktree: {path, branch}` in the task and prints the path, so `cd "$(dacli worktree add ledger/7)"` works. Adding it again reuses it (outcome reused). An existing branch is checked out instead of created. Every worktree shares the main worktree’s .dacli/, so claims and edits made there land in the one store. Uses the system git; outside a git repository, or without git, exit 1. Only someone who may rewrite the task adds its worktree (exit 3 otherwise).',
  args: [arg('ref', 'the task')],
  flags: {
    base: str('start a new branch from this revision', { valueName: 'REV', defaultText: 'trunk' }),
    branch: str('the branch name', { valueName: 'NAME', defaultText: 'dacli/<project>-<NNN>-<slug>' }),
  },
  json: 'worktree/v1',
  mutates: true,
  idempotent: true,
  examples: ['dacli worktree add ledger/7', 'cd "$(dacli worktree add ledger/7 --base origin/release)"'],
  async run(ctx, input) {
    const store = await ctx.store()
    const t = await store.readTask(input.args.ref)
    const o = await addTaskWorktree(store, ctx.env, t, await ctx.identity(), {
      ...(input.flags.base === undefined ? {} : { base: input.flags.base }),
      ...(input.flags.branch === undefined ? {} : { branch: input.flags.branch }),
    })
    const data = worktreeDoc('add', o)
    if (!ctx.json) {
      ctx.notes.note(
        o.outcome === 'created'
          ? `created a worktree for ${data.task.ref} on branch ${o.branch}${o.base ? ` from ${o.base}` : ''}`
          : `${data.task.ref} already has this worktree (branch ${o.branch})`,
      )
    }
    return { data, human: (out) => out.line(o.path) }
  },
})
