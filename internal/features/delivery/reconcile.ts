import { UsageError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import { bool, str } from '../../clikit/flags.js'
import { type Applied, applyReconciliation, FINDING_CLASSES, reconcile } from '../../domain/delivery/reconcile.js'
import type { DeliveryStateDocT } from './json.js'

export const reconcileCommand = defineCommand({
  path: 'reconcile',
  summary:
    'Where the store, git and GitHub disagree: findings by class with their fix; --apply-safe applies the reviewed plan',
  description:
    "Compares the tasks with git (trunk, task branches and worktrees, claim refs on the claims remote) and GitHub (the project's pull requests) and lists findings by class: done_not_landed, landed_not_done, pr_merged_task_open, branch_without_task, worktree_without_task, claim_on_closed_task, remote_claim_without_task, pr_without_task — each with its evidence, its fix, and whether the fix is safe to apply unattended (closing a task whose work provably landed — a merge on trunk names its branch, or trunk holds every commit made on it —, whose criteria are all checked, and that no other clone or identity holds live on the claims remote, where the close would be refused; deleting a done task's claim ref under a lease). The preview prints a plan id, a digest of the findings and of the state they were read from. --apply-safe PLAN-ID recomputes: if the id differs, the world changed since the review — exit 5, nothing applied; else it applies the safe findings, reporting each. A source that cannot be read (no git, the remote, GitHub) is listed in skipped; a remote this clone names that does not answer (the claims remote) is also exit 1, with the document printed.",
  args: [],
  flags: {
    project: str('only this project', { valueName: 'P' }),
    'dry-run': bool('preview'),
    'apply-safe': str('plan id', { valueName: 'PLAN-ID' }),
  },
  json: 'delivery-state/v1',
  mutates: false,
  mutatesWith: ['apply-safe'],
  // Applying deletes a done task's claim ref on the claims remote.
  destructive: true,
  examples: ['dacli reconcile --project ledger', 'dacli reconcile --project ledger --apply-safe rp-3f9a1c0b2e4d5f60'],
  async run(ctx, input) {
    const project = input.flags.project ?? null
    const plan = input.flags['apply-safe']
    if (plan !== undefined && input.flags['dry-run'] === true) {
      throw new UsageError('--dry-run and --apply-safe exclude each other: give one', {
        details: { conflicting_flags: ['--dry-run', '--apply-safe'] },
      })
    }
    let applied: Applied[] | null = null
    let r: Awaited<ReturnType<typeof reconcile>>
    if (plan === undefined) r = await reconcile(ctx, project, await ctx.identity())
    else ({ r, applied } = await applyReconciliation(ctx, project, plan, await ctx.identity()))
    const counts = Object.fromEntries(FINDING_CLASSES.map((c) => [c, r.findings.filter((f) => f.class === c).length]))
    const data: DeliveryStateDocT = {
      schema: 'delivery-state/v1',
      version: 1,
      project,
      dry_run: plan === undefined,
      plan_id: r.plan_id,
      trunk: r.world.trunk,
      repository: r.world.repo,
      skipped: r.world.skipped,
      counts: counts as DeliveryStateDocT['counts'],
      findings: r.findings.map(({ action: _a, ...f }) => f),
      applied,
    }
    return {
      data,
      // Like `cleanup`: the document is printed either way; a fix that failed is exit 1, and so is a remote this
      // clone names that did not answer (its claim refs are missing from the findings, not absent).
      verdict:
        applied?.some((a) => a.outcome === 'failed') === true || r.world.unreachable.length > 0 ? 'failure' : null,
      human(out) {
        if (data.findings.length === 0) out.line('no disagreement between the store, git and GitHub')
        for (const f of data.findings) {
          out.line(`${out.style('bold', f.class)}  ${f.subject}${f.safe ? out.style('green', '  (safe)') : ''}`)
          out.line(`  ${f.evidence}`)
          out.line(`  fix: ${f.fix}`)
        }
        for (const s of data.skipped) out.line(out.style('yellow', `not read: ${s.source} (${s.reason})`))
        if (applied !== null) for (const a of applied) out.line(`${a.outcome}: ${a.class} ${a.subject} — ${a.detail}`)
        else if (data.findings.some((f) => f.safe))
          out.line(`plan ${data.plan_id}: apply the safe fixes with --apply-safe ${data.plan_id}`)
        else out.line(out.style('dim', `plan ${data.plan_id}`))
      },
    }
  },
})
