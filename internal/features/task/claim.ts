import { cmd } from '../../base/commands.js'
import { ConflictError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { bool, duration } from '../../clikit/flags.js'
import { claimedElsewhere } from '../../domain/claims/arbiter.js'
import { describeHeld, overlapsOf } from '../../domain/task/footprint.js'
import { claimTask, leaseOptionsOf } from '../../domain/task/lifecycle.js'
import { qualifiedRef } from '../../format/refs.js'
import { changeResult } from '../shared/taskdoc.js'
import { arbitrationFlags } from './claimflags.js'

export const claim = defineCommand({
  path: 'task claim',
  summary: 'Take ownership of a task (moves an open task to active)',
  description:
    'An unowned task becomes yours and moves to active. Claiming your own task again is `unchanged`; with --lease the lease is renewed, which rewrites the file: outcome `changed`, details.renewed true — where its claim is on a remote, once the remote confirms the claim is this clone’s: the same identity in another clone is another holder (exit 5 while its claim is live). A task another identity holds under a live claim is a conflict (exit 5, the holder and claim time in details); an expired lease, or an owner that was retired, is taken over (outcome taken-over, logged). A read-only identity’s claim is recorded as a claim event for the owner to apply (outcome proposed, exit 0). With --worktree the task then gets its own git worktree and branch, as `dacli worktree add` (the document gains `worktree`); if that fails the claim stands and the error says so. With claims arbitrated by a git remote (claims: {remote: R} in config.yml, or --remote R), the claim is the ref refs/dacli/claims/<task-id> there, moved only by a lease-protected push: exactly one clone wins; the loser exits 5 with the holder, lease and remote in details; an expired claim there is taken over under a lease on it (taken-over). The task file changes only after the remote said yes. An unreachable remote is exit 1 with nothing changed (retry, or --local to claim in this clone only, logged as claimed-local); --local on a task the remote was last seen holding for another clone or identity is a conflict (exit 5, nothing changed): the remote is the arbiter. A task whose paths (touches:, its worktree’s changes) overlap an active task held by someone else is claimed with a warning, the overlaps in details.overlaps; with --exclusive that is a conflict (exit 5, nothing changed).',
  args: [arg('ref', 'the task')],
  flags: {
    lease: duration('how long the claim holds', {
      defaultText: 'claim_lease in config.yml',
    }),
    worktree: bool('also make the task a git worktree'),
    exclusive: bool('refuse if its paths overlap others’ work'),
    ...arbitrationFlags,
  },
  json: 'task-change/v1',
  mutates: true,
  proposes: true,
  idempotent: true,
  common: true,
  examples: [
    'dacli task claim ledger/2',
    'dacli task claim ledger/2 --lease 4h',
    'dacli task claim ledger/2 --remote origin',
    'dacli task claim ledger/2 --exclusive',
    'cd "$(dacli task claim ledger/2 --worktree --json | jq -r .worktree.path)"',
  ],
  async run(ctx, input) {
    const store = await ctx.store()
    const who = await ctx.identity()
    const { task: target } = await store.load(input.args.ref)
    const overlaps = await overlapsOf(store, ctx.env, who.id, claimedElsewhere(store, ctx.now()), target)
    const found = overlaps.map((o) => ({ id: o.id, ref: o.ref, holder: o.holder, paths: o.paths, touches: o.touches }))
    if (overlaps.length > 0 && input.flags.exclusive === true) {
      throw new ConflictError(
        `${qualifiedRef(target)} ${overlaps.map((o) => describeHeld(o)).join('; ')}: not claimed (--exclusive)`,
        {
          details: { overlaps: found },
          next: [
            cmd(`next (it offers tasks that overlap nothing in progress)`),
            'claim it without --exclusive to work alongside',
          ],
        },
      )
    }
    for (const o of overlaps) ctx.notes.warn(`${qualifiedRef(target)} ${describeHeld(o)} (held by ${o.holder})`)
    const c0 = await claimTask(store, input.args.ref, who, leaseOptionsOf(store, ctx.env, input.flags))
    const c = overlaps.length === 0 ? c0 : { ...c0, details: { ...c0.details, overlaps: found } }
    const result = await changeResult(store, c)
    if (input.flags.worktree !== true || c.outcome === 'proposed') {
      if (input.flags.worktree === true) ctx.notes.warn('the claim was proposed, not made: no worktree was added')
      return result
    }
    const { addTaskWorktree } = await import('../../domain/worktree/worktrees.js')
    let w: Awaited<ReturnType<typeof addTaskWorktree>>
    try {
      w = await addTaskWorktree(store, ctx.env, c.task, who)
    } catch (e) {
      if (e instanceof Error)
        e.message = `claimed ${qualifiedRef(c.task)} (the claim stands), but no worktree: ${e.message}`
      throw e
    }
    const withTree = await changeResult(store, { ...c, task: w.task })
    const data = {
      ...withTree.data,
      worktree: { path: w.path, branch: w.branch, outcome: w.outcome as 'created' | 'reused' },
    }
    return {
      data,
      text: (style) =>
        `${withTree.text(style)}\n  worktree ${w.path} (branch ${w.branch}${w.outcome === 'reused' ? ', already there' : ''})`,
    }
  },
})
