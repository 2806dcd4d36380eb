import { defineCommand } from '../../clikit/command.js'
import { oneOf, str } from '../../clikit/flags.js'
import { addProject } from '../../domain/project/projects.js'
import { checkTitle, slugify } from '../../format/ids.js'
import { checkSectionText } from '../../format/markdown.js'
import { STAGES } from '../../format/model.js'
import { projectDoc, renderProject } from './docs.js'

export const add = defineCommand({
  path: 'project add',
  summary: 'Create a project',
  description:
    'The slug (the project folder, and the qualifier in task references like ledger/7) is derived from the title unless --slug is given. An existing slug is a conflict (exit 5); a slug that is not one safe path segment is a usage error (exit 2).',
  args: [{ name: 'title', description: 'the project title', required: true, rest: true }],
  flags: {
    slug: str('the project slug (lower-case letters, digits, ".", "_", "-")', { valueName: 'SLUG' }),
    goal: str('what the project is for (the ## Goal section)'),
    stage: oneOf(STAGES, 'where the project stands', { defaultText: 'definition' }),
  },
  json: 'project/v1',
  mutates: true,
  examples: ['dacli project add "Ledger" --goal "Reconciliation stops diverging at month end"'],
  async run(ctx, input) {
    const title = checkTitle(input.args.title)
    const goal = input.flags.goal
    if (goal !== undefined) checkSectionText(goal, '--goal')
    const slug = input.flags.slug ?? slugify(title, 40)
    const store = await ctx.store()
    const who = await ctx.identity()
    await addProject(store, {
      title,
      slug,
      ...(goal === undefined ? {} : { goal }),
      stage: input.flags.stage ?? 'definition',
      by: who.id,
    })
    const data = projectDoc(await store.readProject(slug), { open: 0, active: 0, blocked: 0, done: 0 })
    return {
      data,
      human(out) {
        out.line(`created project ${slug}`)
        renderProject(out, data)
        out.line('')
        out.line(out.style('dim', `next: dacli task add "<title>" --project ${slug} --accept "<criterion>"`))
      },
    }
  },
})
