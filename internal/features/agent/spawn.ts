import { UsageError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import { oneOf, str } from '../../clikit/flags.js'
import { spawnAgent } from '../../domain/identity/agents.js'
import { checkTitle } from '../../format/ids.js'
import type { AgentTokenDocT } from './json.js'

export const spawn = defineCommand({
  path: 'agent spawn',
  summary: 'Mint a child identity of yours and print its token once',
  description:
    'The token (48 hex characters, 192 random bits) is printed once — alone on stdout in human mode, with the explanation on stderr — and never stored: only its SHA-256 is kept. Give it to the agent as DACLI_AGENT. --name gives it a chosen id, a-<NAME> (an existing one, retired or not, is a conflict: exit 5); otherwise the id is a-<role>-<6 random characters>. The default grant is ro (read-only: its claims, done and findings become proposals for the owner). A grant above your own is refused (exit 3).',
  args: [],
  flags: {
    role: str('what the agent does (part of its id: a-<role>-<xxxxxx>)', { valueName: 'ROLE' }),
    grant: oneOf(['ro', 'rw'], 'what the agent may do', { defaultText: 'ro' }),
    name: str('its name, which becomes its id a-<NAME> (lower-case letters, digits, single dashes)', {
      valueName: 'NAME',
    }),
  },
  json: 'agent-token/v1',
  mutates: true,
  examples: [
    'dacli agent spawn --role implementer --grant rw',
    'dacli agent spawn --name reviewer-1 --role reviewer',
    'DACLI_AGENT=$(dacli agent spawn --role reviewer) dacli whoami',
  ],
  async run(ctx, input) {
    const role = input.flags.role
    if (role !== undefined) checkTitle(role, 'role')
    const name = input.flags.name
    if (name !== undefined && (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name) || name === 'root' || name.length > 60)) {
      throw new UsageError(
        `--name "${name}" is not an agent name: use lower-case letters, digits and single dashes (at most 60), not "root"`,
        { details: { name } },
      )
    }
    const store = await ctx.store()
    const parent = await ctx.identity()
    const grant = input.flags.grant ?? 'ro'
    const a = await spawnAgent(store, parent, { role: role ?? null, grant, name: name ?? null })
    const data: AgentTokenDocT = {
      schema: 'agent-token/v1',
      id: a.id,
      grant: a.grant,
      role: a.role,
      parent: parent.id,
      token: a.token,
    }
    return {
      data,
      human(out) {
        out.line(a.token)
        ctx.notes.note(
          `spawned ${a.id} (grant ${a.grant}${a.role ? `, role ${a.role}` : ''}) as a child of ${parent.id}`,
        )
        ctx.notes.note('the token above is shown once and not stored; hand it to the agent as DACLI_AGENT=<token>')
      },
    }
  },
})
