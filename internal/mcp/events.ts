// The event store that makes the Streamable HTTP transport's SSE streams resumable: every message the transport
// sends on a stream is kept here with an event id, and a client that lost the stream reconnects with GET and
// Last-Event-ID to be sent what came after it (the response to a call it made included). One store a session,
// in memory, bounded: the oldest events go first once a session keeps more than MAX_EVENTS or MAX_BYTES, and a
// Last-Event-ID whose successors were dropped cannot be resumed (the transport answers 400) rather than resume
// with a silent gap.

import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

const MAX_EVENTS = 1_000
const MAX_BYTES = 8 * 1024 * 1024

interface Kept {
  readonly seq: number
  readonly stream: string
  readonly message: JSONRPCMessage
  readonly size: number
}

/** `<stream id>#<seq>`: the stream an event belongs to is read off its id. */
function parse(eventId: string): { stream: string; seq: number } | null {
  const at = eventId.lastIndexOf('#')
  if (at <= 0) return null
  const seq = Number(eventId.slice(at + 1))
  return Number.isSafeInteger(seq) && seq > 0 ? { stream: eventId.slice(0, at), seq } : null
}

export class MemoryEventStore implements EventStore {
  private seq = 0
  private bytes = 0
  /** Every kept event, oldest first (seq increases along it). */
  private readonly events: Kept[] = []
  /** The highest seq dropped from each stream: a resume from below it would skip events. */
  private readonly dropped = new Map<string, number>()

  constructor(
    private readonly maxEvents = MAX_EVENTS,
    private readonly maxBytes = MAX_BYTES,
  ) {}

  async storeEvent(stream: string, message: JSONRPCMessage): Promise<string> {
    const seq = ++this.seq
    const size = JSON.stringify(message).length
    this.events.push({ seq, stream, message, size })
    this.bytes += size
    while (this.events.length > 1 && (this.events.length > this.maxEvents || this.bytes > this.maxBytes)) {
      const old = this.events.shift() as Kept
      this.bytes -= old.size
      this.dropped.set(old.stream, old.seq)
    }
    return `${stream}#${seq}`
  }

  /** The stream of an event this store issued and can still resume from; undefined otherwise. */
  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const id = parse(eventId)
    if (id === null || id.seq > this.seq) return undefined
    if ((this.dropped.get(id.stream) ?? 0) > id.seq) return undefined
    const known = this.events.some((e) => e.stream === id.stream) || this.dropped.has(id.stream)
    return known ? id.stream : undefined
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const id = parse(lastEventId)
    if (id === null) throw new Error(`not an event id of this server: ${lastEventId}`)
    // A copy: sending may let the transport store more events meanwhile.
    for (const e of this.events.filter((k) => k.stream === id.stream && k.seq > id.seq)) {
      // The priming event (an empty message) only carried an id; it is not sent again.
      if (Object.keys(e.message).length > 0) await send(`${e.stream}#${e.seq}`, e.message)
    }
    return id.stream
  }
}
