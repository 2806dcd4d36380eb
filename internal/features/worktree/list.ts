import * as wt from '../../adapters/git/worktree.js'
import { defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { requireGit } from '../../domain/worktree/worktrees.js'
import { projectFilter } from '../../format/ids.js'
import { qualifiedRef } from '../../format/refs.js'
import { taskMatcher } from './docs.js'
import type { WorktreeListDocT } from './json.js'

export const list = defineCommand({
  path: 'worktree list',
  summary: 'Every worktree git knows, with its task, branch, state against trunk, and the task’s status and owner',
  description:
    'Lists the main worktree and every linked one: branch, head commit, uncommitted changes, commits ahead of and behind trunk (the remote’s HEAD, else main, else master), and the task it belongs to with that task’s status and owner. Worktrees dacli did not make are listed with task null. --project keeps only the worktrees of that project’s tasks.',
  args: [],
  flags: { project: str('only worktrees of this project’s tasks', { valueName: 'SLUG' }) },
  json: 'worktree-list/v1',
  mutates: false,
  examples: ['dacli worktree list', 'dacli worktree list --project ledger --json'],
  async run(ctx, input) {
    const project = projectFilter(input.flags.project)
    const store = await ctx.store()
    if (project !== undefined) store.requireProject(project)
    const git = requireGit(store)
    const [all, trunk, tasks] = await Promise.all([
      wt.listWorktrees(git, ctx.env),
      wt.trunkOf(git, ctx.env),
      store.listTasks(),
    ])
    const taskOf = taskMatcher(store, tasks.tasks)
    const rows: WorktreeListDocT['worktrees'] = []
    for (const w of all) {
      if (w.bare) continue
      const t = taskOf(w)
      if (project !== undefined && t?.project !== project) continue
      const changes = w.prunable ? null : (await wt.changesIn(git, ctx.env, w.path)).length
      const ab =
        w.branch !== null && w.head !== null && trunk !== null
          ? await wt.aheadBehind(git, ctx.env, w.head, trunk.commit)
          : null
      rows.push({
        path: w.path,
        branch: w.branch,
        head: w.head,
        main: w.main,
        locked: w.locked,
        prunable: w.prunable,
        dirty: changes === null ? null : changes > 0,
        changes,
        ahead: ab?.[0] ?? null,
        behind: ab?.[1] ?? null,
        task: t === null ? null : { id: t.id, ref: qualifiedRef(t), status: t.status, owner: t.owner },
      })
    }
    const data: WorktreeListDocT = { schema: 'worktree-list/v1', trunk, worktrees: rows }
    return {
      data,
      human(out) {
        if (rows.length === 0) {
          out.line(project === undefined ? 'no worktrees' : `no worktrees for ${project}`)
          return
        }
        out.table(
          [
            'TASK',
            'STATUS',
            'OWNER',
            'BRANCH',
            'CHANGES',
            trunk === null ? 'AHEAD/BEHIND' : `VS ${trunk.name}`,
            'PATH',
          ],
          rows.map((r) => [
            r.task?.ref ?? (r.main ? '(main)' : '-'),
            r.task === null ? '' : out.status(r.task.status),
            r.task?.owner ?? '',
            r.branch ?? '(detached)',
            r.changes === null ? 'gone' : String(r.changes),
            r.ahead === null ? '' : `+${r.ahead}/-${r.behind}`,
            r.path,
          ]),
          { shrink: 6 },
        )
      },
    }
  },
})
