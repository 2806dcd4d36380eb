// The composition root's collaborators, created lazily. The bin, the tests and
// the MCP server all wire commands to the same services through this module.

import type { CommandEntry, Input } from '../clikit/command.js'
import type { Context, Services, SharedStore } from '../clikit/context.js'
import type { Runtime } from '../clikit/invoke.js'

export const services: Services = {
  store: async (cwd, env, now) => (await import('../store/store.js')).Store.open(cwd, env, now),
  documents: async () => (await import('./documents.js')).registry,
  mcpTools: async () => (await import('../mcp/tools.js')).surface(),
  mcpServe: async (req) => (await import('../mcp/serve.js')).serve(req),
  git: async (cwd, env) => (await import('../adapters/git/index.js')).openGit(cwd, env),
  boardServe: async (req) => (await import('../board/server.js')).serve(req),
  sharedStore,
}

/** Services.sharedStore: one LiveWorkspace per workspace folder, watched through its task folders. */
function sharedStore(): SharedStore {
  const held = new Map<string, import('../store/live.js').LiveWorkspace>()
  let released = false
  return {
    async open(cwd, env, now) {
      const [{ Store }, { liveWorkspace }, { watchTaskFolders }] = await Promise.all([
        import('../store/store.js'),
        import('../store/live.js'),
        import('../store/taskwatch.js'),
      ])
      return Store.open(cwd, env, now, (dir) => {
        let w = held.get(dir)
        if (w === undefined && !released) {
          w = liveWorkspace(dir, () => watchTaskFolders(dir))
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
