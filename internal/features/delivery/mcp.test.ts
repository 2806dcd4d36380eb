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
    const stale = await mcp.call('reconcile_delivery', { schema_version: 1, apply_safe: 'rp-0000000000000000' })
    expect(stale.isError).toBe(true)
    const both = await mcp.call('cleanup_repository', {
      schema_version: 1,
      dry_run: true,
      restore: true,
      artifact: 'x',
    })
    expect(both.isError).toBe(true)
  })

  test('the seed’s parameter names: restore with artifact, archive_classes, required_checks', async () => {
    const tools = Object.fromEntries((await mcp.tools()).map((t) => [t.name, t.inputSchema.properties ?? {}]))
    expect(tools.cleanup_repository).toMatchObject({ restore: { type: 'boolean' }, artifact: { type: 'string' } })
    expect(tools.reconcile_event_journal).toMatchObject({ archive_classes: { type: 'array' } })
    expect(tools.release_train).toMatchObject({ required_checks: { type: 'array' } })
    for (const old of ['archive', 'required_check']) {
      expect(Object.keys(tools.reconcile_event_journal ?? {})).not.toContain(old)
      expect(Object.keys(tools.release_train ?? {})).not.toContain(old)
    }
    // restore and artifact go together: one without the other is a usage error naming the missing half.
    const alone = await mcp.call('cleanup_repository', { schema_version: 1, restore: true })
    expect(alone.isError).toBe(true)
    expect(textJSON(alone).details.missing).toEqual(['artifact'])
    const orphan = await mcp.call('cleanup_repository', { schema_version: 1, artifact: 'cp-0-x' })
    expect(orphan.isError).toBe(true)
    expect(textJSON(orphan).message).toContain('artifact goes with restore: true')
    // Together they are `cleanup --restore <artifact>`: an artifact that does not exist is not found (4).
    const gone = await mcp.call('cleanup_repository', { schema_version: 1, restore: true, artifact: 'cp-0-nothing' })
    expect(gone.isError).toBe(true)
    expect(textJSON(gone).exit_code).toBe(4)
    const archived = await mcp.call('reconcile_event_journal', {
      schema_version: 1,
      archive_classes: ['orphaned'],
      dry_run: true,
    })
    expect(archived.isError, JSON.stringify(archived.content)).toBeFalsy()
    expectValid(textJSON(archived))
  })
})
