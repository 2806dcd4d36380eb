// The deprecation window (clikit/alias.ts): an old command path or flag name declared in the table runs as the
// new one for one minor version, warns once on stderr (never stdout, never inside --json's documents), is listed
// in capabilities with the release that drops it, and the table cannot keep one past that release.

import { describe, expect, test } from 'vitest'
import { VERSION } from '../base/version.js'
import { aliasProblems } from '../clikit/alias.js'
import type { CommandDecl } from '../clikit/command.js'
import { table, workspace } from '../testkit/ws.js'

describe('the alias rule, table-wide', () => {
  test('every declared alias is well formed and inside its one-minor-version window', () => {
    expect(aliasProblems(table, VERSION)).toEqual([])
    expect(table.some((c) => (c.aliases ?? []).length > 0)).toBe(true)
  })

  test('the check bites: an alias at or past its release, a live name, an undeclared target', () => {
    const ctx = table.find((c) => c.path === 'context') as CommandDecl
    // The release that drops --brief-tokens: the test of the table would fail there.
    expect(aliasProblems([ctx], '0.2.0')).toEqual([
      'context: --brief-tokens: goes away in 0.2.0, but the window is one minor version after 0.2.0',
    ])
    const bad: CommandDecl = {
      ...ctx,
      aliases: [
        { old: '--budget', now: '--budget', until: '0.2.0', why: 'x' },
        { old: '--tokens', now: '--nope', until: '0.2.0', why: 'x' },
        { old: 'context', until: '0.2.0', why: 'x' },
        { old: 'brief', until: '0.3.0', why: 'x' },
      ],
    }
    expect(aliasProblems([bad], '0.1.0')).toEqual([
      'context: --budget is still a declared flag',
      'context: --tokens renames to an undeclared flag',
      'context: context is a live command path',
      'context: brief: goes away in 0.3.0, but the window is one minor version after 0.1.0',
    ])
  })
})

describe('the real uses: context --brief-tokens and events tail (the Go dacli’s names)', () => {
  test('--brief-tokens reads as --budget: same document, one warning line on stderr, nothing else changes', async () => {
    const ws = await workspace()
    await ws.ok('project', 'add', 'Demo', '--slug', 'demo')
    await ws.ok('task', 'add', 'A thing to brief', '--project', 'demo', '--accept', 'it is briefed')
    const before = ws.snapshot()
    const now = await ws.ok('context', 'demo/1', '--budget', '300', '--json')
    const old = await ws.ok('context', 'demo/1', '--brief-tokens', '300', '--json')
    const eq = await ws.ok('context', 'demo/1', '--brief-tokens=300', '--json')
    expect(old.stdout).toBe(now.stdout)
    expect(eq.stdout).toBe(now.stdout)
    expect(old.json.budget).toBe(300)
    expect(now.stderr).toBe('')
    const warning =
      'warning: --brief-tokens of dacli context is deprecated: use --budget (the old name goes away in 0.2.0)\n'
    expect(old.stderr).toBe(warning)
    // Human output: the same warning, once, and the brief on stdout.
    const human = await ws.ok('context', 'demo/1', '--brief-tokens', '300')
    expect(human.stderr).toBe(warning)
    expect(human.stdout).toContain('A thing to brief')
    expect((await ws.ok('context', 'demo/1', '--brief-tokens', '300', '--quiet')).stderr).toBe('')
    // The old name keeps the new one's validation; under --json a failure's stderr is the one envelope.
    const bad = (await ws.dacli('context', 'demo/1', '--brief-tokens', '0', '--json')).expectExit(2)
    expect(bad.stdout).toBe('')
    expect(bad.error).toMatchObject({ schema: 'error/v1', kind: 'usage', details: { flag: '--budget' } })
    expect(ws.snapshot()).toEqual(before)
  })

  test('events tail runs events list, warning once; its flags are events list’s', async () => {
    const ws = await workspace()
    await ws.ok('project', 'add', 'Demo', '--slug', 'demo')
    await ws.ok('task', 'add', 'Proposed', '--project', 'demo')
    const ro = await ws.agent('ro', 'reader')
    await ws.ok('task', 'claim', 'demo/1', { as: ro.token })
    const list = await ws.ok('events', 'list', '--limit', '1', '--json')
    const tail = await ws.ok('events', 'tail', '--limit', '1', '--json')
    expect(list.json.events).toHaveLength(1)
    expect(tail.stdout).toBe(list.stdout)
    expect(tail.stderr).toBe(
      'warning: dacli events tail is deprecated: use dacli events list (the old name goes away in 0.2.0)\n',
    )
    const help = await ws.ok('events', 'tail', '--help')
    expect(help.stdout).toContain('dacli events list')
    expect(help.stdout).toContain('Old:    events tail → events list (until 0.2.0)')
    expect((await ws.ok('context', '--help')).stdout).toContain('Old:    --brief-tokens → --budget (until 0.2.0)')
    expect((await ws.dacli('events', 'tail', '--nope')).expectExit(2).stderr).toContain('unknown flag: --nope')
  })

  test('capabilities lists both with the release that drops them, and they are requirable in the window', async () => {
    const ws = await workspace()
    const caps = (await ws.ok('capabilities', '--json')).json
    const ctx = caps.commands.find((c: { path: string }) => c.path === 'context')
    expect(ctx).toMatchObject({ json: true, json_schema: 'context/v1' })
    expect(ctx.aliases).toEqual([
      {
        id: 'cli.command.context.flag.brief-tokens',
        name: '--brief-tokens',
        replaced_by: '--budget',
        removed_in: '0.2.0',
        why: 'the Go dacli’s name; --budget is the name the brief and the MCP tool use',
      },
    ])
    const events = caps.commands.find((c: { path: string }) => c.path === 'events list')
    expect(events.aliases.map((a: { id: string; replaced_by: string }) => [a.id, a.replaced_by])).toEqual([
      ['cli.command.events.tail', 'events list'],
    ])
    await ws.ok(
      'capabilities',
      '--require',
      'cli.command.events.tail',
      '--require',
      'cli.command.context.flag.brief-tokens',
    )
  })
})
