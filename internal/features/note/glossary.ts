import { UsageError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { readGlossary, setGlossaryTerm } from '../../domain/notes/notes.js'
import { checkTitle, safeSegment } from '../../format/ids.js'
import type { GlossaryDocT } from './json.js'

export const glossary = defineCommand({
  path: 'glossary',
  summary: 'Show a project’s glossary, or define a term (--term with --def)',
  description:
    'Without flags it reads. --term T --def D adds the term or replaces its definition (a write: it needs a read-write grant).',
  args: [arg('project', 'the project')],
  flags: {
    term: str('a term to define'),
    def: str('its definition'),
  },
  json: 'glossary/v1',
  mutates: false,
  mutatesWith: ['term', 'def'],
  examples: [
    'dacli glossary ledger',
    'dacli glossary ledger --term shim --def "the single seam all ledger writes pass through"',
  ],
  async run(ctx, input) {
    const project = safeSegment(input.args.project, 'project slug')
    const term = input.flags.term
    const def = input.flags.def
    if ((term === undefined) !== (def === undefined)) throw new UsageError('--term and --def go together')
    const store = await ctx.store()
    let changed = false
    if (term !== undefined && def !== undefined) {
      changed = await setGlossaryTerm(
        store,
        project,
        checkTitle(term, 'term'),
        checkTitle(def, 'definition'),
        (await ctx.identity()).id,
      )
    }
    const data: GlossaryDocT = { schema: 'glossary/v1', project, terms: await readGlossary(store, project), changed }
    return {
      data,
      human(out) {
        if (term !== undefined) out.line(changed ? `defined ${term}` : `unchanged: ${term} already has that definition`)
        if (data.terms.length === 0) out.line(`no terms in ${project}'s glossary yet`)
        for (const t of data.terms) out.line(`${out.style('bold', t.term)} — ${t.definition}`)
      },
    }
  },
})
