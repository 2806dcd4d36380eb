import { UsageError } from '../../base/errors.js'
import { count } from '../../base/text.js'
import { closeFlags } from '../../clikit/closeflags.js'
import { defineCommand, optionalArg } from '../../clikit/command.js'
import { bool, duration, str } from '../../clikit/flags.js'
import { arbitrationOf } from '../../domain/claims/arbiter.js'
import { type AcceptEntry, acceptAll, acceptTask } from '../../domain/task/acceptance.js'
import { verifyRequest } from '../shared/verify.js'
import type { AcceptanceResultDocT } from './json.js'

function resultOf(entries: AcceptEntry[]): AcceptanceResultDocT {
  const sum = (f: (e: AcceptEntry) => number) => entries.reduce((a, e) => a + f(e), 0)
  return {
    schema: 'acceptance-result/v1',
    accepted: entries.filter((e) => e.outcome === 'accepted').length,
    newly_checked: sum((e) => e.newly_checked),
    attested: sum((e) => e.attested),
    satisfied: sum((e) => e.satisfied),
    total: sum((e) => e.total),
    unverified_tasks: entries.filter((e) => e.outcome === 'accepted' && e.unverified).length,
    tasks: entries.map(({ task: _t, ...e }) => e),
  }
}

export const accept = defineCommand({
  path: 'accept',
  summary: 'Close a task in one step: verify, check every criterion, move to done',
  description:
    'The owner’s close: runs --verify (a failure is exit 1 and the task stays open), checks every box (without --verify each newly ticked box is recorded as attested, not verified: in the log and in `attested`), moves the task to done and applies pending close proposals. A task without criteria is refused (exit 3) unless --allow-unverified, which marks it unverified. A non-owner’s accept is recorded as a proposal (exit 0). `accept --all` closes every task with a pending close proposal that you may close; tasks it cannot close are reported as skipped, not fatal; a failure that is no one task’s (the disk, git) stops it with exit 1, and the error’s details.accepted names the tasks it closed before, which stay closed. `newly_checked`, `satisfied` and `total` are reported separately: zero newly checked with a non-zero total means already satisfied. A claim made on a remote disappears with the task (its ref is deleted under a lease); another clone’s live claim there is a conflict (exit 5), asked of claims.remote in config.yml even when this clone never claimed the task; --local leaves the remote alone. Landed, not just done, as for `task done`: a task with a branch closes only when its commits are on trunk (--into, --branch; exit 3 policy unlanded otherwise, unless --allow-unlanded, logged). --tokens records the output tokens the work cost, for `dacli metrics`.',
  usage:
    '(<ref> | --all) [--verify CMD] [--timeout DUR] [--allow-unverified] [--force] [--remote R | --local] [--into BRANCH] [--branch BRANCH] [--allow-unlanded] [--tokens N]',
  args: [optionalArg('ref', 'the task (omit with --all)')],
  flags: {
    all: bool('every task with a close proposal'),
    verify: str('a shell command that must exit 0 first', {
      valueName: 'CMD',
      executes: true,
    }),
    timeout: duration('kill --verify after this long', { defaultText: '10m' }),
    'allow-unverified': bool('close a task without criteria, marked unverified'),
    force: bool('root: take over another’s task (logged)'),
    remote: str('the claims remote', {
      valueName: 'R',
      defaultText: 'the remote the claim was made on, else claims.remote in config.yml',
    }),
    local: bool('this clone only'),
    ...closeFlags,
  },
  json: 'acceptance-result/v1',
  mutates: true,
  proposes: true,
  idempotent: true,
  examples: ['dacli accept ledger/2 --verify "npm test"', 'dacli accept --all'],
  async run(ctx, input) {
    const ref = input.args.ref
    const all = input.flags.all === true
    if ((ref === undefined) === !all) throw new UsageError('give a task reference or --all (not both)')
    if (all && input.flags.force === true) throw new UsageError('--force applies to one task, not to --all')
    if (all && input.flags.branch !== undefined)
      throw new UsageError('--branch applies to one task; with --all each task’s own worktree branch is checked')
    if (all && input.flags.tokens !== undefined) throw new UsageError('--tokens applies to one task, not to --all')
    const verify = verifyRequest(ctx, input.flags.verify, input.flags.timeout)
    const store = await ctx.store()
    const f = input.flags
    const opts = {
      ...(verify === undefined ? {} : { verify }),
      allowUnverified: input.flags['allow-unverified'] === true,
      arbitration: arbitrationOf(store, ctx.env, f),
      allowUnlanded: f['allow-unlanded'] === true,
      ...(f.into === undefined ? {} : { into: f.into }),
    }
    const who = await ctx.identity()
    const entries =
      ref === undefined
        ? await acceptAll(store, who, opts)
        : [
            await acceptTask(store, ref, who, {
              ...opts,
              force: input.flags.force === true,
              ...(f.branch === undefined ? {} : { branch: f.branch }),
              ...(f.tokens === undefined ? {} : { tokens: f.tokens }),
            }),
          ]
    const data = resultOf(entries)
    return {
      data,
      human(out) {
        if (entries.length === 0) out.line('no tasks have a pending close proposal you may close')
        for (const e of entries) {
          const crit =
            e.total === 0
              ? 'NO acceptance criteria — closed explicitly UNVERIFIED'
              : `${e.newly_checked} newly checked; ${e.satisfied}/${e.total} criteria satisfied`
          if (e.outcome === 'accepted') {
            out.line(
              `accepted ${out.style('bold', e.ref)}: ${crit}${e.verification ? ` (verified by ${e.verification.command})` : ''}`,
            )
            if (e.attested > 0)
              out.line(
                out.style(
                  'yellow',
                  `  ${e.attested} ${e.attested === 1 ? 'criterion' : 'criteria'} attested, not verified: ticked without --verify, nothing was run (logged as attested)`,
                ),
              )
          } else if (e.outcome === 'unchanged')
            out.line(`unchanged: ${e.ref} is already done (${e.satisfied}/${e.total})`)
          else if (e.outcome === 'proposed')
            out.line(`proposed: your accept of ${e.ref} was recorded as event ${e.event_id} for its owner`)
          else out.line(`skipped ${e.ref}: ${e.skipped_reason}`)
          if (e.landing !== null)
            out.line(
              e.landing.landed
                ? out.style('dim', `  landed: ${e.landing.branch} is on ${e.landing.trunk}`)
                : out.style(
                    'yellow',
                    `  NOT landed: ${e.landing.branch} has ${count(e.landing.missing.length, 'commit')} not on ${e.landing.trunk} (--allow-unlanded)`,
                  ),
            )
          if (e.applied_proposals.length > 0)
            out.line(out.style('dim', `  applied ${count(e.applied_proposals.length, 'close proposal')}`))
        }
        if (data.unverified_tasks > 0)
          out.line(out.style('yellow', `${count(data.unverified_tasks, 'task')} closed explicitly UNVERIFIED`))
      },
    }
  },
})
