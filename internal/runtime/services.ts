// The composition root's collaborators, created lazily. The bin, the tests and
// the MCP server all wire commands to the same services through this module.

import type { Services } from '../clikit/context.js'

export const services: Services = {
  store: async (cwd, env, now) => (await import('../store/store.js')).Store.open(cwd, env, now),
  documents: async () => (await import('../cli/documents.js')).registry,
  mcpTools: async () => (await import('../mcp/tools.js')).toolRegistry(),
  mcpProtocolVersion: async () => (await import('../mcp/tools.js')).PROTOCOL_VERSION,
  mcpServe: async (req) => (await import('../mcp/serve.js')).serve(req),
}
