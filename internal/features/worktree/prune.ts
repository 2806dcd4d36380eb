import * as path from 'node:path'
import { headRef } from '../../adapters/git/refs.js'
import * as wt from '../../adapters/git/worktree.js'
import { cmd } from '../../base/commands.js'
import { NotFoundError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import { bool, str } from '../../clikit/flags.js'
import {
  dropWorktree,
  forgetWorktree,
  landedOn,
  ownBranch,
  real,
  requireGit,
  taskBranchOf,
  unlandedCommits,
  worktreeProblem,
} from '../../domain/worktree/worktrees.js'
import { qualifiedRef } from '../../format/refs.js'
import { folderStatus, listTombstones } from '../../store/tombstones.js'
import { taskMatcher } from './docs.js'
import type { WorktreePruneDocT } from './json.js'

export const prune = defineCommand({
  path: 'worktree prune',
  summary: 'Remove the task worktrees that are provably finished; say why each other one stays',
  description:
    'A task worktree (one dacli made) is removed only when it is provably finished: clean (no uncommitted or untracked changes), its branch’s work on trunk (--into, else the remote’s HEAD, else main, else master) — merged, or rebased or squashed into the same change, as `task done` judges landing — or its branch gone, and its task done or removed (a branch with nothing of its own yet is merged too, so the task says whether the work is over); its merged branch (the task’s own, never another one checked out there) is deleted and the task forgets the worktree. Worktrees whose folder was deleted by hand are forgotten. Every other linked worktree is kept and listed with the reason. --dry-run reports the same without removing anything.',
  args: [],
  flags: {
    into: str('trunk: the branch finished work is merged into', {
      valueName: 'BRANCH',
      defaultText: 'origin/HEAD, main or master',
    }),
    'dry-run': bool('report what would be removed; remove nothing'),
  },
  json: 'worktree-prune/v1',
  mutates: true,
  destructive: true,
  idempotent: true,
  examples: ['dacli worktree prune --dry-run', 'dacli worktree prune --into main'],
  async run(ctx, input) {
    const dry = input.flags['dry-run'] === true
    const store = await ctx.store()
    const git = requireGit(store)
    const into = input.flags.into
    const trunk = await wt.trunkOf(git, ctx.env, into)
    if (into !== undefined && trunk === null) {
      throw new NotFoundError(`--into ${into}: no such branch or revision`, {
        details: { into },
        next: ['git branch --all', cmd('worktree prune --dry-run')],
      })
    }
    const who = await ctx.identity()
    const tasks = (await store.listTasks()).tasks
    // A removed task is finished work: its tombstone still names its worktree, and prune judges it as a done task's.
    const tombs = (await listTombstones(store)).tombstones.map((x) => x.task).filter((x) => x.worktree !== null)
    const taskOf = taskMatcher(store, [...tasks, ...tombs])
    const data: WorktreePruneDocT = { schema: 'worktree-prune/v1', trunk, dry_run: dry, removed: [], kept: [] }
    const linked = (await wt.listWorktrees(git, ctx.env)).filter((w) => !w.main && !w.bare)
    const here = real(git.workTree)
    const progress = ctx.notes.progress('worktree prune', linked.length)
    let forgetMissing = false
    for (const w of linked) {
      progress.tick(path.basename(w.path))
      const t = taskOf(w)
      const item = { path: w.path, branch: w.branch, task: t === null ? null : qualifiedRef(t) }
      const keep = (reason: string) => data.kept.push({ ...item, reason })
      if (w.prunable) {
        forgetMissing = true
        // The task forgets it too: a `worktree:` naming a deleted folder would send agents to nothing.
        if (
          t !== null &&
          !dry &&
          folderStatus(t.path) !== 'removed' &&
          !(await forgetWorktree(store, ctx.env, await store.readTask(t.id), who))
        )
          ctx.notes.warn(`${qualifiedRef(t)} still names the deleted worktree (only its owner may change the task)`)
        data.removed.push({
          ...item,
          reason: 'its folder was deleted; git and the task forget it',
          branch_deleted: false,
        })
        continue
      }
      if (t === null) {
        keep('not a task worktree made by dacli')
        continue
      }
      // dacli removes only what lies directly inside .dacli/worktrees/, whatever a task file says.
      const problem = worktreeProblem(store, t)
      if (problem !== null || path.dirname(real(w.path)) !== path.join(real(store.dir), 'worktrees')) {
        keep(`refused: ${problem ?? `${w.path} is not inside .dacli/worktrees/`}`)
        if (problem !== null) ctx.notes.warn(problem)
        continue
      }
      if (real(w.path) === here) {
        keep('it is the worktree this command runs in')
        continue
      }
      if (w.locked) {
        keep('locked (git worktree unlock to allow it)')
        continue
      }
      const changes = await wt.changesIn(git, ctx.env, w.path)
      if (changes.length > 0) {
        keep(`${changes.length} uncommitted change${changes.length === 1 ? '' : 's'}`)
        continue
      }
      const branchTip = w.branch === null ? null : await wt.revParse(git, ctx.env, headRef(w.branch))
      const tip = branchTip ?? w.head
      if (trunk === null) {
        keep('no trunk to compare with (pass --into)')
        continue
      }
      // Landed as `task done` judges it: trunk has every change of the branch (merged, rebased or squashed).
      const missing = tip === null ? [] : await unlandedCommits(git, ctx.env, tip, trunk.commit)
      if (missing === null || missing.length > 0) {
        const n = missing?.length ?? 0
        keep(
          missing === null
            ? `git cannot tell whether ${trunk.name} has its work`
            : `${n} commit${n === 1 ? '' : 's'} not on ${trunk.name}`,
        )
        continue
      }
      const gone = folderStatus(t.path) === 'removed'
      if (t.status !== 'done' && !gone) {
        // A branch with nothing of its own is "merged" too: a worktree made a minute ago for work not yet begun.
        keep(`${qualifiedRef(t)} is ${t.status}, not done (dacli worktree remove ${qualifiedRef(t)} removes it anyway)`)
        continue
      }
      const reason = `${w.branch === null ? `detached at a commit on ${trunk.name}` : `clean, merged into ${trunk.name}`}${gone ? ' (its task was removed)' : ''}`
      // A dry run says what the run would do: a branch whose commit is on trunk is deleted with its worktree.
      let deleted =
        dry &&
        ownBranch(w.branch, taskBranchOf(t), trunk) &&
        w.head !== null &&
        (await landedOn(git, ctx.env, w.head, trunk.commit))
      if (!dry) {
        try {
          deleted = await dropWorktree(git, ctx.env, w, trunk, false, taskBranchOf(t))
        } catch (e) {
          keep(`git would not remove it: ${(e as Error).message}`)
          continue
        }
        if (!gone && !(await forgetWorktree(store, ctx.env, await store.readTask(t.id), who))) {
          ctx.notes.warn(`${qualifiedRef(t)} still names the removed worktree (only its owner may change the task)`)
        }
      }
      data.removed.push({ ...item, reason, branch_deleted: deleted })
    }
    if (forgetMissing && !dry) await wt.pruneMissing(git, ctx.env)
    progress.end()
    return {
      data,
      human(out) {
        const verb = dry ? 'would remove' : 'removed'
        for (const r of data.removed) out.line(`${verb} ${r.task ?? r.path}: ${r.reason}`)
        for (const k of data.kept) out.line(out.style('dim', `kept ${k.task ?? k.path}: ${k.reason}`))
        if (data.removed.length === 0 && data.kept.length === 0) out.line('no linked worktrees')
      },
    }
  },
})
