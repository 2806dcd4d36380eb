// The resumable streams' event store: ids name their stream, a replay sends what came after on that stream only,
// and once the bound dropped what followed an id, that id cannot be resumed (never a resume with a gap).

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, test } from 'vitest'
import { MemoryEventStore } from './events.js'

const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } })

async function replay(store: MemoryEventStore, after: string) {
  const sent: [string, JSONRPCMessage][] = []
  const stream = await store.replayEventsAfter(after, {
    send: async (id, m) => {
      sent.push([id, m])
    },
  })
  return { stream, sent }
}

describe('MemoryEventStore', () => {
  test('replays the events after an id, on its stream only, without the priming event', async () => {
    const s = new MemoryEventStore()
    const prime = await s.storeEvent('a', {} as JSONRPCMessage)
    await s.storeEvent('b', note(0))
    const one = await s.storeEvent('a', note(1))
    await s.storeEvent('a', note(2))
    expect(await s.getStreamIdForEventId(prime)).toBe('a')
    const all = await replay(s, prime)
    expect(all.stream).toBe('a')
    expect(all.sent.map(([, m]) => (m as any).params.n)).toEqual([1, 2])
    expect((await replay(s, one)).sent.map(([id]) => id)).toEqual([`a#4`])
  })

  test('ids it never issued are unknown', async () => {
    const s = new MemoryEventStore()
    await s.storeEvent('a', note(1))
    for (const id of ['nope', 'a#9', 'b#1', '#1', 'a#0', 'a#x'])
      expect(await s.getStreamIdForEventId(id)).toBeUndefined()
  })

  test('bounded by count and bytes: an id whose successors were dropped cannot be resumed', async () => {
    const s = new MemoryEventStore(3, 1_000_000)
    const first = await s.storeEvent('a', note(1))
    const ids = [first]
    for (let n = 2; n <= 5; n++) ids.push(await s.storeEvent('a', note(n)))
    expect(await s.getStreamIdForEventId(first)).toBeUndefined()
    expect(await s.getStreamIdForEventId(ids[1] as string)).toBe('a')
    expect((await replay(s, ids[1] as string)).sent.map(([, m]) => (m as any).params.n)).toEqual([3, 4, 5])

    const small = new MemoryEventStore(100, 200)
    const big = await small.storeEvent('x', note(1))
    await small.storeEvent('x', { jsonrpc: '2.0', method: 'notifications/message', params: { pad: 'p'.repeat(300) } })
    // The newest event is always kept, even alone over the bound; the older one went.
    expect(await small.getStreamIdForEventId(big)).toBe('x')
    await small.storeEvent('x', note(3))
    expect(await small.getStreamIdForEventId(big)).toBeUndefined()
  })
})
