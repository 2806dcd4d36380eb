// `risk add`: record a risk; its rank is computed from impact and likelihood.

import { defineCommand } from '../../clikit/command.js'
import { oneOf, str } from '../../clikit/flags.js'
import { addRisk, LEVELS } from '../../domain/notes/notes.js'
import { checkTitle, safeSegment } from '../../format/ids.js'
import { checkSectionText } from '../../format/markdown.js'
import { riskBody } from './docs.js'
import type { RiskDocT } from './json.js'

export const add = defineCommand({
  path: 'risk add',
  summary: 'Record a risk with its impact, likelihood, indicators and action',
  description:
    'The rank is computed, never stored: high impact and likelihood = 1, high and medium = 2, anything low = 3, otherwise 2. A rank 1 or 2 risk without --action is recorded with a warning (it is unmanaged).',
  args: [{ name: 'title', description: 'the risk', required: true, rest: true }],
  flags: {
    project: str('the project', { required: true, valueName: 'SLUG' }),
    impact: oneOf(LEVELS, 'how bad it would be', { required: true }),
    likelihood: oneOf(LEVELS, 'how likely it is', { required: true }),
    indicator: str('a sign that it is happening', { repeatable: true }),
    action: str('what is done about it'),
  },
  json: 'risk/v1',
  mutates: true,
  examples: [
    'dacli risk add "Batch job races the shim" --project ledger --impact high --likelihood medium --indicator "duplicate rows" --action "feature flag"',
  ],
  async run(ctx, input) {
    const title = checkTitle(input.args.title)
    const project = safeSegment(input.flags.project, 'project slug')
    const action = input.flags.action
    if (action !== undefined) checkSectionText(action, '--action')
    const store = await ctx.store()
    const r = await addRisk(store, {
      project,
      title,
      impact: input.flags.impact,
      likelihood: input.flags.likelihood,
      indicators: (input.flags.indicator ?? []).map((i) => checkTitle(i, 'indicator')),
      ...(action === undefined ? {} : { action }),
      by: (await ctx.identity()).id,
    })
    if (r.rank <= 2 && r.action === null)
      ctx.notes.warn(`rank ${r.rank} risk without an action: add one so it is managed`)
    const data: RiskDocT = { schema: 'risk/v1', ...riskBody(r), outcome: 'created' }
    return {
      data,
      human: (out) => out.line(`recorded risk ${out.style('bold', `${r.project}/${r.slug}`)} (rank ${r.rank})`),
    }
  },
})
