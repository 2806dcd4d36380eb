import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { describe, expect, test } from 'vitest'
import { BIN, baseEnv, git, setAutorecord, table, workspace } from '../testkit/ws.js'
import { buildToolset } from './call.js'
import { CLI_TOOL, TIER1 } from './tools.js'

/** The full profile's tool count, from the table (the server announces it on stderr). */
const FULL = buildToolset(table, 'full').definitions.length

describe('the built bin over stdio', () => {
  test('tools/list, then claim → check → finish → accept as a spawned agent', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
    ;(
      await ws.dacli('task', 'add', 'Audit writes', '--project', 'ledger', '--accept', 'listed', '--accept', 'proven')
    ).expectExit(0)
    const agent = await ws.agent('rw', 'implementer')

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', 'serve'],
      cwd: ws.root,
      env: { ...(baseEnv() as Record<string, string>), DACLI_AGENT: agent.token },
      stderr: 'pipe',
    })
    let stderr = ''
    transport.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString()
    })
    const client = new Client({ name: 'e2e', version: '0' })
    await client.connect(transport)
    try {
      expect(client.getServerVersion()?.name).toBe('dacli')
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name).sort()).toEqual([...TIER1.map((t) => t.name), CLI_TOOL].sort())

      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: { schema_version: 1, ...args } })) as {
          isError?: boolean
          structuredContent?: any
        }

      const claim = await call('claim_task', { ref: 'ledger/1', lease: '2h' })
      expect(claim.structuredContent).toMatchObject({ outcome: 'changed', task: { owner: agent.id, status: 'active' } })

      const early = await call('finish_task', { ref: 'ledger/1' })
      expect(early.isError).toBeFalsy()
      expect(early.structuredContent.refused).toMatchObject({ policy: 'acceptance' })
      expect(early.structuredContent.refused.details.unmet).toHaveLength(2)

      const check = await call('check_task', { ref: 'ledger/1', all: true, verify: 'true' })
      expect(check.structuredContent).toMatchObject({ outcome: 'changed', task: { acceptance_done: 2 } })

      const done = await call('finish_task', { ref: 'ledger/1' })
      expect(done.structuredContent).toMatchObject({ outcome: 'changed', task: { status: 'done' } })

      const accepted = await call('accept_task', { ref: 'ledger/1' })
      expect(accepted.structuredContent).toMatchObject({
        schema: 'acceptance-result/v1',
        newly_checked: 0,
        satisfied: 2,
        total: 2,
      })
    } finally {
      await client.close()
    }
    expect(stderr).toMatch(new RegExp(`^dacli mcp: serving ${FULL} tools \\(full\\) on stdio as ${agent.id} \\(rw\\)`))
    const shown = ws.spawn(['task', 'show', 'ledger/1', '--json']).expectExit(0).json
    expect(shown).toMatchObject({ status: 'done', owner: agent.id })
  })

  test('with autorecord on, a write through the server is recorded like the same command line', async () => {
    const ws = await workspace()
    setAutorecord(ws)
    ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
    ;(await ws.dacli('task', 'add', 'Audit writes', '--project', 'ledger', '--accept', 'listed')).expectExit(0)
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', 'serve', '--quiet'],
      cwd: ws.root,
      env: baseEnv() as Record<string, string>,
    })
    const client = new Client({ name: 'e2e', version: '0' })
    await client.connect(transport)
    try {
      const r = await client.callTool({ name: 'claim_task', arguments: { schema_version: 1, ref: 'ledger/1' } })
      expect(r.isError).toBeFalsy()
      await client.callTool({ name: 'show_task', arguments: { schema_version: 1, ref: 'ledger/1' } })
    } finally {
      await client.close()
    }
    const log = git(ws.root, 'log', '--format=%s', 'dacli/record').trim().split('\n')
    expect(log[0]).toBe('dacli: task claim ledger/001-audit-writes')
    expect(log.filter((l) => l.includes('task show'))).toEqual([])
  })

  test('a bad token fails the launch before any protocol is spoken', async () => {
    const ws = await workspace()
    const r = ws.spawn(['mcp', 'serve'], { as: 'not-a-token' })
    expect(r.code).toBe(3)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^dacli: the token in DACLI_AGENT is not recognized/)
  })
})
