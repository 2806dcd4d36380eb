// Resources over MCP: the workspace's tasks, projects and notes (features/mcp/resources.ts says which and how they
// read), `resources/list` (paged), `resources/templates/list`, `resources/read`, and subscriptions. A client that
// subscribes to a uri gets `notifications/resources/updated` when the object's file changes — by a dacli command in
// any process, or by hand, git or another tool — and every client that has asked about resources gets
// `notifications/resources/list_changed` when an object appears or goes. What tells: a watch of the workspace's
// folders (board/watch.ts, the board's live updates: one watch a folder, settled for a moment, folders listed again
// every few seconds), after which every subscribed object is read again and compared with what was last sent, so a
// notification means the bytes changed, never that something nearby did. The watch starts with the first resource
// request and stops with the server.
//
// Errors are JSON-RPC errors: an unknown object -32002 (the specification's "resource not found"), a uri this server
// does not serve or a bad cursor -32602, a refusal by policy (the identity retired or untrusted) -32000 as the HTTP
// server's refusals are, anything else -32603; `data` is the error/v1 envelope. Every request re-resolves the bound
// identity first, as a tool call does (a retired identity reads nothing more).

import { createHash } from 'node:crypto'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { watchTree } from '../board/watch.js'
import type { McpResources } from '../clikit/context.js'
import { invoke } from '../clikit/invoke.js'
import { bufferIO } from '../clikit/io.js'
import { envelopeOf } from '../clikit/render.js'
import type { CallRuntime } from './call.js'

export const RESOURCE_NOT_FOUND = -32002
/** A refusal by policy (http.ts answers a refused token with the same code). */
export const REFUSED = -32000

/** A JSON-RPC error answered as it is (the SDK sends a thrown error's `code`, `message` and `data`). */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

export interface ResourcesHandle {
  /** Stop watching (the server closed). */
  close(): void
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex')
/** What a subscription compares: the object's bytes and where its file is (a task moved to another status folder changed). */
const stateOf = (r: { contents: { text: string }; path: string }) => digest(`${r.path}\u0000${r.contents.text}`)

const CODE_OF_KIND: Record<string, number> = { not_found: RESOURCE_NOT_FOUND, usage: -32602, refused: REFUSED }

function protocolErrorOf(err: unknown): ProtocolError {
  if (err instanceof ProtocolError) return err
  const env = envelopeOf(err, false)
  return new ProtocolError(CODE_OF_KIND[env.kind] ?? -32603, env.message, env)
}

export function attachResources(server: Server, rt: CallRuntime, provider: McpResources): ResourcesHandle {
  const open = () => rt.services.store(rt.cwd, rt.env, rt.now)
  /** One store for one piece of work, whose reads then teach the caches (as invoke() does after a command). */
  async function using<T>(f: (store: Awaited<ReturnType<typeof open>>) => Promise<T>): Promise<T> {
    const store = await open()
    try {
      return await f(store)
    } finally {
      store.flush()
    }
  }
  /** Subscribed uris and the digest of what the client was last told (null: it did not exist). */
  const subscribed = new Map<string, string | null>()
  let listed: string | null = null
  let watch: { close(): void } | null = null
  let closed = false
  let running: Promise<void> | null = null
  let again = false

  /** The bound identity still resolves (a tool call checks the same through invoke()). */
  async function gate(): Promise<void> {
    const whoami = rt.table.find((c) => c.path === 'whoami')
    if (whoami === undefined) return
    const out = await invoke(whoami, ['--json'], { ...rt, io: bufferIO() })
    if (out.exitCode !== 0 && out.error !== undefined) {
      throw new ProtocolError(CODE_OF_KIND[out.error.kind] ?? -32603, out.error.message, out.error)
    }
  }

  async function current(uri: string): Promise<string | null> {
    try {
      return stateOf(await using((store) => provider.read(store, uri)))
    } catch {
      return null
    }
  }

  async function listDigest(): Promise<string> {
    return digest((await using((store) => provider.uris(store))).join('\n'))
  }

  /** Compare every subscribed object, and the list, with what was last sent; notify what changed. */
  async function look(): Promise<void> {
    for (const [uri, last] of subscribed) {
      const now = await current(uri)
      if (now === last || !subscribed.has(uri)) continue
      subscribed.set(uri, now)
      await server.sendResourceUpdated({ uri })
    }
    const now = await listDigest()
    if (listed !== null && now !== listed) await server.sendResourceListChanged()
    listed = now
  }

  /** One look at a time; a change during a look brings another. */
  function changed(): void {
    if (closed) return
    if (running !== null) {
      again = true
      return
    }
    running = look()
      .catch(() => undefined)
      .finally(() => {
        running = null
        if (again && !closed) {
          again = false
          changed()
        }
      })
  }

  async function start(): Promise<void> {
    if (watch !== null || closed) return
    const store = await open()
    watch = watchTree(() => provider.folders(store), changed)
    listed ??= await listDigest()
  }

  const handle = async <T>(f: () => Promise<T>): Promise<T> => {
    try {
      await gate()
      await start()
      return await f()
    } catch (e) {
      throw protocolErrorOf(e)
    }
  }

  server.setRequestHandler(ListResourcesRequestSchema, (req) =>
    handle(async () => {
      const page = await using((store) => provider.list(store, req.params?.cursor ?? null))
      return {
        resources: page.resources.map((r) => ({ ...r })),
        ...(page.next === null ? {} : { nextCursor: page.next }),
      }
    }),
  )
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () =>
    handle(async () => ({ resourceTemplates: provider.templates.map((t) => ({ ...t })) })),
  )
  server.setRequestHandler(ReadResourceRequestSchema, (req) =>
    handle(async () => ({ contents: [(await using((store) => provider.read(store, req.params.uri))).contents] })),
  )
  server.setRequestHandler(SubscribeRequestSchema, (req) =>
    handle(async () => {
      const { uri } = req.params
      // Only what can be read can be subscribed to: a typo answers now, not with silence forever.
      const read = await using((store) => provider.read(store, uri))
      subscribed.set(uri, stateOf(read))
      return {}
    }),
  )
  server.setRequestHandler(UnsubscribeRequestSchema, (req) =>
    handle(async () => {
      subscribed.delete(req.params.uri)
      return {}
    }),
  )
  return {
    close() {
      closed = true
      watch?.close()
      watch = null
    },
  }
}
