import { defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { listAgents } from '../../domain/identity/agents.js'
import type { AgentListDocT } from './json.js'
import { agentSummary, verdictsOf } from './show.js'

export const list = defineCommand({
  path: 'agent list',
  summary: 'List live identities (with --all, retired ones too)',
  args: [],
  flags: { all: bool('include retired identities') },
  json: 'agent-list/v1',
  mutates: false,
  async run(ctx, input) {
    const all = input.flags.all === true
    const store = await ctx.store()
    const agents = (await listAgents(store)).filter((a) => all || !a.retired)
    const verdicts = await verdictsOf(store)
    const data: AgentListDocT = {
      schema: 'agent-list/v1',
      all,
      agents: agents.map((a) => agentSummary(a, verdicts)),
    }
    return {
      data,
      human(out) {
        out.table(
          ['ID', 'GRANT', 'ROLE', 'PARENT', 'STATE'],
          data.agents.map((a) => [
            a.id,
            a.grant,
            a.role ?? '-',
            a.parent ?? '-',
            a.retired ? 'retired' : a.refused !== null ? 'refused' : 'live',
          ]),
          { shrink: 2 },
        )
      },
    }
  },
})
