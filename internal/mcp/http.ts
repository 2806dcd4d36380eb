// `dacli mcp serve --http`: the same server (server.ts) over the SDK's Streamable HTTP transport, one SDK Server a
// session. Every request to /mcp is checked in this order, each answered with a JSON-RPC error body when it fails:
//
//   1. the Host header names a loopback host when the server listens on one (a page whose DNS name was rebound to
//      127.0.0.1 still sends its own name) — else 403;
//   2. an Origin header, when sent, is a loopback origin (or, listening elsewhere, this very host) — else 403;
//   3. `Authorization: Bearer <token>` carries the launch token or an agent's token of this workspace, resolved as
//      DACLI_AGENT is on the CLI — else 401 with WWW-Authenticate; the token's identity is the caller of every call
//      of the session it opens, with that identity's grant;
//   4. the Mcp-Session-Id names a live session opened with the same token (404 unknown, 403 another token's), or
//      the request is an initialize, which opens one (room made by closing an idle session, see makeRoom).
//
// Each session keeps the messages it sent in a bounded event store (events.ts), so a client whose SSE stream broke
// reconnects with Last-Event-ID and is sent the rest, the response to its call included.

import { createHash, randomUUID, timingSafeEqual } from 'node:crypto'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import {
  isInitializeRequest,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js'
import { drainable } from '../base/drain.js'
import { RefusedError } from '../base/errors.js'
import { isLoopback } from '../base/loopback.js'
import type { McpCaller, McpHttpHandle, McpHttpRequest } from '../clikit/context.js'
import { batchRefused, negotiatedVersion, takesBatches } from './batches.js'
import { buildToolset } from './call.js'
import { MemoryEventStore } from './events.js'
import { createServer } from './server.js'
import { badToolCall, MAX_LINE_BYTES } from './stdio.js'
import { warm } from './warm.js'

/**
 * Whether the Streamable HTTP transport would take a POST as it is (JSON in; JSON and an event stream accepted; a
 * protocol version it speaks, when one is named): the checks it makes before it reads a message.
 */
function transportTakes(hreq: http.IncomingMessage): boolean {
  const type = hreq.headers['content-type'] ?? ''
  const accept = hreq.headers.accept ?? ''
  const version = hreq.headers['mcp-protocol-version']
  return (
    type.includes('application/json') &&
    accept.includes('application/json') &&
    accept.includes('text/event-stream') &&
    (version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version)))
  )
}

/** A JSON-RPC error answered by dacli before the transport sees the message (as stdio answers it). */
function rpcError(res: http.ServerResponse, status: number, id: string | number | null, code: number, message: string) {
  res.writeHead(status, { 'Content-Type': 'application/json' })
  res.end(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`)
}

/** The one path the transport answers on. */
export const ENDPOINT = '/mcp'
/** Sessions kept at once, every token's together. */
const MAX_SESSIONS = 100
/** Sessions one token may hold at once: no one token takes every place. */
const MAX_PER_TOKEN = MAX_SESSIONS / 2
/** A session with no request and no open stream for this long is closed. */
const IDLE_MS = 30 * 60_000
const SWEEP_MS = 60_000
/** What a client is told to wait before it reconnects a broken stream (the SSE `retry` field). */
const RETRY_MS = 1_000

interface Session {
  /** Its Mcp-Session-Id, chosen when it opens (the transport answers it to the initialize). */
  readonly id: string
  readonly transport: StreamableHTTPServerTransport
  readonly server: Server
  readonly caller: McpCaller
  /** SHA-256 of the token that opened it: every later request must carry the same. */
  readonly tokenHash: Buffer
  lastSeen: number
  /** Responses in flight (an open SSE stream counts until it closes). */
  open: number
  /** The protocol version its initialize negotiated (batches.ts: whether it takes batches). */
  readonly version: string
}

const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest()

/** A JSON-RPC error as the HTTP answer (`id: null`: the request's id is not known, or not read, here). */
function fail(
  res: http.ServerResponse,
  status: number,
  message: string,
  extra: Record<string, string> = {},
  data?: unknown,
) {
  if (res.headersSent) {
    res.end()
    return
  }
  const error = { code: status === 404 ? -32001 : -32000, message, ...(data === undefined ? {} : { data }) }
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...extra })
  res.end(`${JSON.stringify({ jsonrpc: '2.0', id: null, error })}\n`)
}

/** The bearer token of the Authorization header, or null. */
function bearer(req: http.IncomingMessage): string | null {
  const h = req.headers.authorization
  if (typeof h !== 'string') return null
  const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(h)
  return m ? (m[1] as string) : null
}

/** The host name of a Host header (`127.0.0.1:8080`, `[::1]:80`, `name`), lower-cased, or null. */
function hostName(header: string | undefined): string | null {
  if (typeof header !== 'string' || header === '') return null
  try {
    return new URL(`http://${header}`).hostname.toLowerCase()
  } catch {
    return null
  }
}

/** 1 and 2 above: why the request is refused as coming from a foreign site, or null. */
function foreign(req: http.IncomingMessage, loopbackOnly: boolean): string | null {
  const host = hostName(req.headers.host)
  if (host === null) return 'a request must carry a Host header'
  if (loopbackOnly && !isLoopback(host)) {
    return `the Host header names ${host}, not this loopback server (DNS rebinding protection)`
  }
  const origin = req.headers.origin
  if (origin === undefined) return null
  let o: URL
  try {
    o = new URL(origin)
  } catch {
    return `the Origin ${JSON.stringify(origin)} is not an origin this server accepts`
  }
  if (isLoopback(o.hostname)) return null
  if (!loopbackOnly && o.host.toLowerCase() === String(req.headers.host).toLowerCase()) return null
  return `the Origin ${origin} is not this machine's; requests from other sites are refused`
}

/** The body of a POST, parsed; null when it was answered already (too large, not JSON) or cut. */
function readJson(req: http.IncomingMessage, res: http.ServerResponse): Promise<{ body: unknown } | null> {
  return new Promise((resolve) => {
    const parts: Buffer[] = []
    let size = 0
    let over = Number(req.headers['content-length'] ?? 0) > MAX_LINE_BYTES
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > MAX_LINE_BYTES) over = true
      if (!over) parts.push(c)
      // An oversize body is drained so its sender reads the 413; one that goes on and on is cut.
      if (size > 4 * MAX_LINE_BYTES) {
        req.destroy()
        resolve(null)
      }
    })
    req.on('error', () => resolve(null))
    req.on('end', () => {
      if (over) {
        fail(res, 413, `a message may be at most ${MAX_LINE_BYTES} bytes`)
        resolve(null)
        return
      }
      try {
        resolve({ body: JSON.parse(Buffer.concat(parts).toString('utf8')) })
      } catch (e) {
        if (!res.headersSent) rpcError(res, 400, null, -32700, `parse error: ${(e as Error).message}`)
        resolve(null)
      }
    })
  })
}

export async function serveHttp(req: McpHttpRequest): Promise<McpHttpHandle> {
  const loopbackOnly = isLoopback(req.host)
  const toolset = buildToolset(req.runtime.table, req.profile)
  const sessions = new Map<string, Session>()

  const refuseToken = (res: http.ServerResponse, why: string, policy: string, next: readonly string[]) =>
    fail(
      res,
      401,
      why,
      { 'WWW-Authenticate': 'Bearer realm="dacli", error="invalid_token"' },
      { kind: 'refused', policy, next },
    )

  /** 3 above, for a token not yet known to a session: who it is, or null when the request was answered 401. */
  async function caller(token: string | null, res: http.ServerResponse): Promise<McpCaller | null> {
    if (token === null) {
      fail(
        res,
        401,
        'missing bearer token: send Authorization: Bearer <token>',
        {
          'WWW-Authenticate': 'Bearer realm="dacli"',
        },
        {
          kind: 'refused',
          policy: 'identity',
          next: ['use the token `dacli mcp serve --http` printed at start, or an agent token from `dacli agent spawn`'],
        },
      )
      return null
    }
    try {
      return await req.authenticate(token)
    } catch (e) {
      if (!(e instanceof RefusedError)) throw e
      refuseToken(res, e.message, e.policy, e.next)
      return null
    }
  }

  function close(id: string, s: Session): void {
    sessions.delete(id)
    void s.server.close().catch(() => {})
  }

  function sweep(now: number): void {
    for (const [id, s] of sessions) if (s.open === 0 && now - s.lastSeen > IDLE_MS) close(id, s)
  }

  /** The least recently used session `which` takes that is idle (no request in flight, no open stream), or null. */
  function leastRecent(which: (s: Session) => boolean): [string, Session] | null {
    let found: [string, Session] | null = null
    for (const e of sessions) {
      if (e[1].open === 0 && which(e[1]) && (found === null || e[1].lastSeen < found[1].lastSeen)) found = e
    }
    return found
  }

  /**
   * Room for one more session of the token, or why there is none. A session a client left without DELETE (the SDK
   * client's close sends none) would otherwise hold its place for IDLE_MS, and a hundred of them would lock every
   * token out. So a token at its share (MAX_PER_TOKEN) closes its own least recently used idle session, and a full
   * server closes the opener's own, else anyone's; a session with a request in flight or an open stream is never
   * closed, and only when every candidate is one is the new session refused (503).
   */
  function makeRoom(tokenHash: Buffer): string | null {
    sweep(Date.now())
    const own = (s: Session) => s.tokenHash.equals(tokenHash)
    let mine = 0
    for (const s of sessions.values()) if (own(s)) mine++
    if (mine >= MAX_PER_TOKEN) {
      const idle = leastRecent(own)
      if (idle === null) return `this token has ${MAX_PER_TOKEN} sessions, each in use; close one (DELETE) and retry`
      close(...idle)
    }
    if (sessions.size >= MAX_SESSIONS) {
      const idle = leastRecent(own) ?? leastRecent(() => true)
      if (idle === null) return `too many sessions (${MAX_SESSIONS}), each in use; close one (DELETE) and retry`
      close(...idle)
    }
    return null
  }

  /** A new session, kept from now on (so the room made for it is counted at once), or why there is no room. */
  async function open(c: McpCaller, tokenHash: Buffer, version: string): Promise<Session | string> {
    const full = makeRoom(tokenHash)
    if (full !== null) return full
    const id = randomUUID()
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: new MemoryEventStore(),
      retryInterval: RETRY_MS,
      maxRequestBodySize: MAX_LINE_BYTES,
      onsessionclosed: () => {
        if (sessions.get(id) === session) sessions.delete(id)
      },
    })
    const { server, resources } = createServer({
      runtime: {
        ...req.runtime,
        // Every call of every session stops waiting when the server begins to close (its answer is then sent).
        cancel: shutdown.signal,
        env: c.env,
        identity: c.identity,
        ...(c.via === undefined ? {} : { tokenVia: c.via }),
      },
      profile: req.profile,
      toolset,
      ...(req.resources === undefined ? {} : { resources: req.resources }),
    })
    server.onclose = () => resources?.close()
    server.onerror = (e) => req.log(`dacli mcp: ${e.message}`)
    const session: Session = { id, transport, server, caller: c, tokenHash, lastSeen: Date.now(), open: 0, version }
    sessions.set(id, session)
    transport.onclose = () => {
      if (sessions.get(id) === session) sessions.delete(id)
    }
    await server.connect(transport)
    return session
  }

  /** A request of the session under way, from now until its answer ends: the session is busy, never closed for room. */
  function hold(s: Session, res: http.ServerResponse): void {
    s.open++
    s.lastSeen = Date.now()
    res.on('close', () => {
      s.open--
      s.lastSeen = Date.now()
    })
  }

  async function handle(hreq: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (hreq.url ?? '/').split('?')[0]
    if (path !== ENDPOINT) return fail(res, 404, `not found: the MCP endpoint is ${ENDPOINT}`)
    // The endpoint takes messages (POST), a session's event stream (GET) and its end (DELETE); nothing else.
    if (!['POST', 'GET', 'DELETE'].includes(hreq.method ?? '')) {
      return fail(res, 405, `method ${hreq.method} is not allowed: ${ENDPOINT} takes POST, GET and DELETE`, {
        Allow: 'POST, GET, DELETE',
      })
    }
    const why = foreign(hreq, loopbackOnly)
    if (why !== null) return fail(res, 403, why)
    const token = bearer(hreq)
    const sid = hreq.headers['mcp-session-id']
    let session: Session | undefined
    if (typeof sid === 'string') {
      session = sessions.get(sid)
      if (session === undefined) {
        // Checked before the session, so an unknown caller learns nothing of which sessions exist.
        if ((await caller(token, res)) === null) return
        return fail(res, 404, 'Session not found: start a new one with initialize')
      }
      const hash = token === null ? null : digest(token)
      if (hash === null || !timingSafeEqual(hash, session.tokenHash)) {
        if ((await caller(token, res)) === null) return
        return fail(res, 403, 'this session was opened with another token; use that token or open a session of yours')
      }
      hold(session, res)
    }
    // A new session's caller: resolved before its body is read.
    const who = session === undefined ? await caller(token, res) : null
    if (session === undefined && who === null) return
    let body: unknown
    if (hreq.method === 'POST') {
      const read = await readJson(hreq, res)
      if (read === null) return
      body = read.body
      // Answered here, as on stdio, with a short invalid-params error (the SDK would send an internal error) — but
      // only within a session and for a request the transport itself would take (its content type, what it accepts,
      // its protocol version): anything else gets the transport's own answer (400, 406, 415) below.
      const m = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown } | null
      const taken = session !== undefined && transportTakes(hreq)
      // JSON that is no JSON-RPC message is an invalid request (-32600), as on stdio; text that is no JSON at all
      // was a parse error (-32700) above.
      if (taken && !(Array.isArray(body) ? body : [body]).every((x) => JSONRPCMessageSchema.safeParse(x).success)) {
        const id = Array.isArray(body) ? undefined : m?.id
        const echoed = typeof id === 'string' || typeof id === 'number' ? id : null
        return rpcError(res, 400, echoed, -32600, 'invalid request: not a JSON-RPC 2.0 message')
      }
      // As on stdio: a batch only where the session's version takes them.
      if (taken && Array.isArray(body) && !takesBatches((session as Session).version)) {
        return rpcError(res, 400, null, -32600, batchRefused((session as Session).version))
      }
      if (
        taken &&
        m !== null &&
        typeof m === 'object' &&
        !Array.isArray(m) &&
        typeof m.method === 'string' &&
        'id' in m
      ) {
        const bad = badToolCall({ method: m.method, params: m.params })
        if (bad !== null && (typeof m.id === 'string' || typeof m.id === 'number')) {
          return rpcError(res, 200, m.id, -32602, `invalid params for tools/call: ${bad}`)
        }
      }
    }
    if (session === undefined) {
      if (hreq.method !== 'POST' || !isInitializeRequest(body)) {
        return fail(res, 400, 'Bad Request: Mcp-Session-Id header is required (open a session with initialize)')
      }
      const opened = await open(
        who as McpCaller,
        digest(token as string),
        negotiatedVersion(body.params.protocolVersion),
      )
      if (typeof opened === 'string') return fail(res, 503, opened)
      hold(opened, res)
      await opened.transport.handleRequest(hreq, res, body)
      // An initialize the transport refused (its headers) opened nothing: its place is given back.
      if (opened.transport.sessionId === undefined) close(opened.id, opened)
      return
    }
    await session.transport.handleRequest(hreq, res, body)
  }

  const shutdown = new AbortController()
  const server = http.createServer((hreq, res) => {
    handle(hreq, res).catch((e: unknown) => {
      req.log(`dacli mcp: ${(e as Error).message}`)
      fail(res, 500, 'internal error (see the terminal running dacli mcp serve)')
    })
  })
  server.headersTimeout = 10_000
  const drain = drainable(server)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(req.port, req.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  const sweeper = setInterval(() => sweep(Date.now()), SWEEP_MS)
  sweeper.unref()
  let closing: Promise<void> | null = null
  // The memory every session shares, filled in the background as the launching identity (warm.ts).
  const warmed = warm(toolset, { ...req.runtime, ...req.warmAs }, () => closing !== null)
  return {
    url: `http://${req.host.includes(':') ? `[${req.host}]` : req.host}:${port}${ENDPOINT}`,
    host: req.host,
    port,
    close() {
      closing ??= (async () => {
        clearInterval(sweeper)
        // Calls under way stop what they wait on (a watch, a --verify command) and are answered before the drain.
        shutdown.abort()
        // A call under way is answered before its session closes (base/drain.ts); a session's open event stream
        // (GET) is not waited for: it ends with its session.
        await drain.stop((r) => r.method === 'POST')
        await Promise.allSettled([...sessions.values()].map((s) => s.server.close()))
        sessions.clear()
        server.closeAllConnections()
        await drain.closed
        await warmed
      })()
      return closing
    },
  }
}
