// `metrics` through the MCP `cli` tool with the SDK's client: the same metrics/v1
// document the command prints, listed in capabilities; a bad window is a usage error.

import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { session, textJSON } from '../../testkit/mcp.js'
import { expectValid } from '../../testkit/schemas.js'
import { type Fixture, fixture } from '../../testkit/ws.js'

let fx: Fixture
let mcp: Awaited<ReturnType<typeof session>>
beforeAll(async () => {
  fx = await fixture()
  mcp = await session(fx.ws.root)
})
afterAll(async () => {
  await mcp.close()
})

describe('metrics over MCP', () => {
  test('the cli tool returns the metrics/v1 document the command prints', async () => {
    const r = await mcp.call('cli', { schema_version: 1, argv: ['metrics', '--project', 'alpha'] })
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy()
    const doc = r.structuredContent as any
    expect(textJSON(r)).toEqual(doc)
    expectValid(doc)
    // The fixture: alpha/5 accepted by root without --verify (its tick attested) and never claimed; nothing removed.
    expect(doc).toMatchObject({
      schema: 'metrics/v1',
      tasks_finished: 1,
      completion: { value: 1, samples: 1 },
      retry: { value: 0, samples: 1 },
      failures: {
        classes: { reopened: 0, 'lease-expired': 0, 'unverified-close': 1, 'unlanded-override': 0, blocked: 0 },
        samples: 1,
      },
      wall_time: { median_seconds: null, total_seconds: null, samples: 0 },
      tokens: { output: null, samples: 0, budget: null, budget_samples: 0 },
      human_intervention: { value: 0, samples: 1 },
    })
    const cli = (await fx.ws.dacli('metrics', '--project', 'alpha', '--json')).expectExit(0).json
    expect({ ...doc, window: null }).toEqual({ ...cli, window: null })
  })

  test('a bad --since is a usage error, not a result', async () => {
    const r = await mcp.call('cli', { schema_version: 1, argv: ['metrics', '--since', 'yesterday'] })
    expect(r.isError).toBe(true)
    expect(JSON.stringify(r.content)).toMatch(/--since/)
  })

  test('capabilities lists metrics with its flags and document', async () => {
    const caps = (await mcp.call('cli', { schema_version: 1, argv: ['capabilities'] })).structuredContent as any
    const m = caps.commands.find((c: { path: string }) => c.path === 'metrics')
    expect(m).toBeDefined()
    expect(m).toMatchObject({ json: true, json_schema: 'metrics/v1' })
    const ids = JSON.stringify(caps)
    expect(ids).toContain('cli.command.metrics.flag.since')
    expect(ids).toContain('cli.command.metrics.flag.project')
  })
})
