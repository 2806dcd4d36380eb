// Shortcuts: a hand-written file checked against the command table at load (a bad step refused naming the file
// and the line), `run` with parameters, --dry-run (nothing written, byte for byte), --confirm for writing steps,
// the caller's grant (a read-only identity never runs a writing step), the first failing step stopping the run
// with its exit code, and the MCP tool run_shortcut with its `params` object.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { session, textJSON } from '../../testkit/mcp.js'
import { expectValid } from '../../testkit/schemas.js'
import { type Workspace, workspace } from '../../testkit/ws.js'

const START = `---
kind: shortcut
---

# Start a task

Claims the task and shows it.

## Parameters

- ref — the task to start
- lease = 2h — how long to hold the claim

## Steps

1. \`task claim {{ref}} --lease {{lease}}\`
2. \`dacli task show {{ref}}\`
`

async function setup(files: Record<string, string> = { start: START }): Promise<Workspace> {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  for (const t of ['Schema change', 'Backfill'])
    await ws.ok('task', 'add', t, '--project', 'ledger', '--accept', 'ok', '--force')
  write(ws, files)
  return ws
}

function write(ws: Workspace, files: Record<string, string>): void {
  const dir = path.join(ws.root, '.dacli', 'shortcuts')
  fs.mkdirSync(dir, { recursive: true })
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, `${name}.md`), text)
}

describe('run', () => {
  test('dry run resolves the steps and writes nothing; --confirm runs them through the table', async () => {
    const ws = await setup()
    const shown = (await ws.ok('shortcut', 'show', 'start', '--json')).json
    expectValid(shown)
    expect(shown.params).toEqual([
      { name: 'ref', required: true, default: null, description: 'the task to start' },
      { name: 'lease', required: false, default: '2h', description: 'how long to hold the claim' },
    ])
    expect(
      shown.steps.map((s: { line: number; path: string; mutates: boolean }) => [s.line, s.path, s.mutates]),
    ).toEqual([
      [16, 'task claim', true],
      [17, 'task show', false],
    ])
    const list = (await ws.ok('shortcut', 'list', '--json')).json
    expectValid(list)
    expect(list.shortcuts).toEqual([
      { name: 'start', title: 'Start a task', params: ['ref', 'lease'], steps: 2, mutates: true },
    ])

    const before = ws.snapshot()
    const dry = (await ws.ok('run', 'start', '--ref', 'ledger/1', '--dry-run', '--json')).json
    expectValid(dry)
    expect(dry.dry_run).toBe(true)
    expect(dry.params).toEqual({ ref: 'ledger/1', lease: '2h' })
    expect(
      dry.steps.map((s: { command: string; argv: string[]; outcome: string }) => [s.command, s.argv, s.outcome]),
    ).toEqual([
      ['dacli task claim ledger/1 --lease 2h', ['task', 'claim', '--lease=2h', '--', 'ledger/1'], 'planned'],
      ['dacli task show ledger/1', ['task', 'show', '--', 'ledger/1'], 'planned'],
    ])
    expect(ws.snapshot()).toEqual(before)

    // A writing shortcut without --confirm: refused, nothing run.
    const unconfirmed = await ws.dacli('run', 'start', '--ref', 'ledger/1', '--json')
    unconfirmed.expectExit(3)
    expect(unconfirmed.error.details.policy).toBe('shortcut-confirm')
    expect(ws.snapshot()).toEqual(before)

    const ran = (await ws.ok('run', 'start', '--ref', 'ledger/1', '--lease', '30m', '--confirm', '--json')).json
    expectValid(ran)
    expect(ran.steps.map((s: { outcome: string; exit_code: number }) => [s.outcome, s.exit_code])).toEqual([
      ['ok', 0],
      ['ok', 0],
    ])
    expect(ran.steps[0].document).toMatchObject({ schema: 'task-change/v1', action: 'claim', outcome: 'changed' })
    expect(ran.steps[1].document).toMatchObject({ schema: 'task/v1', status: 'active' })
    // The bytes on disk: the task moved to active, claimed by the caller, for 30 minutes.
    const active = ws.file('.dacli/projects/ledger/tasks/active/001-schema-change.md')
    expect(active).toMatch(/^owner: a-root$/m)
    expect(fs.existsSync(path.join(ws.root, '.dacli/projects/ledger/tasks/open/001-schema-change.md'))).toBe(false)
    const log = (await ws.ok('task', 'log', 'ledger/1', '--json')).json
    expect(JSON.stringify(log)).toContain('lease 1800s')
  })

  test('parameters: unknown ones refused as unknown flags, missing ones named, a value is never read as a flag', async () => {
    const ws = await setup({
      start: START,
      look: '# Look\n\n## Parameters\n\n- ref\n\n## Steps\n\n- task show {{ref}}\n',
    })
    const before = ws.snapshot()
    const unknown = await ws.dacli('run', 'start', '--ref', 'ledger/1', '--reff', 'x', '--confirm', '--json')
    unknown.expectExit(2)
    expect(unknown.error.details.unknown_flags).toEqual(['--reff'])
    const missing = await ws.dacli('run', 'start', '--json', '--confirm')
    missing.expectExit(2)
    expect(missing.error.details.missing_flags).toEqual(['--ref'])
    // `--ref=--help` reaches task show as an argument after `--`, never as its --help.
    const injected = await ws.dacli('run', 'look', '--ref=--help', '--json')
    injected.expectExit(4)
    expect(injected.error.details).toMatchObject({ step: 1, step_exit_code: 4 })
    expect(ws.snapshot()).toEqual(before)
  })

  test('the first failing step stops the run with its exit code; the steps after it never run', async () => {
    const ws = await setup({
      chain: [
        '# Chain',
        '',
        '## Parameters',
        '',
        '- first',
        '- second',
        '',
        '## Steps',
        '',
        '1. task claim {{first}}',
        '2. task claim {{second}}',
        '3. task claim ledger/2',
        '',
      ].join('\n'),
    })
    const r = await ws.dacli('run', 'chain', '--first', 'ledger/1', '--second', 'ledger/77', '--confirm', '--json')
    r.expectExit(4)
    expect(r.stdout).toBe('')
    expect(r.error.kind).toBe('not_found')
    expect(r.error.details).toMatchObject({
      shortcut: 'chain',
      step: 2,
      command: 'dacli task claim ledger/77',
      step_exit_code: 4,
      ran: [{ n: 1, command: 'dacli task claim ledger/1', exit_code: 0 }],
    })
    // Step 1 ran (on disk), step 3 did not.
    expect(fs.existsSync(path.join(ws.root, '.dacli/projects/ledger/tasks/active/001-schema-change.md'))).toBe(true)
    expect(fs.existsSync(path.join(ws.root, '.dacli/projects/ledger/tasks/open/002-backfill.md'))).toBe(true)
  })

  test('a read-only identity never runs a step its grant forbids; a reading shortcut runs', async () => {
    const ws = await setup({
      start: START,
      look: '# Look\n\n## Parameters\n\n- ref\n\n## Steps\n\n- task show {{ref}}\n',
    })
    const ro = await ws.agent('ro')
    const before = ws.snapshot()
    for (const extra of [[], ['--confirm']]) {
      const r = await ws.dacli('run', 'start', '--ref', 'ledger/1', ...extra, '--json', { as: ro.token })
      r.expectExit(3)
      expect(r.error.details.policy).toBe('grant')
      expect(ws.snapshot()).toEqual(before)
    }
    // No proposal event either: the step never ran.
    const events = (await ws.ok('events', 'list', '--pending', '--json')).json
    expect(events.events ?? events.items ?? []).toEqual([])
    const look = (await ws.ok('run', 'look', '--ref', 'ledger/2', '--json', { as: ro.token })).json
    expect(look.steps[0].document).toMatchObject({ schema: 'task/v1', ref: 'ledger/002-backfill' })
  })
})

describe('a shortcut file is checked against the command table at load', () => {
  const bad: [string, string, number, RegExp][] = [
    ['unknown command', '# X\n\n## Steps\n\n1. task clam ledger/1\n', 5, /"task clam" is not a dacli command/],
    [
      'unknown flag',
      '# X\n\n## Steps\n\n1. task show ledger/1\n2. task claim ledger/1 --leese 2h\n',
      6,
      /task claim has no flag --leese \(did you mean --lease\?\)/,
    ],
    [
      'undeclared placeholder',
      '# X\n\n## Parameters\n\n- ref\n\n## Steps\n\n- task show {{reff}}\n',
      9,
      /\{\{reff\}\} is not a parameter/,
    ],
    ['bad literal value', '# X\n\n## Steps\n\n- task claim ledger/1 --lease soon\n', 5, /--lease must be a duration/],
    ['too many arguments', '# X\n\n## Steps\n\n- task show ledger/1 ledger/2\n', 5, /takes 1 argument/],
    ['not a step', '# X\n\n## Steps\n\n- board --read-only\n', 5, /board cannot be a step/],
    ['a shell string', '# X\n\n## Steps\n\n- task show "ledger/1\n', 5, /double quote is not closed/],
    ['reserved parameter', '# X\n\n## Parameters\n\n- confirm\n\n## Steps\n\n- status\n', 5, /cannot be named confirm/],
    // A line read reaches documents and terminals: a control character there is a fault (review 19).
    [
      'an escape in the title',
      '# X \u001b]0;pwn\u0007\n\n## Steps\n\n- status\n',
      1,
      /the line holds the control character ESC/,
    ],
    ['an escape in the description', '# X\n\nclears \u001b[2J\n\n## Steps\n\n- status\n', 3, /control character ESC/],
    ['a bell in a step', '# X\n\n## Steps\n\n- task show ledger/1\u0007\n', 5, /control character BEL/],
  ]
  test.each(bad)('%s → exit 1 naming the file and the line; nothing runs', async (_n, text, line, why) => {
    const ws = await setup({ start: START, bad: text })
    const before = ws.snapshot()
    for (const argv of [
      ['run', 'bad', '--confirm'],
      ['shortcut', 'show', 'bad'],
    ]) {
      const r = await ws.dacli(...argv, '--json')
      r.expectExit(1)
      expect(r.error.message).toMatch(new RegExp(`^\\.dacli/shortcuts/bad\\.md:${line}: `))
      expect(r.error.message).toMatch(why)
      expect(r.error.details).toMatchObject({ path: '.dacli/shortcuts/bad.md', line })
    }
    const list = (await ws.ok('shortcut', 'list', '--json')).json
    expect(list.shortcuts.map((s: { name: string }) => s.name)).toEqual(['start'])
    expect(list.skipped).toEqual([{ name: 'bad', reason: expect.stringContaining(`bad.md:${line}:`) }])
    expect(ws.snapshot()).toEqual(before)
  })
})

describe('MCP run_shortcut', () => {
  test('params as an object of strings; dry_run; confirm; refusals as results', async () => {
    const ws = await setup()
    const mcp = await session(ws.root)
    try {
      const before = ws.snapshot()
      const dry = await mcp.call('run_shortcut', {
        schema_version: 1,
        name: 'start',
        params: { ref: 'ledger/2' },
        dry_run: true,
      })
      expect(dry.isError).toBeFalsy()
      expect(dry.structuredContent).toMatchObject({
        schema: 'shortcut-run/v1',
        dry_run: true,
        params: { ref: 'ledger/2', lease: '2h' },
      })
      const refused = await mcp.call('run_shortcut', { schema_version: 1, name: 'start', params: { ref: 'ledger/2' } })
      expect(refused.isError).toBeFalsy()
      expect(textJSON(refused).refused.policy).toBe('shortcut-confirm')
      const clash = await mcp.call('run_shortcut', {
        schema_version: 1,
        name: 'start',
        params: { ref: 'ledger/2', 'dry-run': 'false' },
        confirm: true,
      })
      expect(clash.isError).toBe(true)
      expect(textJSON(clash).details.invalid_params[0].field).toBe('params.dry-run')
      const notStrings = await mcp.call('run_shortcut', { schema_version: 1, name: 'start', params: { ref: 2 } })
      expect(notStrings.isError).toBe(true)
      expect(ws.snapshot()).toEqual(before)
      const ran = await mcp.call('run_shortcut', {
        schema_version: 1,
        name: 'start',
        params: { ref: 'ledger/2' },
        confirm: true,
      })
      expect(ran.isError).toBeFalsy()
      expect(ran.structuredContent).toMatchObject({ schema: 'shortcut-run/v1', dry_run: false })
      expect(fs.existsSync(path.join(ws.root, '.dacli/projects/ledger/tasks/active/002-backfill.md'))).toBe(true)
    } finally {
      await mcp.close()
    }
  })
})
