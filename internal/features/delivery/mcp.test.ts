// The delivery tools over MCP (the SDK's client, in memory): each returns the document its command prints; a
// read-only identity's apply is a refusal carried as a result, not an error; a stale plan id is an error (5).

import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { session, textJSON } from '../../testkit/mcp.js'
import { expectValid } from '../../testkit/schemas.js'
import { type Fixture, fixture } from '../../testkit/ws.js'

let fx: Fixture
let mcp: Awaited<ReturnType<typeof session>>
let ro: Awaited<ReturnType<typeof session>>
beforeAll(async () => {
  fx = await fixture()
  mcp = await session(fx.ws.root)
  ro = await session(fx.ws.root, { as: fx.ro.token })
})
afterAll(async () => {
  await mcp.close()
  await ro.close()
})

describe('delivery tools', () => {
  test('listed with the parameters of their commands', async () => {
    const tools = Object.fromEntries((await mcp.tools()).map((t) => [t.name, t]))
    for (const name of [
      'diagnose_pr',
      'reconcile_delivery',
      'cleanup_repository',
      'reconcile_event_journal',
      'release_train',
    ]) {
      expect(tools[name], name).toBeDefined()
    }
    expect(Object.keys(tools.diagnose_pr?.inputSchema.properties ?? {})).toContain('task')
    expect(Object.keys(tools.reconcile_delivery?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['project', 'dry_run', 'apply_safe']),
    )
    expect(Object.keys(tools.release_train?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['project', 'source', 'target', 'dry_run', 'apply', 'required_reviews', 'merge']),
    )
  })

  test('previews return their documents', async () => {
    for (const [name, args] of [
      ['reconcile_event_journal', { dry_run: true }],
      ['cleanup_repository', { dry_run: true }],
      ['reconcile_delivery', { project: 'alpha', dry_run: true }],
    ] as const) {
      const r = await mcp.call(name, { schema_version: 1, ...args })
      expect(r.isError, `${name}: ${JSON.stringify(r.content)}`).toBeFalsy()
      expectValid(textJSON(r))
    }
  })

  test('a read-only identity applying is refused as a result; a stale plan id is an error', async () => {
    const r = await ro.call('cleanup_repository', { schema_version: 1, apply_safe: 'cp-0' })
    expect(r.isError).toBeFalsy()
    expect(JSON.stringify(r.structuredContent ?? textJSON(r))).toContain('grant')
    const stale = await mcp.call('reconcile_delivery', { schema_version: 1, apply_safe: 'rp-0' })
    expect(stale.isError).toBe(true)
    const both = await mcp.call('cleanup_repository', { schema_version: 1, dry_run: true, restore: 'x' })
    expect(both.isError).toBe(true)
  })
})
