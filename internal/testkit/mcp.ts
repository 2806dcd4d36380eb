// MCP test sessions: an SDK Client connected to createServer() through the SDK's
// in-memory transport, over a real workspace, with the identity bound the way
// `mcp serve` binds it (resolved once from DACLI_AGENT through the store).
// The SDK is imported dynamically: statically, only internal/mcp may import it.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import { afterMutation, services } from '../../cmd/services.js'
import type { CommandEntry } from '../clikit/command.js'
import { identityOf } from '../domain/identity/identity.js'
import { resources as mcpResources } from '../features/mcp/resources.js'
import { createServer } from '../mcp/server.js'
import type { Profile } from '../mcp/tools.js'
import { BIN, baseEnv, table as eagerTable } from './ws.js'

export interface Session {
  readonly client: Client
  /** tools/call; the result as the client sees it. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>
  tools(): Promise<Tool[]>
  close(): Promise<void>
}

export interface SessionOpts {
  /** DACLI_AGENT for the session (unset: a-root). */
  as?: string
  profile?: Profile
  table?: readonly CommandEntry[]
  /** Variables added to the session's environment (a fake GitHub's). */
  env?: Record<string, string | undefined>
}

export async function session(root: string, opts: SessionOpts = {}): Promise<Session> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js')
  const env = baseEnv()
  if (opts.as !== undefined) env.DACLI_AGENT = opts.as
  Object.assign(env, opts.env ?? {})
  const now = () => new Date()
  const identity = await identityOf(await services.store(root, env, now))
  const { server, resources } = createServer({
    runtime: { env, cwd: root, now, services, table: opts.table ?? eagerTable, identity, afterMutation },
    profile: opts.profile ?? 'full',
    // The resources `mcp serve` serves (features/mcp/resources.ts).
    resources: mcpResources,
  })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'dacli-tests', version: '0' })
  await client.connect(clientSide)
  return {
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    tools: async () => (await client.listTools()).tools,
    close: async () => {
      resources?.close()
      await client.close()
    },
  }
}

/** The text of a result's first content block, parsed as JSON. */
export function textJSON(r: CallToolResult): any {
  const first = r.content[0]
  if (first?.type !== 'text') throw new Error(`no text content: ${JSON.stringify(r)}`)
  return JSON.parse(first.text)
}

/**
 * The built bin's (or `bin`'s) `mcp serve --quiet` in `root`, over stdio, with the SDK's client connected to it
 * (named `name`); its stderr is piped, not shown. Close the client to end the server.
 */
export async function servedOverStdio(root: string, name: string, bin = BIN): Promise<Client> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', 'serve', '--quiet'],
    cwd: root,
    env: baseEnv() as Record<string, string>,
    stderr: 'pipe',
  })
  const client = new Client({ name, version: '0' })
  await client.connect(transport)
  return client
}

/** A tool call on the server `client` speaks to: its structured result, or a thrown error naming the tool. */
export const callerOf =
  (client: Client) =>
  async (name: string, args: Record<string, unknown> = {}): Promise<any> => {
    const r = (await client.callTool({ name, arguments: { schema_version: 1, ...args } })) as {
      isError?: boolean
      structuredContent?: any
      content: { text: string }[]
    }
    if (r.isError) throw new Error(`${name}: ${r.content[0]?.text}`)
    return r.structuredContent
  }
