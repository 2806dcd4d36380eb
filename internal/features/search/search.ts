import { UsageError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import { int, oneOf, str } from '../../clikit/flags.js'
import { shortRef } from '../../clikit/text.js'
import type { Item } from '../../domain/search/docs.js'
import { wordsOf } from '../../domain/search/rank.js'
import { searchWorkspace } from '../../domain/search/searchindex.js'
import { projectFilter } from '../../format/ids.js'
import { STATUSES } from '../../format/model.js'
import { checkLabels, labelFilterFlag } from '../shared/labels.js'
import type { SearchDocT } from './json.js'
import { SEARCH_KINDS } from './kinds.js'

/** What to run to see a result. */
function commandOf(r: Item): string {
  switch (r.kind) {
    case 'task':
      return `dacli task show ${r.ref}`
    case 'note':
      return `dacli note show ${r.id}`
    case 'risk':
      return `dacli risk list --project ${r.project}`
    case 'question':
      return `dacli answer ${r.id} "…"`
  }
}

export const search = defineCommand({
  path: 'search',
  summary: 'Find tasks, notes, risks and open questions by their words, best match first',
  description:
    'Every word of the query must occur (as a word, or the start of a longer one), in any field: a task’s title, labels, milestone, So that, Context and acceptance criteria; a note’s title and body; a risk’s title, indicators and action; an open question’s text. Matches in a title count more than in a body, rare words more than common ones, the whole query as a phrase more again, and a title that is exactly the query comes first. Each result carries the text around its match. --status and --label narrow to tasks.',
  args: [{ name: 'query', description: 'the words to look for', required: true, rest: true }],
  flags: {
    project: str('only this project', { valueName: 'SLUG' }),
    kind: oneOf(SEARCH_KINDS, 'only this kind of object'),
    status: oneOf(STATUSES, 'only tasks in this status', { repeatable: true }),
    label: labelFilterFlag,
    limit: int('at most this many results (default 20)', { min: 1, max: 10_000 }),
  },
  json: 'search/v1',
  mutates: false,
  examples: ['dacli search "refund rounding"', 'dacli search login --kind task --status open --label security --json'],
  async run(ctx, input) {
    const query = input.args.query.trim()
    if (wordsOf(query).length === 0) {
      throw new UsageError(`the query "${query}" holds no word to look for`, { details: { query } })
    }
    const project = projectFilter(input.flags.project)
    const statuses = input.flags.status ?? []
    const labels = input.flags.label ?? []
    const wanted = checkLabels(labels)
    const tasksOnly = statuses.length > 0 || labels.length > 0
    if (tasksOnly && input.flags.kind !== undefined && input.flags.kind !== 'task') {
      throw new UsageError(`--status and --label apply to tasks; --kind ${input.flags.kind} has neither`)
    }
    const kind = input.flags.kind ?? (tasksOnly ? 'task' : null)
    const limit = input.flags.limit ?? 20
    const store = await ctx.store()
    if (project !== undefined) store.requireProject(project)
    const req = { query, ...(project === undefined ? {} : { project }), kind, statuses, labels: wanted, limit }
    const answer = await searchWorkspace(store, req)
    ctx.notes.skipped(answer.skipped)
    const hits = answer.hits
    const data: SearchDocT = {
      schema: 'search/v1',
      query,
      filters: { project: project ?? null, kind, status: [...statuses], label: [...labels] },
      total: answer.total,
      limit,
      truncated: answer.total > limit,
      results: hits.map((h) => ({
        ...h.item,
        command: commandOf(h.item),
        score: h.score,
        field: h.field,
        snippet: h.snippet,
      })),
      skipped: answer.skipped,
    }
    return {
      data,
      human(out) {
        if (data.results.length === 0) {
          out.line(`nothing matches "${query}"`)
          return
        }
        for (const r of data.results) {
          const ref = r.kind === 'task' ? shortRef(r.ref) : r.ref
          out.line(
            `${out.style('bold', ref)}  ${out.style('dim', `${r.kind}${r.status === null ? '' : ` · ${r.status}`}`)}  ${r.title}`,
          )
          if (r.field !== 'title') out.line(out.style('dim', `   ${r.field}: ${r.snippet}`))
        }
        if (data.truncated) out.line(out.style('dim', `${data.total - data.results.length} more (--limit)`))
      },
    }
  },
})
