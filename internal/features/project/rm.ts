import * as fs from 'node:fs'
import * as path from 'node:path'
import { count } from '../../base/text.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { removeProject } from '../../domain/project/projects.js'
import { qualifiedRef } from '../../format/refs.js'
import { listTombstones } from '../../store/tombstones.js'
import { countsOf, projectDoc } from './docs.js'

export const rm = defineCommand({
  path: 'project rm',
  summary: 'Delete a project and everything in it (needs --force)',
  description:
    'Without --force the command refuses (exit 3) and names what would be deleted. The files stay in git history and on the record branch. Task worktrees stay too (a note names each, with the git command that removes it).',
  args: [arg('slug', 'the project slug')],
  flags: { force: bool('confirm the deletion') },
  json: 'project/v1',
  mutates: true,
  destructive: true,
  async run(ctx, input) {
    const store = await ctx.store()
    const slug = input.args.slug
    const p = await store.readProject(slug)
    const { counts } = await countsOf(store, slug)
    // Task worktrees are not removed with the project: say which stay, and how git removes them.
    const left = (await store.listTasks(slug)).tasks.filter((t) => t.worktree !== null)
    const tombs = (await listTombstones(store, slug)).tombstones.filter((x) => x.task.worktree !== null)
    removeProject(store, slug, input.flags.force === true)
    // A removed task's tombstone keeps its worktree: line after the worktree is removed: only a folder still there stays.
    for (const t of [...left, ...tombs.map((x) => x.task)])
      if (t.worktree !== null && fs.existsSync(path.resolve(store.root, t.worktree.path)))
        ctx.notes.note(
          `the worktree of ${qualifiedRef(t)} stays at ${t.worktree.path} (branch ${t.worktree.branch}): git worktree remove ${t.worktree.path}`,
        )
    const data = projectDoc(p, counts, true)
    return { data, human: (out) => out.line(`removed project ${slug} (${count(data.total, 'task')})`) }
  },
})
