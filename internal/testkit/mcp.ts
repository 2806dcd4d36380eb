// MCP test sessions: an SDK Client connected to createServer() through the SDK's
// in-memory transport, over a real workspace, with the identity bound the way
// `mcp serve` binds it (resolved once from DACLI_AGENT through the store).
// The SDK is imported dynamically: statically, only internal/mcp may import it.

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { CommandEntry } from '../clikit/command.js'
import { createServer } from '../mcp/server.js'
import type { Profile } from '../mcp/tools.js'
import { afterMutation, services } from '../runtime/services.js'
import { baseEnv, table as eagerTable, type RunOpts, tempDir, type Workspace, workspace } from './ws.js'

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
}

export async function session(root: string, opts: SessionOpts = {}): Promise<Session> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js')
  const env = baseEnv()
  if (opts.as !== undefined) env.DACLI_AGENT = opts.as
  const now = () => new Date()
  const identity = await (await services.store(root, env, now)).identity()
  const { server } = createServer({
    runtime: { env, cwd: root, now, services, table: opts.table ?? eagerTable, identity, afterMutation },
    profile: opts.profile ?? 'full',
  })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'dacli-tests', version: '0' })
  await client.connect(clientSide)
  return {
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    tools: async () => (await client.listTools()).tools,
    close: () => client.close(),
  }
}

/** The text of a result's first content block, parsed as JSON. */
export function textJSON(r: CallToolResult): any {
  const first = r.content[0]
  if (first?.type !== 'text') throw new Error(`no text content: ${JSON.stringify(r)}`)
  return JSON.parse(first.text)
}

export interface Fixture {
  readonly ws: Workspace
  /** Tokens of a read-write (`worker`) and a read-only (`reader`) agent. */
  readonly rw: { id: string; token: string }
  readonly ro: { id: string; token: string }
  /** A fresh copy of the workspace, for a test that writes. */
  copy(): string
}

/**
 * Project `alpha`: 1 open (one criterion, estimated), 2 depends on 1, 3 claimed by the rw agent, 4 open with its
 * criterion checked, 5 done; a decision note.
 */
export async function fixture(): Promise<Fixture> {
  const ws = await workspace()
  const ok = async (...a: (string | RunOpts)[]) => (await ws.dacli(...a)).expectExit(0)
  await ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ok('task', 'add', 'First thing', '--project', 'alpha', '--accept', 'it works', '--estimate', '1,2,3')
  await ok('task', 'add', 'Second thing', '--project', 'alpha', '--depends-on', '1', '--accept', 'also')
  await ok('task', 'add', 'Third owned job', '--project', 'alpha', '--accept', 'c')
  await ok('task', 'add', 'Fourth ready job', '--project', 'alpha', '--accept', 'd')
  await ok('task', 'add', 'Fifth finished job', '--project', 'alpha', '--accept', 'e')
  await ok('task', 'check', 'alpha/4', '--all')
  await ok('accept', 'alpha/5')
  await ok('note', 'add', 'decision', 'Use X', '--project', 'alpha', '--rejected', 'Y')
  const rw = await ws.agent('rw', 'worker')
  const ro = await ws.agent('ro', 'reader')
  await ok('task', 'claim', 'alpha/3', { as: rw.token })
  return {
    ws,
    rw,
    ro,
    copy() {
      const dir = tempDir('dacli-mcp-')
      fs.cpSync(ws.root, dir, { recursive: true })
      return dir
    },
  }
}

/** Every file under `.dacli` (cache and locks aside) with its bytes: "nothing was written" assertions. */
export function snapshotOf(root: string): Map<string, string> {
  const m = new Map<string, string>()
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const rel = path.relative(root, p)
      if (rel.startsWith(path.join('.dacli', 'cache')) || rel.startsWith(path.join('.dacli', 'locks'))) continue
      if (e.isDirectory()) walk(p)
      else m.set(rel, fs.readFileSync(p, 'latin1'))
    }
  }
  walk(path.join(root, '.dacli'))
  return m
}
