import { arg, defineCommand } from '../../clikit/command.js'
import { removeRisk } from '../../domain/notes/edit.js'
import { riskBody } from './docs.js'
import type { RiskDocT } from './json.js'

export const rm = defineCommand({
  path: 'risk rm',
  summary: 'Remove a risk that no longer applies',
  description:
    'Deletes the risk file; git history and the record branch keep it. The document describes the risk as it was.',
  args: [arg('ref', 'the risk: r-<ULID>, <project>/<slug> or a slug')],
  flags: {},
  json: 'risk/v1',
  mutates: true,
  destructive: true,
  async run(ctx, input) {
    const store = await ctx.store()
    const r = await removeRisk(store, input.args.ref, (await ctx.identity()).id)
    const data: RiskDocT = { schema: 'risk/v1', ...riskBody(r), outcome: 'removed' }
    return { data, human: (out) => out.line(`removed risk ${r.project}/${r.slug} (${r.path})`) }
  },
})
