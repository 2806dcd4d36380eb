// The composition root's collaborators, created lazily. The bin, the tests and
// the MCP server all wire commands to the same services through this module.

import type { Services } from '../clikit/context.js'
import type { Runtime } from '../clikit/invoke.js'

export const services: Services = {
  store: async (cwd, env, now) => (await import('../store/store.js')).Store.open(cwd, env, now),
  documents: async () => (await import('../cli/documents.js')).registry,
  mcpTools: async () => (await import('../mcp/tools.js')).surface(),
  mcpServe: async (req) => (await import('../mcp/serve.js')).serve(req),
  git: async (cwd, env) => (await import('../gitx/index.js')).openGit(cwd, env),
  boardServe: async (req) => (await import('../board/server.js')).serve(req),
}

/** `Runtime.afterMutation`: autorecord (loaded only after a mutating command). */
export const afterMutation: NonNullable<Runtime['afterMutation']> = async (ctx, command, input, data) =>
  (await import('./autorecord.js')).autorecord(ctx, command, input, data)
