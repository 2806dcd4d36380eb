// `dacli mcp serve` as a command, in process: the identity is bound at launch (a bad
// or empty token refuses the launch) and re-checked per call, stdout carries only the protocol,
// the banner goes to stderr, and the server stops when stdin closes.

import { beforeAll, describe, expect, test } from 'vitest'
import { INITIALIZE, serveInProcess, toolCall } from '../testkit/mcpserve.js'
import { dacliIn, type Fixture, fixture, table, tempDir } from '../testkit/ws.js'
import { buildToolset } from './call.js'

/** The full profile's tool count, from the table (the server announces it on stderr). */
const FULL = buildToolset(table, 'full').definitions.length

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
})

describe('launch', () => {
  test.each([
    ['an unknown token', 'f'.repeat(48), 3, /DACLI_AGENT is not recognized/],
    ['an empty token', '', 3, /DACLI_AGENT is set but empty/],
  ])('%s refuses the launch on stderr, before serving', async (_w, token, code, message) => {
    const s = serveInProcess(fx.ws.root, [], { as: token })
    const out = await s.done
    expect(out.exitCode).toBe(code)
    expect(out.stderr).toMatch(message)
    expect(out.stdout).toBe('')
    expect(s.lines()).toEqual([])
    expect(s.listening()).toBe(false)
  })

  test('a retired agent’s token refuses the launch', async () => {
    const root = fx.copy()
    const gone = await dacliIn(root, ['agent', 'spawn', '--grant', 'rw', '--json'])
    const { id, token } = gone.expectExit(0).json
    ;(await dacliIn(root, ['agent', 'retire', id])).expectExit(0)
    const out = await serveInProcess(root, [], { as: token }).done
    expect(out.exitCode).toBe(3)
    expect(out.stderr).toMatch(/retired/)
  })

  test('outside a workspace: not found (4)', async () => {
    const out = await serveInProcess(tempDir()).done
    expect(out.exitCode).toBe(4)
    expect(out.stderr).toMatch(/dacli init/)
  })

  test('--json is refused (2); --help prints usage and never starts the server', async () => {
    const j = await serveInProcess(fx.ws.root, ['--json']).done
    expect(j.exitCode).toBe(2)
    expect(JSON.parse(j.stderr).message).toMatch(/mcp serve does not support --json/)
    const h = serveInProcess(fx.ws.root, ['--help'])
    const out = await h.done
    expect(out.exitCode).toBe(0)
    expect(out.stdout).toContain('dacli mcp serve [--profile full|minimal]')
    expect(h.lines()).toEqual([])
    expect(h.listening()).toBe(false)
  })

  test('a bad --profile is a usage error', async () => {
    const out = await serveInProcess(fx.ws.root, ['--profile', 'tiny']).done
    expect(out.exitCode).toBe(2)
    expect(out.stderr).toMatch(/--profile must be one of full, minimal/)
  })
})

describe('serving', () => {
  test('the identity is bound at launch and re-checked on every call: once retired, its next call is refused', async () => {
    const root = fx.copy()
    const s = serveInProcess(root, [], { as: fx.rw.token })
    s.send(INITIALIZE)
    const init = await s.response(0)
    expect(init.result.serverInfo.name).toBe('dacli')
    expect(init.result.instructions).toMatch(/never retry it unchanged/)
    expect(init.result.capabilities.tools).toBeDefined()
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    s.send(toolCall(1, 'whoami', { schema_version: 1 }))
    expect((await s.response(1)).result.structuredContent.id).toBe(fx.rw.id)
    ;(await dacliIn(root, ['agent', 'retire', fx.rw.id, '--release'])).expectExit(0)
    expect((await dacliIn(root, ['whoami'], { as: fx.rw.token })).code).toBe(3)
    s.send(toolCall(2, 'whoami', { schema_version: 1 }))
    expect((await s.response(2)).result.structuredContent.refused).toMatchObject({
      policy: 'identity',
      reason: expect.stringMatching(/retired/),
    })
    const out = await s.end()
    expect(out.exitCode).toBe(0)
    expect(out.stderr).toMatch(
      new RegExp(`^dacli mcp: serving ${FULL} tools \\(full\\) on stdio as ${fx.rw.id} \\(rw\\)\\n$`),
    )
    expect(out.stdout).toBe('')
    for (const line of s.lines()) expect(JSON.parse(line).jsonrpc).toBe('2.0')
  })

  test('--profile minimal serves its 8 tools and cli; --quiet silences the banner', async () => {
    const s = serveInProcess(fx.ws.root, ['--profile', 'minimal', '--quiet'])
    s.send(INITIALIZE)
    await s.response(0)
    s.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    const names = (await s.response(1)).result.tools.map((t: { name: string }) => t.name)
    expect(names).toHaveLength(9)
    expect(names).toContain('cli')
    expect(names).not.toContain('doctor')
    const out = await s.end()
    expect(out.stderr).toBe('')
  })

  test('a read-only identity’s write is refused as a result or recorded as a proposal, never an error', async () => {
    const root = fx.copy()
    const s = serveInProcess(root, [], { as: fx.ro.token })
    s.send(INITIALIZE)
    await s.response(0)
    s.send(toolCall(1, 'add_task', { schema_version: 1, title: 'Not mine to add', project: 'alpha' }))
    const refused = (await s.response(1)).result
    expect(refused.isError).toBeUndefined()
    expect(refused.structuredContent.refused.policy).toBe('grant')
    s.send(toolCall(2, 'claim_task', { schema_version: 1, ref: 'alpha/1' }))
    expect((await s.response(2)).result.structuredContent).toMatchObject({ outcome: 'proposed' })
    await s.end()
  })

  test('a tool call is not interruptible by the server’s Ctrl-C: watch and record sync --watch are refused, not endless', async () => {
    // The bin wires Ctrl-C (onInterrupt); a call must not borrow it, or it would run until the server is stopped.
    const s = serveInProcess(fx.ws.root, ['--quiet'], { onInterrupt: () => {} })
    s.send(INITIALIZE)
    await s.response(0)
    s.send(toolCall(1, 'cli', { schema_version: 1, argv: ['watch', '--json'] }))
    s.send(toolCall(2, 'cli', { schema_version: 1, argv: ['record', 'sync', '--watch', '1s'] }))
    for (const id of [1, 2]) {
      const r = (await s.response(id)).result
      expect(r.isError).toBe(true)
      expect(JSON.parse(r.content[0].text)).toMatchObject({ exit_code: 2, message: expect.stringMatching(/interrupt/) })
    }
    await s.end()
  }, 15_000)
})
