import { UsageError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import { bool, str } from '../../clikit/flags.js'
import {
  applyCleanup,
  CANDIDATE_KINDS,
  type Candidate,
  type Outcome,
  planCleanup,
  restoreCleanup,
} from '../../domain/delivery/cleanup.js'
import type { RepositoryCleanupDocT } from './json.js'

const countsOf = (cs: readonly Candidate[]) =>
  Object.fromEntries(
    CANDIDATE_KINDS.map((k) => [k, cs.filter((c) => c.kind === k).length]),
  ) as RepositoryCleanupDocT['counts']

const outcomesOf = (os: readonly Outcome[]) =>
  os.map((o) => ({ kind: o.candidate.kind, subject: o.candidate.subject, outcome: o.outcome, detail: o.detail }))

export const cleanup = defineCommand({
  path: 'cleanup',
  summary:
    'What finished work left behind — merged branches, finished worktrees, stale claim refs, dead files — and a reversible removal',
  description:
    'Lists the candidates: task branches (here and on origin) of done (or removed) tasks whose every commit is on trunk, worktrees of done (or removed) tasks with no changes and their work on trunk, claim refs of done tasks on the claims remote, conflict copies identical to their file (resolved), and temp and lock files whose writer is gone. The preview prints a plan id; --apply-safe PLAN-ID recomputes (a different id: the repository changed — exit 5, nothing removed), writes the restore artifact .dacli/cleanup/<id>/restore.json first (every ref with its commit, every worktree with its branch; files are moved beside it, never deleted), then removes each candidate — a ref only while it still points where it was seen; a removed worktree’s task forgets it, as `worktree prune` has it. --restore ARTIFACT (the id, or its folder) puts every ref, worktree and file back, and the task names its worktree again.',
  args: [],
  flags: {
    project: str('only this project', { valueName: 'P' }),
    'dry-run': bool('preview'),
    'apply-safe': str('plan id', { valueName: 'PLAN-ID' }),
    restore: str('artifact to undo', { valueName: 'ARTIFACT' }),
  },
  json: 'repository-cleanup/v1',
  mutates: false,
  mutatesWith: ['apply-safe', 'restore'],
  destructive: true,
  usage: '[--project P] [--dry-run | --apply-safe PLAN-ID | --restore ARTIFACT]',
  examples: [
    'dacli cleanup',
    'dacli cleanup --apply-safe cp-3f9a1c0b2e4d5f60',
    'dacli cleanup --restore cp-3f9a1c0b2e4d5f60-20261202T101500Z',
  ],
  async run(ctx, input) {
    const f = input.flags
    const project = f.project ?? null
    const modes = [f['dry-run'] === true, f['apply-safe'] !== undefined, f.restore !== undefined].filter(Boolean)
    if (modes.length > 1) {
      throw new UsageError('--dry-run, --apply-safe and --restore exclude each other: give one', {
        details: { conflicting_flags: ['--dry-run', '--apply-safe', '--restore'] },
      })
    }
    if (f.restore !== undefined && f.project !== undefined) {
      throw new UsageError('--restore puts back everything the artifact names: --project does not apply')
    }
    let data: RepositoryCleanupDocT
    let unreachable: readonly string[] = []
    if (f.restore !== undefined) {
      const r = await restoreCleanup(ctx, f.restore, await ctx.identity())
      data = {
        schema: 'repository-cleanup/v1',
        version: 1,
        mode: 'restore',
        project: null,
        plan_id: null,
        artifact: r.artifact,
        skipped: [],
        counts: countsOf(r.outcomes.map((o) => o.candidate)),
        candidates: r.outcomes.map((o) => o.candidate),
        outcomes: outcomesOf(r.outcomes),
      }
    } else if (f['apply-safe'] !== undefined) {
      const r = await applyCleanup(ctx, project, f['apply-safe'], await ctx.identity())
      unreachable = r.plan.unreachable
      data = {
        schema: 'repository-cleanup/v1',
        version: 1,
        mode: 'apply',
        project,
        plan_id: r.plan.plan_id,
        artifact: r.artifact,
        skipped: r.plan.world.skipped,
        counts: countsOf(r.plan.candidates),
        candidates: r.plan.candidates,
        outcomes: outcomesOf(r.outcomes),
      }
    } else {
      const p = await planCleanup(ctx, project)
      unreachable = p.unreachable
      data = {
        schema: 'repository-cleanup/v1',
        version: 1,
        mode: 'preview',
        project,
        plan_id: p.plan_id,
        artifact: null,
        skipped: p.world.skipped,
        counts: countsOf(p.candidates),
        candidates: p.candidates,
        outcomes: null,
      }
    }
    return {
      data,
      // Like `github push`: the document is printed either way, and a removal or restore that failed is exit 1.
      // So is a remote this clone names that could not be read (origin's task branches, the claims remote's claim
      // refs): its candidates are missing from the plan, not absent (contract: an unreachable remote is 1).
      verdict: data.outcomes?.some((o) => o.outcome === 'failed') === true || unreachable.length > 0 ? 'failure' : null,
      human(out) {
        if (data.outcomes === null) {
          if (data.candidates.length === 0)
            out.line(data.skipped.length === 0 ? 'nothing to clean up' : 'nothing to clean up in what could be read')
          for (const c of data.candidates)
            out.line(`${out.style('bold', c.kind)}  ${c.subject}  ${out.style('dim', c.reason)}`)
          if (data.candidates.length > 0)
            out.line(`plan ${data.plan_id}: remove them with --apply-safe ${data.plan_id}`)
        } else {
          for (const o of data.outcomes) out.line(`${o.outcome}: ${o.kind} ${o.subject} — ${o.detail}`)
          if (data.mode === 'apply')
            out.line(`restore with: dacli cleanup --restore ${data.artifact?.split('/').pop()}`)
        }
        for (const s of data.skipped) out.line(out.style('yellow', `not read: ${s.source} (${s.reason})`))
      },
    }
  },
})
