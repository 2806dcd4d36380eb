import { closeFlags } from '../../clikit/closeflags.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { arbitrationOf } from '../../domain/claims/arbiter.js'
import { doneTask } from '../../domain/task/lifecycle.js'
import { changeResult } from '../shared/taskdoc.js'
import { arbitrationFlags } from './claimflags.js'

export const done = defineCommand({
  path: 'task done',
  summary: 'Close a task — every acceptance criterion must be checked',
  description:
    'This verifies, it does not just record: any unchecked criterion refuses with exit 3 and lists them in details.unmet (do not retry unchanged — check them first). A task without criteria is refused unless --allow-unverified, which closes it and marks it unverified. Landed, not just done: a task with a branch (its worktree’s, or --branch) closes only when every commit of it is on trunk (--into, else the remote’s HEAD, else main, else master); otherwise exit 3 (policy unlanded) names the missing commits, unless --allow-unlanded (logged). A landed close logs `landed <sha>`. --tokens records what the work cost, for `dacli metrics`. A non-owner’s done (or a read-only identity’s) is recorded as a propose-status event for the owner (outcome proposed). A claim made on a remote disappears with the task (its ref is deleted under a lease); another clone’s live claim there is a conflict (exit 5, nothing changed). With claims arbitrated by a remote (claims: {remote: R} in config.yml, or --remote R) the remote is asked even when this clone never claimed the task; an unreachable remote is exit 1 with nothing changed (--local closes it in this clone only).',
  args: [arg('ref', 'the task')],
  flags: {
    'allow-unverified': bool('close a task without criteria, marked unverified'),
    ...arbitrationFlags,
    ...closeFlags,
  },
  json: 'task-change/v1',
  mutates: true,
  proposes: true,
  idempotent: true,
  common: true,
  async run(ctx, input) {
    const store = await ctx.store()
    const f = input.flags
    const c = await doneTask(store, input.args.ref, await ctx.identity(), {
      allowUnverified: f['allow-unverified'] === true,
      arbitration: arbitrationOf(store, ctx.env, f),
      allowUnlanded: f['allow-unlanded'] === true,
      ...(f.into === undefined ? {} : { into: f.into }),
      ...(f.branch === undefined ? {} : { branch: f.branch }),
      ...(f.tokens === undefined ? {} : { tokens: f.tokens }),
    })
    return changeResult(store, c)
  },
})
