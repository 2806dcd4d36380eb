// Newline-delimited JSON-RPC on a pair of streams. The SDK's StdioServerTransport
// drops a line it cannot parse without answering and closes itself when a line
// outgrows its buffer; a server that must answer every request and never go down
// needs both to become JSON-RPC errors instead, so this transport does that. It
// also answers every request read before stdin ended, then closes.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js'

/** One message may be this large (a 1 MB task title travels comfortably). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024

const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600

export class LineTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private chunks: Buffer[] = []
  private size = 0
  /** Dropping the rest of an oversized line, up to its newline. */
  private skipping = false
  private closed = false
  /** stdin ended: close once every request already read has been answered. */
  private ended = false
  private readonly pending = new Set<string | number>()

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
      if (this.skipping) this.skipping = false
      else this.line(Buffer.concat([...this.chunks, head]).toString('utf8'))
      this.chunks = []
      this.size = 0
    }
    if (this.skipping || buf.length === 0) return
    this.chunks.push(buf)
    this.size += buf.length
    if (this.size > this.maxLine) {
      this.chunks = []
      this.size = 0
      this.skipping = true
      this.reply(null, INVALID_REQUEST, `message larger than ${this.maxLine} bytes; dropped`)
    }
  }

  // A client may write its requests and close stdin at once (`… | dacli mcp serve`): answer them all first.
  private readonly onEnd = () => {
    this.ended = true
    if (this.pending.size === 0) void this.close()
  }

  private readonly onStreamError = (e: Error) => {
    this.onerror?.(e)
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
    const parsed = JSONRPCMessageSchema.safeParse(value)
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id
      this.reply(typeof id === 'string' || typeof id === 'number' ? id : null, INVALID_REQUEST, 'invalid request')
      return
    }
    const m = parsed.data
    if ('method' in m && 'id' in m) this.pending.add(m.id)
    this.onmessage?.(m)
    // A cancelled request gets no answer (MCP), so it is no longer waited for.
    if ('method' in m && m.method === 'notifications/cancelled') this.settle(m.params?.requestId)
  }

  private settle(id: unknown): void {
    if ((typeof id !== 'string' && typeof id !== 'number') || !this.pending.delete(id)) return
    if (this.ended && this.pending.size === 0) void this.close()
  }

  /** An error answer for a line that never became a message (`id: null` when it had none). */
  private reply(id: string | number | null, code: number, message: string): void {
    this.write({ jsonrpc: '2.0', id, error: { code, message } }).catch((e: Error) => this.onerror?.(e))
  }

  private write(message: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        resolve()
        return
      }
      const ok = this.output.write(`${JSON.stringify(message)}\n`, (err) => {
        if (err) reject(err)
      })
      if (ok) resolve()
      else this.output.once('drain', () => resolve())
    })
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData)
    this.input.on('end', this.onEnd)
    this.input.on('error', this.onStreamError)
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.write(message)
    if (!('method' in message)) this.settle((message as { id?: unknown }).id)
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
