import { defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { listRisks } from '../../domain/notes/notes.js'
import { projectFilter } from '../../format/ids.js'
import { riskBody } from './docs.js'
import type { RiskListDocT } from './json.js'

export const list = defineCommand({
  path: 'risk list',
  summary: 'List risks, most severe first',
  args: [],
  flags: { project: str('only this project', { valueName: 'SLUG' }) },
  json: 'risk-list/v1',
  mutates: false,
  async run(ctx, input) {
    const project = projectFilter(input.flags.project)
    const { risks, broken } = await listRisks(await ctx.store(), project)
    ctx.notes.skipped(broken)
    const data: RiskListDocT = { schema: 'risk-list/v1', risks: risks.map(riskBody), skipped: broken }
    return {
      data,
      human(out) {
        if (risks.length === 0) out.line('no risks recorded')
        out.table(
          ['RANK', 'IMPACT×LIKELIHOOD', 'RISK', 'ACTION', 'TITLE'],
          data.risks.map((r) => [
            String(r.rank),
            `${r.impact}×${r.likelihood}`,
            `${r.project}/${r.slug}`,
            r.managed ? 'managed' : out.style('yellow', r.rank <= 2 ? 'none!' : 'none'),
            r.title,
          ]),
        )
      },
    }
  },
})
