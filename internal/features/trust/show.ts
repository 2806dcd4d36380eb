import { defineCommand } from '../../clikit/command.js'
import { renderTrust, trustDoc } from './doc.js'

export const show = defineCommand({
  path: 'trust show',
  summary: 'Show the root keys this clone trusts, and the published ones it does not',
  description:
    'Every identity and every signed event chains up to a root key, and root keys are published in the work tree (.dacli/agents/a-root.keys/), where anyone who can write the work tree can plant one. A key counts only when this clone’s trust anchor vouches for it: its fingerprint pinned in the clone’s git directory (dacli/trust) or in the user’s configuration directory ($XDG_CONFIG_HOME/dacli/trust/<workspace id>), or the clone’s own root key. Lists every published key with its full fingerprint and whether it is trusted; `dacli trust accept` pins one.',
  args: [],
  flags: {},
  json: 'trust/v1',
  mutates: false,
  examples: ['dacli trust show', 'dacli trust show --json'],
  async run(ctx) {
    const data = trustDoc(await ctx.store(), [], null)
    return { data, human: (out) => renderTrust(out, data) }
  },
})
