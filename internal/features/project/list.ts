import { defineCommand } from '../../clikit/command.js'
import { pageFlags, pageOf, skippedOn } from '../../clikit/pageflags.js'
import { projectSummary } from '../shared/projectdoc.js'
import { countsOf } from './docs.js'
import type { ProjectListDocT } from './json.js'

export const list = defineCommand({
  path: 'project list',
  summary: 'List projects with their task counts',
  args: [],
  flags: { ...pageFlags },
  json: 'project-list/v1',
  mutates: false,
  async run(ctx, input) {
    const store = await ctx.store()
    const { projects, broken } = await store.listProjects()
    const { items, page } = pageOf(projects, input.flags)
    const rows: ProjectListDocT['projects'] = []
    // Task files that could not be read are left out of their project's counts, and said so, as task list says.
    const skipped = [...broken]
    for (const p of items) {
      const { counts, broken: tasks } = await countsOf(store, p.slug)
      rows.push(projectSummary(p, counts))
      skipped.push(...tasks)
    }
    ctx.notes.skipped(skipped)
    const data: ProjectListDocT = {
      schema: 'project-list/v1',
      projects: rows,
      ...page,
      ...skippedOn(skipped, page.limit),
    }
    return {
      data,
      human(out) {
        if (rows.length === 0) {
          out.line('no projects yet — dacli project add "<title>"')
          return
        }
        out.table(
          ['SLUG', 'STATUS', 'STAGE', 'OPEN', 'ACTIVE', 'BLOCKED', 'DONE', 'TITLE'],
          rows.map((r) => [
            r.slug,
            r.status,
            r.stage,
            String(r.counts.open),
            String(r.counts.active),
            String(r.counts.blocked),
            String(r.counts.done),
            r.title,
          ]),
          { right: [3, 4, 5, 6] },
        )
      },
    }
  },
})
