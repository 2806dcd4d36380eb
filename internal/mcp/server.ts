// createServer(deps): the SDK's low-level Server, so tools/list publishes the
// JSON Schemas derived from the command table as they are (the high-level
// McpServer would regenerate them from zod). stdio only; see stdio.ts.

import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { VERSION } from '../base/version.js'
import { buildToolset, type CallRuntime, callTool, type Toolset } from './call.js'
import type { Profile } from './tools.js'

export interface ServerDeps {
  /** The runtime every call's invoke() gets; its identity is bound once, at launch. */
  readonly runtime: CallRuntime
  readonly profile: Profile
}

/** Sent once at initialize: the loop and the one rule about refusals, for clients that show it to the model. */
const INSTRUCTIONS =
  'dacli is this repository’s task store. Loop: next_tasks → get_context (before any work) → claim_task → work, with add_note for decisions and findings → check_task → finish_task. A result carrying `refused` is policy’s answer: follow its `next`, never retry it unchanged. Errors carry an error/v1 envelope.'

export function createServer(deps: ServerDeps): { server: Server; toolset: Toolset } {
  const toolset = buildToolset(deps.runtime.table, deps.profile)
  const server = new Server(
    { name: 'dacli', version: VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  )
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...toolset.definitions] as never[] }))
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    return callTool(toolset, deps.runtime, req.params.name, req.params.arguments)
  })
  return { server, toolset }
}
