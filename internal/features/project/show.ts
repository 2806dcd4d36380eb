import { arg, defineCommand } from '../../clikit/command.js'
import { countsOf, projectDoc, renderProject } from './docs.js'

export const show = defineCommand({
  path: 'project show',
  summary: 'Show a project: status, stage, task counts and its structural sections',
  args: [arg('slug', 'the project slug')],
  flags: {},
  json: 'project/v1',
  mutates: false,
  async run(ctx, input) {
    const store = await ctx.store()
    const slug = input.args.slug
    const p = await store.readProject(slug)
    const { counts, broken } = await countsOf(store, slug)
    ctx.notes.skipped(broken) // left out of the counts: said so
    const data = projectDoc(p, counts)
    return { data, human: (out) => renderProject(out, data) }
  },
})
