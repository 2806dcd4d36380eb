import { UsageError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import { int, oneOf, str } from '../../clikit/flags.js'
import { shortRef } from '../../clikit/text.js'
import { listNotes, listRisks } from '../../domain/notes/notes.js'
import { type Field, rank, type SearchDoc, wordsOf } from '../../domain/search/rank.js'
import { projectFilter } from '../../format/ids.js'
import { type Broken, STATUSES } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { isOpenQuestion, listEvents } from '../../store/events.js'
import { labelFilterFlag, withLabels } from '../shared/labels.js'
import type { SearchDocT } from './json.js'
import { SEARCH_KINDS } from './kinds.js'

type Result = Omit<SearchDocT['results'][number], 'score' | 'field' | 'snippet'>

const f = (name: string, text: string | null | undefined, weight = 1): Field[] =>
  text === null || text === undefined || text === '' ? [] : [{ name, text, weight }]

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
    const labelled = withLabels(labels)
    const tasksOnly = statuses.length > 0 || labels.length > 0
    if (tasksOnly && input.flags.kind !== undefined && input.flags.kind !== 'task') {
      throw new UsageError(`--status and --label apply to tasks; --kind ${input.flags.kind} has neither`)
    }
    const kind = input.flags.kind ?? (tasksOnly ? 'task' : null)
    const wants = (k: (typeof SEARCH_KINDS)[number]) => kind === null || kind === k
    const limit = input.flags.limit ?? 20
    const store = await ctx.store()
    if (project !== undefined) store.requireProject(project)
    const docs: SearchDoc<Result>[] = []
    const skipped: Broken[] = []
    if (wants('task')) {
      const { records, broken } = await store.listRecords(project)
      skipped.push(...broken)
      for (const t of records) {
        if (statuses.length > 0 && !(statuses as readonly string[]).includes(t.status)) continue
        if (!labelled(t)) continue
        const ref = qualifiedRef(t)
        docs.push({
          item: {
            kind: 'task',
            id: t.id,
            ref,
            project: t.project,
            title: t.title,
            status: t.status,
            command: `dacli task show ${ref}`,
          },
          fields: [
            ...f('title', t.title, 5),
            ...f('labels', t.labels.join(' '), 3),
            ...f('milestone', t.milestone, 2),
            ...f('so_that', t.so_that),
            ...f('context', t.context),
            ...f('acceptance', t.acceptance.map((a) => a.text).join('\n')),
          ],
        })
      }
    }
    if (wants('note')) {
      const { notes, broken } = await listNotes(store, project)
      skipped.push(...broken)
      for (const n of notes) {
        const s = n.sections
        docs.push({
          item: {
            kind: 'note',
            id: n.id,
            ref: n.id,
            project: n.project,
            title: n.title,
            status: n.kind,
            command: `dacli note show ${n.id}`,
          },
          fields: [
            ...f('title', n.title, 5),
            ...f(
              'body',
              [n.body, s.chose, s.rejected, s.because, s.goal, s.question, s.metric].filter(Boolean).join('\n'),
            ),
          ],
        })
      }
    }
    if (wants('risk')) {
      const { risks, broken } = await listRisks(store, project)
      skipped.push(...broken)
      for (const r of risks) {
        docs.push({
          item: {
            kind: 'risk',
            id: r.id,
            ref: r.id,
            project: r.project,
            title: r.title,
            status: `rank ${r.rank}`,
            command: `dacli risk list --project ${r.project}`,
          },
          fields: [...f('title', r.title, 5), ...f('indicators', r.indicators.join('\n')), ...f('action', r.action)],
        })
      }
    }
    if (wants('question')) {
      const { events, broken } = await listEvents(store)
      skipped.push(...broken)
      for (const e of events.filter(isOpenQuestion)) {
        const p = typeof e.data.project === 'string' ? e.data.project : null
        if (project !== undefined && p !== project) continue
        const text = e.body.trim()
        const title = text.split('\n')[0] ?? text
        docs.push({
          item: {
            kind: 'question',
            id: e.id,
            ref: e.id,
            project: p,
            title,
            status: 'open',
            command: `dacli answer ${e.id} "…"`,
          },
          fields: [...f('title', title, 5), ...f('body', text)],
        })
      }
    }
    for (const b of skipped) ctx.notes.warn(`skipped ${b.path}: ${b.reason} (see dacli doctor)`)
    const hits = rank(docs, query)
    const data: SearchDocT = {
      schema: 'search/v1',
      query,
      filters: { project: project ?? null, kind, status: [...statuses], label: [...labels] },
      total: hits.length,
      limit,
      truncated: hits.length > limit,
      results: hits.slice(0, limit).map((h) => ({ ...h.item, score: h.score, field: h.field, snippet: h.snippet })),
      skipped,
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
