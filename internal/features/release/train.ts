import type { Pull } from '../../adapters/github/client.js'
import { cmd } from '../../base/commands.js'
import { UsageError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import { bool, int, str } from '../../clikit/flags.js'
import { type Promoted, recordPromotions } from '../../domain/delivery/promote.js'
import { type Applied, applyTrain, planTrain } from '../../domain/delivery/release.js'
import { qualifiedRef } from '../../format/refs.js'
import type { ReleaseTrainDocT } from './json.js'

const prRef = (p: Pull) => ({ number: p.number, url: p.url, state: p.state, merged: p.merged })

export const train = defineCommand({
  path: 'release train',
  summary: "Promote a project's landed work from one branch to another: the plan, one promotion pull request",
  description:
    "Lists the project's tasks whose landed commit (the `landed <sha>` their close logged) is on --source and not on --target, by commit reachability after fetching both from origin, with their pull requests; and what blocks the promotion: each --required-check on the source's tip (passed, pending, failed or missing) and --required-reviews approvals of the promotion pull request. --dry-run reads only (no write request reaches GitHub). --apply opens one promotion pull request source → target listing the tasks, or reuses the open one (action updated when its body no longer listed them and was rewritten); with --merge it is merged when nothing blocks, and refused (exit 3, policy promotion_blocked, the plan still printed) while something does. An apply records each task whose landed work is now on the target as released — its log gains `promoted <target> <commit>` once (the merge commit, with the pull request's number; or the target's tip for work found there already, e.g. a promotion merged on GitHub) — which `metrics` and `overview` count in the released state. Exactly one of --dry-run and --apply.",
  args: [],
  flags: {
    project: str('the project', { valueName: 'P', required: true }),
    source: str('from branch', { valueName: 'B', required: true }),
    target: str('to branch', { valueName: 'B', required: true }),
    'dry-run': bool('plan only'),
    apply: bool('open the PR'),
    'required-check': str('check to pass', {
      valueName: 'NAME',
      repeatable: true,
    }),
    'required-reviews': int('approvals needed', { valueName: 'N', defaultText: '0' }),
    merge: bool('merge if unblocked'),
  },
  json: 'release-train-plan/v1',
  mutates: true,
  usage:
    '--project P --source B --target B (--dry-run | --apply [--merge]) [--required-check NAME…] [--required-reviews N]',
  examples: [
    'dacli release train --project ledger --source main --target release --dry-run',
    'dacli release train --project ledger --source main --target release --apply --required-check ci --merge',
  ],
  async run(ctx, input) {
    const f = input.flags
    const dry = f['dry-run'] === true
    if (dry === (f.apply === true)) {
      throw new UsageError('give exactly one of --dry-run and --apply', {
        details: { conflicting_flags: ['--dry-run', '--apply'] },
      })
    }
    if (f.merge === true && dry) throw new UsageError('--merge goes with --apply, not --dry-run')
    const reviews = f['required-reviews'] ?? 0
    if (reviews < 0) throw new UsageError(`--required-reviews must be 0 or more, got ${reviews}`)
    const { train: t, client } = await planTrain(ctx, {
      project: f.project,
      source: f.source,
      target: f.target,
      requiredChecks: f['required-check'] ?? [],
      requiredReviews: reviews,
    })
    let applied: Applied | null = null
    const released: Promoted[] = []
    /** On the target now but not recorded here: another identity's task, whose log only its owner may write. */
    const notRecorded: string[] = []
    if (!dry) {
      applied = await applyTrain(client, t, f.merge === true)
      // What is on the target now is released: the tasks this merge promoted, and those found there already.
      const store = await ctx.store()
      const who = await ctx.identity()
      const onTarget = [...t.arrived, ...(applied?.merged != null ? t.tasks : [])]
      released.push(...(await recordPromotions(store, who, t.arrived, t.target.name, t.target.sha, null)))
      if (applied?.merged != null)
        released.push(
          ...(await recordPromotions(store, who, t.tasks, t.target.name, applied.merged, applied.pull.number)),
        )
      const recorded = new Set(released.map((r) => r.id))
      notRecorded.push(...onTarget.filter((x) => !recorded.has(x.task.id)).map((x) => qualifiedRef(x.task)))
    }
    const promotion: ReleaseTrainDocT['promotion'] =
      applied !== null
        ? {
            action: applied.action,
            pr: prRef(applied.merged === null ? applied.pull : { ...applied.pull, state: 'closed', merged: true }),
          }
        : t.promotion !== null
          ? { action: 'existing', pr: prRef(t.promotion) }
          : { action: 'planned', pr: null }
    const data: ReleaseTrainDocT = {
      schema: 'release-train-plan/v1',
      version: 1,
      project: t.project,
      repository: t.repo,
      dry_run: dry,
      source: t.source,
      target: t.target,
      tasks: t.tasks.map((x) => ({
        id: x.task.id,
        ref: qualifiedRef(x.task),
        title: x.task.title,
        landed: x.landed,
        pr: x.pull === null ? null : prRef(x.pull),
      })),
      required_checks: t.required_checks,
      reviews: t.reviews,
      blockers: t.blockers,
      promotion,
      merged: applied?.merged ?? null,
      released,
    }
    // --merge asked for a merge: one the blockers held back is a refusal (3, the report still printed), not a 0 a
    // script would read as promoted. Nothing to promote at all stays 0 (nothing was asked of the merge).
    const held = f.merge === true && applied !== null && applied.merged === null && t.blockers.length > 0
    const again = [
      `release train --project ${t.project} --source ${t.source.name} --target ${t.target.name} --apply --merge`,
      ...(f['required-check'] ?? []).map((c) => `--required-check ${c}`),
      ...(reviews > 0 ? [`--required-reviews ${reviews}`] : []),
    ].join(' ')
    return {
      data,
      ...(held
        ? {
            verdict: 'refused' as const,
            refusal: {
              policy: 'promotion_blocked',
              reason: `#${applied?.pull.number} is not merged: ${t.blockers.join('; ')}`,
              next: [`clear what blocks #${applied?.pull.number}, then: ${cmd(again)}`],
            },
          }
        : {}),
      human(out) {
        out.line(
          `${out.style('bold', `release train ${t.project}`)}: ${t.source.name} → ${t.target.name} (${data.tasks.length} task(s))`,
        )
        for (const x of data.tasks)
          out.line(`  ${x.ref}  ${x.title}  ${x.landed.slice(0, 12)}${x.pr ? `  #${x.pr.number}` : ''}`)
        for (const b of data.blockers) out.line(out.style('yellow', `  blocked: ${b}`))
        const p = data.promotion
        out.line(
          p.pr === null
            ? dry
              ? '  promotion: not opened yet (--apply opens it)'
              : '  promotion: nothing to promote, none opened'
            : `  promotion: ${p.action} #${p.pr.number} ${p.pr.url}`,
        )
        if (data.merged !== null) out.line(`  merged as ${data.merged.slice(0, 12)}`)
        else if (held) out.line(out.style('yellow', `  not merged: #${applied?.pull.number} is blocked (exit 3)`))
        for (const r of data.released)
          out.line(`  released: ${r.ref} (on ${t.target.name} at ${r.commit.slice(0, 12)})`)
        for (const ref of notRecorded)
          out.line(
            out.style(
              'dim',
              `  on ${t.target.name}, not recorded released: ${ref} is another identity's task (its owner's next apply records it)`,
            ),
          )
      },
    }
  },
})
