import { defineCommand } from '../../clikit/command.js'
import { pageFlags, pageOf } from '../../clikit/pageflags.js'
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
    for (const p of items) {
      rows.push(projectSummary(p, await countsOf(store, p.slug)))
    }
    ctx.notes.skipped(broken)
    const data: ProjectListDocT = { schema: 'project-list/v1', projects: rows, ...page, skipped: broken }
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
