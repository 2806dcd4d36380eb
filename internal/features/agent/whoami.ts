import { cloneId } from '../../adapters/git/clone.js'
import { userIdent } from '../../adapters/git/config.js'
import { defineCommand } from '../../clikit/command.js'
import { ROOT_ID } from '../../format/model.js'
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
    const store = await ctx.store()
    const where = store.where()
    // The root is a person: name them as git does. Agents are named by their id.
    const displayName = who.id === ROOT_ID ? userIdent(store.git?.commonDir ?? null, ctx.env, 'name') : null
    const data: IdentityDocT = {
      schema: 'identity/v1',
      id: who.id,
      grant: who.grant,
      role: who.role,
      display_name: displayName,
      parent: who.parent,
      workspace: where,
      clone: store.git === null ? null : cloneId(store.git.commonDir),
    }
    return {
      data,
      human(out) {
        const name = displayName ? ` (${displayName})` : ''
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
