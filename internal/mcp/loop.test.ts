// The loop's commands (loop.md) through MCP: reachable with the `cli` tool, listed
// in capabilities, while the 22 Tier-1 tools stay as they are.

import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { session, textJSON } from '../testkit/mcp.js'
import { expectValid } from '../testkit/schemas.js'
import { type Fixture, fixture } from '../testkit/ws.js'
import { TIER1 } from './tools.js'

let fx: Fixture
let root: string
let mcp: Awaited<ReturnType<typeof session>>
beforeAll(async () => {
  fx = await fixture()
  root = fx.copy()
  mcp = await session(root)
})
afterAll(async () => {
  await mcp.close()
})

const cli = async (...argv: string[]) => {
  const r = await mcp.call('cli', { schema_version: 1, argv })
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy()
  const doc = r.structuredContent as any
  expect(textJSON(r)).toEqual(doc)
  expectValid(doc)
  return doc
}

describe('the loop through the MCP cli tool', () => {
  test('ask → threads → answer → events dismiss, each its own document', async () => {
    const q = await cli('ask', 'Which port?', '--about', 'alpha/4')
    expect(q).toMatchObject({ schema: 'question/v1', task: { status: 'blocked' } })
    expect((await cli('threads', '--open')).threads.map((t: { id: string }) => t.id)).toContain(q.id)
    const a = await cli('answer', q.id, '8080')
    expect(a).toMatchObject({ schema: 'answer/v1', task: { unblocked: true } })
    const q2 = await cli('ask', 'Still?', '--about', 'alpha/4')
    const d = await cli('events', 'dismiss', q2.id, '--reason', 'not any more')
    expect(d).toMatchObject({ schema: 'event-dismiss/v1', outcome: 'dismissed' })
  })

  test('capabilities lists the loop commands; the Tier-1 tools are still the 22', async () => {
    expect(TIER1).toHaveLength(22)
    const caps = await cli('capabilities')
    const paths = caps.commands.map((c: { path: string }) => c.path)
    for (const p of ['ask', 'answer', 'threads', 'events dismiss']) expect(paths).toContain(p)
    const tools = (await mcp.tools()).map((t) => t.name)
    expect(tools).toHaveLength(23)
    expect(tools).toContain('cli')
  })
})
