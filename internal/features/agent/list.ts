import { defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { scanAgents } from '../../domain/identity/identity.js'
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
    const scanned = await scanAgents(store.dir, store.root)
    const agents = scanned.agents.filter((a) => all || !a.retired)
    const verdicts = await verdictsOf(store)
    // A file that cannot be read is said, never silently left out (its identity's token is refused: doctor says why).
    ctx.notes.skipped(scanned.broken)
    const data: AgentListDocT = {
      schema: 'agent-list/v1',
      all,
      agents: agents.map((a) => agentSummary(a, verdicts)),
      skipped: scanned.broken,
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
