import { defineCommand } from '../../clikit/command.js'
import { bool, int, str } from '../../clikit/flags.js'
import { listThreads } from '../../domain/questions/questions.js'
import { projectFilter } from '../../format/ids.js'
import { questionBody, renderThread } from './docs.js'
import type { ThreadListDocT } from './json.js'

export const threads = defineCommand({
  path: 'threads',
  summary: 'Questions and their answers, newest first',
  description:
    'Every question asked with `dacli ask`, with its answer (or who dismissed it and why). --open shows only those still waiting for a person.',
  args: [],
  flags: {
    open: bool('only questions nobody has answered or dismissed yet'),
    about: str('only questions about this task', { valueName: 'REF' }),
    project: str('only questions about tasks of this project', { valueName: 'SLUG' }),
    limit: int('at most this many', { min: 1 }),
  },
  json: 'thread-list/v1',
  mutates: false,
  examples: ['dacli threads --open', 'dacli threads --about ledger/4 --json'],
  async run(ctx, input) {
    const store = await ctx.store()
    const project = projectFilter(input.flags.project)
    const { limit } = input.flags
    if (project !== undefined) store.requireProject(project)
    const aboutRef = input.flags.about
    const about = aboutRef === undefined ? undefined : (await store.readTask(aboutRef)).id
    const open = input.flags.open === true
    const r = await listThreads(store, {
      open,
      ...(about === undefined ? {} : { about }),
      ...(project === undefined ? {} : { project }),
    })
    ctx.notes.skipped(r.broken)
    const all = r.threads.map((t) => questionBody(t.question, t.task, t.answer))
    const page = limit === undefined ? all : all.slice(0, limit)
    const data: ThreadListDocT = {
      schema: 'thread-list/v1',
      threads: page,
      total: all.length,
      open: all.filter((t) => t.state === 'open').length,
      truncated: page.length < all.length,
      skipped: r.broken,
    }
    return {
      data,
      human(out) {
        if (page.length === 0) out.line(open ? 'no open questions' : 'no questions yet')
        page.forEach((t, i) => {
          if (i > 0) out.line('')
          renderThread(out, t)
        })
        if (data.truncated) out.line(out.style('dim', `${data.total - page.length} more (raise --limit)`))
      },
    }
  },
})
