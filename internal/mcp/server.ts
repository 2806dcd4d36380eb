// createServer(deps): the SDK's low-level Server, so tools/list publishes the
// JSON Schemas derived from the command table as they are (the high-level
// McpServer would regenerate them from zod). Served on stdio (stdio.ts) and over HTTP (http.ts).

import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { VERSION } from '../base/version.js'
import type { McpResources } from '../clikit/context.js'
import { buildToolset, type CallRuntime, callTool, serves, type Toolset } from './call.js'
import { CheckedServer } from './params.js'
import { attachResources, ProtocolError, type ResourcesHandle } from './resources.js'
import type { Profile } from './tools.js'

export interface ServerDeps {
  /** The runtime every call's invoke() gets; its identity is bound once, at launch. */
  readonly runtime: CallRuntime
  readonly profile: Profile
  /** Serve the workspace's objects as resources (features/mcp/resources.ts); absent, tools only. */
  readonly resources?: McpResources
  /** The tools, when already built (the HTTP server builds them once for all its sessions). */
  readonly toolset?: Toolset
}

/** Sent once at initialize: the loop and the one rule about refusals, for clients that show it to the model. */
const INSTRUCTIONS =
  'dacli is this repository’s task store. Loop: next_tasks → get_context (before any work) → claim_task → work, with add_note for decisions and findings → check_task → finish_task. A result carrying `refused` is policy’s answer: follow its `next`, never retry it unchanged. Errors carry an error/v1 envelope.'

export function createServer(deps: ServerDeps): {
  server: Server
  toolset: Toolset
  /** The resources' watch, when resources are served (close it with the server). */
  resources: ResourcesHandle | null
} {
  const toolset = deps.toolset ?? buildToolset(deps.runtime.table, deps.profile)
  const server = new CheckedServer(
    { name: 'dacli', version: VERSION },
    {
      capabilities: {
        tools: {},
        ...(deps.resources === undefined ? {} : { resources: { subscribe: true, listChanged: true } }),
      },
      instructions: INSTRUCTIONS,
    },
  )
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...toolset.definitions] as never[] }))
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    // Where the specification puts it: an unknown tool is a protocol error (-32602), not a tool result. A call
    // whose arguments break the tool's schema is a tool result with isError, which the model reads to correct
    // itself; a refusal by policy is a normal result carrying `refused` (results.ts).
    const { name } = req.params
    if (!serves(toolset, name)) {
      throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`, {
        tools: toolset.definitions.map((d) => d.name),
      })
    }
    // The call's own signal: aborted by the client's notifications/cancelled, when its session closes, or when the
    // whole server begins to close (the runtime's).
    const cancel =
      deps.runtime.cancel === undefined ? extra.signal : AbortSignal.any([extra.signal, deps.runtime.cancel])
    return callTool(toolset, { ...deps.runtime, cancel }, name, req.params.arguments)
  })
  const resources = deps.resources === undefined ? null : attachResources(server, deps.runtime, deps.resources)
  return { server, toolset, resources }
}
