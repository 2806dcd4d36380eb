// Newline-delimited JSON-RPC on a pair of streams. The SDK's StdioServerTransport
// drops a line it cannot parse without answering and closes itself when a line
// outgrows its buffer; a server that must answer every request and never go down
// needs both to become JSON-RPC errors instead, so this transport does that. It
// also answers every request read before stdin ended, then closes: a client that
// pipes its requests in and closes stdin gets every answer, and one that wants
// the calls under way stopped sends SIGTERM, as MCP's stdio shutdown goes. A
// stdout that cannot be written (EPIPE) is the client gone: `ongone` runs once
// (serve.ts cancels the calls under way: nobody would read their answers).
//
// A tool result over 10,000 tasks is a document of megabytes, sent as text and
// as structured content. Serializing that message whole (the document twice,
// escaped, then with its newline) allocated three strings of its size per call,
// straight into V8's old generation, and a warm server's heap grew to twice the
// memory target between collections. So a result whose text is the document's
// JSON (results.ts) is written in pages: the text escaped page by page, then the
// same text as the structured content — the document is serialized once, and
// what the answer allocates is small and short-lived.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { isInitializeRequest, type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js'
import { batchRefused, negotiatedVersion, takesBatches } from './batches.js'
import { takeSerialized } from './results.js'

/** One message may be this large (a 1 MB task title travels comfortably). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024

const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600
const INVALID_PARAMS = -32602
/** How much of an oversized line is kept to find its request id (at its start or its very end). */
const ID_WINDOW = 64 * 1024

/** A JSON-RPC id (string or number) written as the top-level `"id"` of a message's text, or null. */
function idOf(head: string, tail: string): string | number | null {
  // Forward through the head, tracking depth and strings, for `"id":` at depth 1.
  let depth = 0
  for (let i = 0; i < head.length; i++) {
    const c = head[i]
    if (c === '"') {
      const end = stringEnd(head, i)
      if (end === -1) break
      if (depth === 1 && head.slice(i, end + 1) === '"id"') {
        const m = /^\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?)/.exec(head.slice(end + 1))
        if (m) return JSON.parse(m[1] as string) as string | number
      }
      i = end
    } else if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') depth--
  }
  // A message whose id comes last: `…,"id":<id>}` at its very end.
  const m = /,\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?)\s*}\s*$/.exec(tail)
  return m ? (JSON.parse(m[1] as string) as string | number) : null
}

function stringEnd(text: string, start: number): number {
  for (let j = start + 1; j < text.length; j++) {
    if (text[j] === '\\') j++
    else if (text[j] === '"') return j
  }
  return -1
}

/** A tools/call whose params the SDK would reject with an internal error and a raw schema dump. */
export function badToolCall(m: { method: string; params?: unknown }): string | null {
  if (m.method !== 'tools/call') return null
  const p = m.params
  if (p === null || typeof p !== 'object' || Array.isArray(p)) return 'params must be an object'
  const { name, arguments: args } = p as { name?: unknown; arguments?: unknown }
  if (typeof name !== 'string') return 'params.name must be the tool name (a string)'
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
    return "params.arguments must be an object of the tool's arguments"
  }
  // The SDK's schema copies the arguments into a new object, where a key of this name sets the prototype and is
  // gone: refused here, where it is still seen, rather than dropped without a word (no tool declares it).
  if (args !== undefined && Object.hasOwn(args, '__proto__')) return 'params.arguments holds "__proto__", no argument'
  return null
}

/** Characters per page when a large answer is written in pages. */
const PAGE = 16 * 1024
/** Characters joined into one write (pages and the pieces around them). */
const WRITE_BATCH = 4 * PAGE

/**
 * The pieces of a message to write, in order. A tool result whose only text is the JSON of its structured
 * content is cut into pages; anything else is one piece.
 */
function* piecesOf(message: unknown): Generator<string> {
  const m = message as { id?: unknown; result?: Record<string, unknown> }
  const r = m.result
  const content = r?.content as { type?: unknown; text?: unknown }[] | undefined
  const only = content?.length === 1 ? content[0] : undefined
  const text = only?.text
  if (
    r === undefined ||
    typeof text !== 'string' ||
    r.structuredContent === undefined ||
    Object.keys(r).some((k) => k !== 'content' && k !== 'structuredContent') ||
    Object.keys(only as object).some((k) => k !== 'type' && k !== 'text') ||
    only?.type !== 'text' ||
    !takeSerialized(text)
  ) {
    yield `${JSON.stringify(message)}\n`
    return
  }
  yield `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"content":[{"type":"text","text":"`
  for (const page of pagesOf(text)) yield JSON.stringify(page).slice(1, -1)
  yield '"}],"structuredContent":'
  yield* pagesOf(text)
  yield '}}\n'
}

/**
 * `text` cut into pages of about PAGE characters, never between the two halves of a surrogate pair: a page
 * ending in a lone half would be written (as UTF-8) as U+FFFD, and the character lost.
 */
export function* pagesOf(text: string, size = PAGE): Generator<string> {
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + size, text.length)
    const last = text.charCodeAt(end - 1)
    if (end < text.length && last >= 0xd800 && last <= 0xdbff && end - 1 > at) end--
    yield text.slice(at, end)
    at = end
  }
}

/** The requests of one batch still to be answered, and the answers ready so far. */
interface Batch {
  readonly waiting: Set<string | number>
  readonly answers: unknown[]
}

const errorOf = (id: string | number | null, code: number, message: string) => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
})

export class LineTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** The client left (stdin ended or stdout broke): run once, before the close. */
  ongone?: () => void

  private chunks: Buffer[] = []
  private size = 0
  /** The start and the latest end of an oversized line being dropped, to answer it with its id. */
  private dropHead = ''
  private dropTail = ''
  /** Dropping the rest of an oversized line, up to its newline. */
  private skipping = false
  private closed = false
  /** stdout failed (the client is gone): nothing more is written. */
  private broken = false
  private left = false
  /** stdin ended: close once every request already read has been answered. */
  private ended = false
  private readonly pending = new Set<string | number>()
  /** A well-formed initialize was read: requests other than initialize and ping are served from then on. */
  private initialized = false
  /** The protocol version that initialize negotiates (batches.ts: whether batches are taken). */
  private version: string | null = null
  /** The batch each request read in one is part of: its answer is held until the batch's last one is ready. */
  private readonly batchOf = new Map<string | number, Batch>()

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly maxLine = MAX_LINE_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer | string) => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10)) {
      const head = buf.subarray(0, nl)
      buf = buf.subarray(nl + 1)
      if (this.skipping) {
        this.skipping = false
        this.dropped(head)
      } else {
        const whole = this.chunks.length === 0 ? head : Buffer.concat([...this.chunks, head])
        if (whole.length > this.maxLine) {
          // A line that arrived whole can be too large too: dropped the same way.
          this.dropHead = whole.subarray(0, ID_WINDOW).toString('utf8')
          this.dropTail = ''
          this.dropped(whole)
        } else this.line(whole.toString('utf8'))
      }
      this.chunks = []
      this.size = 0
    }
    if (buf.length === 0) return
    if (this.skipping) {
      this.keepTail(buf)
      return
    }
    this.chunks.push(buf)
    this.size += buf.length
    if (this.size > this.maxLine) {
      const all = Buffer.concat(this.chunks)
      this.dropHead = all.subarray(0, ID_WINDOW).toString('utf8')
      this.dropTail = ''
      this.keepTail(all)
      this.chunks = []
      this.size = 0
      this.skipping = true
    }
  }

  private keepTail(chunk: Buffer): void {
    this.dropTail = (this.dropTail + chunk.subarray(-ID_WINDOW).toString('utf8')).slice(-ID_WINDOW)
  }

  /** An oversized line ended: answered as invalid, with its request id when its text shows one. */
  private dropped(last: Buffer): void {
    this.keepTail(last)
    const id = idOf(this.dropHead, this.dropTail)
    this.dropHead = ''
    this.dropTail = ''
    this.reply(id, INVALID_REQUEST, `message larger than ${this.maxLine} bytes; dropped`)
  }

  // A client may write its requests and close stdin at once (`… | dacli mcp serve`): answer them all first.
  private readonly onEnd = () => {
    this.ended = true
    if (this.pending.size === 0) void this.close()
  }

  private gone(): void {
    if (this.left) return
    this.left = true
    this.ongone?.()
  }

  private readonly onStreamError = (e: Error) => {
    this.onerror?.(e)
  }

  /** stdout broke (EPIPE when the client died): logged once, no more writes, the client has left. */
  private readonly onOutputError = (e: Error) => {
    if (this.broken) return
    this.broken = true
    this.onerror?.(new Error(`stdout cannot be written, the client is gone (${e.message})`))
    this.gone()
    this.finish()
  }

  private line(raw: string): void {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (text.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (e) {
      this.reply(null, PARSE_ERROR, `parse error: ${(e as Error).message}`)
      return
    }
    if (Array.isArray(value)) this.batch(value)
    else this.message(value, (id, code, message) => this.reply(id, code, message), null)
  }

  /**
   * A batch, where the negotiated version takes them: each message as if it came alone, and the answers to its
   * requests written together as one array once the last is ready (none when it held only notifications).
   */
  private batch(items: unknown[]): void {
    if (items.length === 0 || this.version === null || !takesBatches(this.version)) {
      this.reply(
        null,
        INVALID_REQUEST,
        items.length === 0 ? 'invalid request: an empty batch' : batchRefused(this.version),
      )
      return
    }
    const batch: Batch = { waiting: new Set(), answers: [] }
    for (const item of items) {
      this.message(item, (id, code, message) => batch.answers.push(errorOf(id, code, message)), batch)
    }
    void this.batchDone(batch)
  }

  /** Write the batch's answers when none is awaited any more. */
  private batchDone(batch: Batch): Promise<void> {
    if (batch.waiting.size > 0 || batch.answers.length === 0) return Promise.resolve()
    return this.write(batch.answers).catch((e: Error) => this.onerror?.(e))
  }

  /** One message (alone, or one of a batch): checked, answered at once when refused, else handed to the server. */
  private message(
    value: unknown,
    refuse: (id: string | number | null, code: number, message: string) => void,
    batch: Batch | null,
  ): void {
    const parsed = JSONRPCMessageSchema.safeParse(value)
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id
      refuse(typeof id === 'string' || typeof id === 'number' ? id : null, INVALID_REQUEST, 'invalid request')
      return
    }
    const m = parsed.data
    if ('method' in m && 'id' in m) {
      // Answered here with a short invalid-params error (the SDK would answer an internal error and a schema dump).
      // The params as sent: the SDK's copy has lost what badToolCall looks for.
      const bad = badToolCall({ method: m.method, params: (value as { params?: unknown }).params })
      if (bad !== null) {
        refuse(m.id, INVALID_PARAMS, `invalid params for tools/call: ${bad}`)
        return
      }
      const refused =
        batch !== null && m.method === 'initialize'
          ? 'Invalid Request: initialize in a batch'
          : this.lifecycle(m.method, value)
      if (refused !== null) {
        refuse(m.id, INVALID_REQUEST, refused)
        return
      }
      this.pending.add(m.id)
      if (batch !== null) {
        batch.waiting.add(m.id)
        this.batchOf.set(m.id, batch)
      }
    }
    this.onmessage?.(m)
    // A cancelled request gets no answer (MCP), so it is no longer waited for.
    if ('method' in m && m.method === 'notifications/cancelled') {
      const id = m.params?.requestId
      const of = typeof id === 'string' || typeof id === 'number' ? this.batchOf.get(id) : undefined
      if (of !== undefined) {
        this.batchOf.delete(id as string | number)
        of.waiting.delete(id as string | number)
        void this.batchDone(of)
      }
      this.settle(id)
    }
  }

  /**
   * The lifecycle, kept as the HTTP transport keeps it: before initialize only initialize and ping are served, and
   * a connection is initialized once (a second initialize is refused, not a renegotiation). Checked in the order the
   * requests arrive, so a client may send its calls right after initialize without waiting for its answer.
   */
  private lifecycle(method: string, value: unknown): string | null {
    if (method === 'initialize') {
      if (this.initialized) return 'Invalid Request: Server already initialized'
      // Malformed, it is answered as invalid params and the connection stays uninitialized.
      if (isInitializeRequest(value)) {
        this.initialized = true
        this.version = negotiatedVersion(value.params.protocolVersion)
      }
      return null
    }
    if (this.initialized || method === 'ping') return null
    return `Invalid Request: ${method} before initialize (send initialize first)`
  }

  private settle(id: unknown): void {
    if ((typeof id !== 'string' && typeof id !== 'number') || !this.pending.delete(id)) return
    if (this.ended && this.pending.size === 0) void this.close()
  }

  /** An error answer for a line that never became a message (`id: null` when it had none). */
  private reply(id: string | number | null, code: number, message: string): void {
    this.write(errorOf(id, code, message)).catch((e: Error) => this.onerror?.(e))
  }

  /** Messages go out one at a time (a paged answer must not interleave with another). */
  private queue: Promise<void> = Promise.resolve()

  private write(message: unknown): Promise<void> {
    const next = this.queue.then(() => this.writeNow(message))
    this.queue = next.catch(() => undefined)
    return next
  }

  private async writeNow(message: unknown): Promise<void> {
    // Pieces are joined up to a page's worth before each write: one write (one wake-up of the client) for an answer
    // of ordinary size, never a copy of a large one whole. Nothing is awaited but a full pipe's drain: a message
    // whose writes are all taken goes out whole before anything else runs.
    let batch: string[] = []
    let size = 0
    /** Write what is batched; false when the pipe is full (wait for its drain). */
    const flush = (): boolean => {
      const text = batch.length === 1 ? (batch[0] as string) : batch.join('')
      batch = []
      size = 0
      // A failed write surfaces as the stream's 'error' (onOutputError).
      return this.output.write(text)
    }
    // A pipe that breaks while full never drains: its error or close ends the wait too.
    const drained = () =>
      new Promise<void>((resolve) => {
        const done = () => {
          this.output.off('drain', done).off('error', done).off('close', done)
          resolve()
        }
        this.output.once('drain', done).once('error', done).once('close', done)
      })
    for (const piece of piecesOf(message)) {
      if (this.closed || this.broken) return
      batch.push(piece)
      size += piece.length
      if (size >= WRITE_BATCH && !flush()) await drained()
    }
    if (batch.length > 0 && !this.closed && !this.broken && !flush()) await drained()
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData)
    this.input.on('end', this.onEnd)
    this.input.on('error', this.onStreamError)
    this.output.on('error', this.onOutputError)
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const id = 'method' in message ? undefined : (message as { id?: string | number }).id
    const batch = id === undefined ? undefined : this.batchOf.get(id)
    if (batch !== undefined && id !== undefined) {
      // Held with the rest of its batch.
      this.batchOf.delete(id)
      batch.waiting.delete(id)
      batch.answers.push(message)
      await this.batchDone(batch)
      this.settle(id)
      return
    }
    await this.write(message)
    if (!('method' in message)) this.settle((message as { id?: unknown }).id)
  }

  /** Read no more input; close once every request read so far is answered (as at the end of input). */
  finish(): void {
    this.input.off('data', this.onData)
    // Not read any more, the input no longer holds the process open (the client may keep its end open).
    this.input.pause()
    this.onEnd()
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.input.off('data', this.onData)
    this.input.off('end', this.onEnd)
    this.input.off('error', this.onStreamError)
    this.onclose?.()
  }
}
