// The composition root's collaborators, created lazily. The bin, the tests and
// the MCP server all wire commands to the same services through this module.

import type { CommandEntry, Input } from '../internal/clikit/command.js'
import type { Context, Services, SharedStore } from '../internal/clikit/context.js'
import type { Runtime } from '../internal/clikit/invoke.js'
import { nodeSystem } from './system.js'

export const services: Services = {
  system: nodeSystem,
  store: async (cwd, env, now) => (await import('../internal/store/store.js')).Store.open(cwd, env, now, nodeSystem),
  documents: async () => (await import('../internal/cli/documents.js')).registry,
  mcpTools: async () => (await import('../internal/mcp/tools.js')).surface(),
  mcpServe: async (req) => (await import('../internal/mcp/serve.js')).serve(req),
  mcpServeHttp: async (req) => (await import('../internal/mcp/http.js')).serveHttp(req),
  git: async (cwd, env) => (await import('../internal/adapters/git/index.js')).openGit(cwd, env, nodeSystem),
  boardServe: async (req) => (await import('../internal/board/server.js')).serve(req),
  sharedStore,
}

/** Services.sharedStore: one LiveWorkspace per workspace folder, watched through its task folders. */
function sharedStore(): SharedStore {
  const held = new Map<string, import('../internal/store/live.js').LiveWorkspace>()
  let released = false
  return {
    async open(cwd, env, now) {
      const [{ Store }, { liveWorkspace }, { watchTaskFolders }] = await Promise.all([
        import('../internal/store/store.js'),
        import('../internal/store/live.js'),
        import('../internal/store/taskwatch.js'),
      ])
      return Store.open(cwd, env, now, nodeSystem, (dir) => {
        let w = held.get(dir)
        if (w === undefined && !released) {
          w = liveWorkspace(dir, () => watchTaskFolders(dir, { events: true }))
          held.set(dir, w)
        }
        return w ?? null
      })
    },
    release() {
      released = true
      for (const w of held.values()) w.release()
      held.clear()
    },
  }
}

/**
 * Whether a successful mutating command gets recorded: the record commands commit (or exchange commits)
 * themselves, a dry run changed nothing, and the workspace must ask for it (`autorecord: true`).
 */
async function wantsRecord(ctx: Context, command: CommandEntry, input: Input): Promise<boolean> {
  if (command.path === 'record' || command.path.startsWith('record ')) return false
  if (command.standalone || input.flags['dry-run'] === true) return false
  return (await ctx.store().catch(() => null))?.config.autorecord === true
}

/** `Runtime.afterMutation`: autorecord, its module loaded only when the workspace records. */
export const afterMutation: NonNullable<Runtime['afterMutation']> = async (ctx, command, input, data) => {
  if (await wantsRecord(ctx, command, input))
    await (await import('./autorecord.js')).autorecord(ctx, command, input, data)
}
