import { count } from '../../base/text.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { removeProject } from '../../domain/project/projects.js'
import { countsOf, projectDoc } from './docs.js'

export const rm = defineCommand({
  path: 'project rm',
  summary: 'Delete a project and everything in it (needs --force)',
  description:
    'Without --force the command refuses (exit 3) and names what would be deleted. The files stay in git history and on the record branch.',
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
    removeProject(store, slug, input.flags.force === true)
    const data = projectDoc(p, counts, true)
    return { data, human: (out) => out.line(`removed project ${slug} (${count(data.total, 'task')})`) }
  },
})
