import { defineCommand } from '../../clikit/command.js'
import type { IdentityDocT } from './json.js'

export const whoami = defineCommand({
  path: 'whoami',
  summary: 'Show the identity dacli acts as (from DACLI_AGENT)',
  description:
    'DACLI_AGENT unset means the workspace root (a-root, read-write). Set to a token, the agent it was minted for. Set but empty, unknown or retired: refused (exit 3), never a silent fall back to root. The document names the store in use (`workspace`): from a linked worktree it is the main worktree’s.',
  args: [],
  flags: {},
  json: 'identity/v1',
  mutates: false,
  async run(ctx) {
    const who = await ctx.identity()
    const where = (await ctx.store()).where()
    const data: IdentityDocT = {
      schema: 'identity/v1',
      id: who.id,
      grant: who.grant,
      role: who.role,
      display_name: who.display_name,
      parent: who.parent,
      workspace: where,
    }
    return {
      data,
      human(out) {
        const name = who.display_name ? ` (${who.display_name})` : ''
        out.line(`${who.id}${name}  grant: ${who.grant}${who.role ? `  role: ${who.role}` : ''}`)
        out.line(
          out.style(
            'dim',
            `workspace ${where.dir}${where.linked ? ` (shared with the main worktree; run from ${where.worktree})` : ''}`,
          ),
        )
      },
    }
  },
})
