// The exit code → result mapping, through the SDK client: a refusal (3) is a
// normal result carrying {refused}; not-found (4), conflict (5), usage (2) and
// failure (1) are isError results with the error/v1 envelope.

import { beforeAll, describe, expect, test } from 'vitest'
import { session, textJSON } from '../testkit/mcp.js'
import { commandLines, stale } from '../testkit/parity.js'
import { expectValid } from '../testkit/schemas.js'
import { dacliIn, type Fixture, fixture, snapshotOf, table } from '../testkit/ws.js'
import { buildToolset } from './call.js'
import { NOT_RETRY } from './results.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
})

type As = 'root' | 'rw' | 'ro'
const token = (as: As) => (as === 'rw' ? fx.rw.token : as === 'ro' ? fx.ro.token : undefined)

async function callIn(root: string, as: As, tool: string, args: Record<string, unknown>) {
  const t = token(as)
  const mcp = await session(root, t === undefined ? {} : { as: t })
  try {
    return await mcp.call(tool, { schema_version: 1, ...args })
  } finally {
    await mcp.close()
  }
}

describe('exit 3: a refusal is an answer, returned as a normal result', () => {
  const cases: [string, As, string, Record<string, unknown>, string][] = [
    ['unchecked criteria', 'root', 'finish_task', { ref: 'alpha/1' }, 'acceptance'],
    ['a near-duplicate task', 'root', 'add_task', { title: 'First thing again', project: 'alpha' }, 'near-duplicate'],
    ['a dependency cycle', 'root', 'add_dependency', { ref: 'alpha/1', add: ['alpha/2'] }, 'dependency-cycle'],
    ['a read-only grant', 'ro', 'check_task', { ref: 'alpha/1', all: true }, 'grant'],
    ['not the owner', 'root', 'release_task', { ref: 'alpha/3' }, 'owner'],
    ['a done task', 'root', 'claim_task', { ref: 'alpha/5' }, 'state'],
    [
      'a decision without a rejected option',
      'root',
      'add_note',
      { kind: 'decision', title: 'Z', project: 'alpha' },
      '',
    ],
    ['a budget below the task', 'root', 'get_context', { ref: 'alpha/1', budget: 1 }, ''],
    ['through cli', 'root', 'cli', { argv: ['task', 'done', 'alpha/1'] }, 'acceptance'],
  ]
  test.each(cases)('%s (%s → %s)', async (_what, as, tool, args, policy) => {
    const root = fx.copy()
    const before = snapshotOf(root)
    const r = await callIn(root, as, tool, args)
    expect(r.isError).toBeFalsy()
    const body = r.structuredContent as any
    expect(textJSON(r)).toEqual(body)
    expect(Object.keys(body)).toEqual(['refused'])
    expect(typeof body.refused.reason).toBe('string')
    expect(body.refused.reason.length).toBeGreaterThan(0)
    if (policy !== '') expect(body.refused.policy).toBe(policy)
    else expect(typeof body.refused.policy).toBe('string')
    expect(body.refused.next.at(-1)).toBe(NOT_RETRY)
    // Parity (parity.test.ts proves it over the source): what the refusal says to do names no flag its tool lacks.
    expect(stale(commandLines([body.refused.reason, ...body.refused.next].join('\n')))).toEqual([])
    expect(snapshotOf(root)).toEqual(before)
  })

  test('finish_task’s refusal lists exactly which criterion is unmet', async () => {
    const r = await callIn(fx.copy(), 'root', 'finish_task', { ref: 'alpha/2' })
    const refused = (r.structuredContent as any).refused
    expect(refused.details.unmet).toEqual([{ n: 1, text: 'also' }])
    expect(refused.next.length).toBeGreaterThan(1)
  })
})

describe('exit 4: not found is an error carrying the envelope', () => {
  // Every tool with a parameter naming a task or project, pointed at one that does not exist.
  const missing: Record<string, unknown> = { ref: 'alpha/99', project: 'nope', about: 'alpha/99', by: 'alpha/99' }
  const filler: Record<string, unknown> = {
    title: 'Brand new job',
    kind: 'finding',
    add: ['alpha/1'],
    question: 'Why?',
    query: 'ledger',
    source: 'main',
    target: 'release',
  }
  const tools = buildToolset(table, 'full').tools.filter((t) => t.params.some((p) => p.name in missing))

  test('the tools that name a task or project are the ones expected', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'accept_task',
        'add_dependency',
        'add_note',
        'add_task',
        'ask',
        'block_task',
        'check_task',
        'claim_task',
        'cleanup_repository',
        'critical_path',
        'finish_task',
        'get_context',
        'github_projection',
        'list_events',
        'list_notes',
        'list_tasks',
        'next_tasks',
        'reconcile_delivery',
        'reconcile_event_journal',
        'release_task',
        'release_train',
        'renew_claim',
        'search',
        'show_task',
      ].sort(),
    )
  })

  test.each(tools.map((t) => [t.name, t] as const))('%s', async (_name, tool) => {
    const args: Record<string, unknown> = {}
    for (const p of tool.params) {
      if (p.name in missing)
        args[p.name] = p.name === 'project' && tool.params[0]?.name === 'ref' ? 'alpha' : missing[p.name]
      else if (p.required) args[p.name] = filler[p.name]
    }
    if (tool.name === 'check_task') args.all = true
    if (tool.name === 'add_dependency') args.add = ['alpha/1']
    if (tool.name === 'release_train') args.dry_run = true // one of --dry-run and --apply is required
    const root = fx.copy()
    const before = snapshotOf(root)
    const r = await callIn(root, 'root', tool.name, args)
    expect(r.isError, JSON.stringify(r.content)).toBe(true)
    expect(r.structuredContent).toBeUndefined()
    const env = textJSON(r)
    expectValid(env, 'error/v1')
    expect(env).toMatchObject({ exit_code: 4, kind: 'not_found', ok: false })
    expect(snapshotOf(root)).toEqual(before)
  })
})

describe('exit 2: a parameter the tool renames is named as the tool names it', () => {
  test('reconcile_event_journal: a bad archive_classes value names archive_classes, not --archive', async () => {
    const root = fx.copy()
    const before = snapshotOf(root)
    const r = await callIn(root, 'root', 'reconcile_event_journal', { archive_classes: ['applied', 'bogus'] })
    expect(r.isError).toBe(true)
    const env = textJSON(r)
    expectValid(env, 'error/v1')
    expect(env).toMatchObject({ exit_code: 2, kind: 'usage' })
    expect(env.message).toBe('archive_classes must be one of applied, superseded, orphaned, unverifiable, got "bogus"')
    expect(env.details).toMatchObject({ flag: 'archive_classes', value: 'bogus' })
    expect(JSON.stringify([env.message, env.details])).not.toMatch(/--archive/)
    // The refused value is an invalid param, as a value of the wrong type is; the way on is the tool's schema.
    expect(env.details.invalid_params).toEqual([
      {
        field: 'archive_classes',
        expected: 'one of applied, superseded, orphaned, unverifiable',
        got: 'a string ("bogus")',
      },
    ])
    expect(env.next_actions).toEqual(['call tools/list for the tools and their input schemas'])
    expect(snapshotOf(root)).toEqual(before)
  })

  test.each([
    ['list_tasks', { limit: 0 }, 'limit must be in 1..100000, got 0', 'an integer from 1 to 100000', 'a number (0)'],
    [
      'claim_task',
      { ref: 'alpha/1', lease: 'forever' },
      /^lease must be a duration/,
      'a duration string such as "2h" or "45m"',
      'a string ("forever")',
    ],
    [
      'add_task',
      { title: 'x', project: 'alpha', priority: 'nope' },
      'priority must be one of must, should, could, wont, got "nope"',
      'one of must, should, could, wont',
      'a string ("nope")',
    ],
  ])(
    '%s %j: the parameter is named, listed in invalid_params, nothing written',
    async (tool, args, message, expected, got) => {
      const root = fx.copy()
      const before = snapshotOf(root)
      const env = textJSON(await callIn(root, 'root', tool, args))
      expectValid(env, 'error/v1')
      expect(env).toMatchObject({ exit_code: 2, kind: 'usage' })
      expect(env.message).toMatch(message)
      expect(JSON.stringify([env.message, env.details])).not.toMatch(/--(limit|lease|priority)/)
      const field = Object.keys(args).at(-1)
      expect(env.details.invalid_params).toEqual([{ field, expected, got }])
      expect(env.next_actions).toEqual(['call tools/list for the tools and their input schemas'])
      expect(snapshotOf(root)).toEqual(before)
    },
  )

  test('an integer sent as text is taken only as JSON writes it: "3", never "03" or "+3"', async () => {
    const ok = await callIn(fx.copy(), 'root', 'list_tasks', { limit: '1' })
    expect(ok.isError).toBeFalsy()
    for (const limit of ['03', '+3', '3.0', ' 3']) {
      const env = textJSON(await callIn(fx.copy(), 'root', 'list_tasks', { limit }))
      expect(env.details.invalid_params, limit).toEqual([
        { field: 'limit', expected: 'an integer', got: `a string (${JSON.stringify(limit)})` },
      ])
    }
  })

  test('schema_version sent as text follows the same rule: "1" is read, "01" and "+1" are refused before anything runs', async () => {
    const root = fx.copy()
    const before = snapshotOf(root)
    const ok = await callIn(root, 'root', 'list_tasks', { schema_version: '1' })
    expect(ok.isError).toBeFalsy()
    for (const v of ['01', '+1', '1.0', ' 1']) {
      const r = await callIn(root, 'root', 'add_task', { schema_version: v, title: 'Not added', project: 'alpha' })
      expect(r.isError, v).toBe(true)
      const env = textJSON(r)
      expect(env.exit_code, v).toBe(2)
      expect(env.details.invalid_params, v).toEqual([
        { field: 'schema_version', expected: 'an integer', got: `a string (${JSON.stringify(v)})` },
      ])
    }
    expect(snapshotOf(root)).toEqual(before)
  })

  test('through cli the same mistake names the flag', async () => {
    const r = await callIn(fx.copy(), 'root', 'cli', { argv: ['events', 'reconcile', '--archive', 'bogus'] })
    expect(textJSON(r).message).toMatch(/^--archive must be one of/)
  })
})

describe('exit 5: a conflict is an error carrying the envelope', () => {
  test('claiming a task another identity holds names the holder', async () => {
    const root = fx.copy()
    const r = await callIn(root, 'root', 'claim_task', { ref: 'alpha/3' })
    expect(r.isError).toBe(true)
    const env = textJSON(r)
    expectValid(env, 'error/v1')
    expect(env).toMatchObject({ exit_code: 5, kind: 'conflict' })
    expect(env.details.owner).toBe(fx.rw.id)
  })

  test('through cli: an existing project slug', async () => {
    const r = await callIn(fx.copy(), 'root', 'cli', { argv: ['project', 'add', 'Again', '--slug', 'alpha'] })
    expect(r.isError).toBe(true)
    expect(textJSON(r)).toMatchObject({ exit_code: 5, kind: 'conflict' })
  })
})

describe('exit 1: an operational failure is an error', () => {
  test('a failing verify checks nothing', async () => {
    const root = fx.copy()
    const before = snapshotOf(root)
    const r = await callIn(root, 'root', 'check_task', { ref: 'alpha/1', all: true, verify: 'exit 7' })
    expect(r.isError).toBe(true)
    expect(textJSON(r)).toMatchObject({ exit_code: 1, kind: 'failure' })
    expect(snapshotOf(root)).toEqual(before)
  })

  test('doctor with strict and an error-severity finding: an error result carrying the report', async () => {
    const root = fx.copy()
    const mcp = await session(root)
    try {
      // A task file nobody can parse is an error-severity finding.
      const file = `${root}/.dacli/projects/alpha/tasks/open/009-broken.md`
      ;(await import('node:fs')).writeFileSync(file, '---\nid: [unclosed\n---\n')
      const r = await mcp.call('doctor', { schema_version: 1, strict: true })
      expect(r.isError).toBe(true)
      const report = textJSON(r)
      expect(report.schema).toBe('doctor/v1')
      expectValid(report)
      const plain = await mcp.call('doctor', { schema_version: 1 })
      expect(plain.isError).toBeFalsy()
      expect((plain.structuredContent as any).schema).toBe('doctor/v1')
    } finally {
      await mcp.close()
    }
  })
})

describe('the cli escape hatch', () => {
  test('runs any command and answers exactly its --json document', async () => {
    const r = await callIn(fx.ws.root, 'root', 'cli', { argv: ['project', 'show', 'alpha'] })
    const cli = await dacliIn(fx.ws.root, ['project', 'show', 'alpha', '--json'])
    expect(r.structuredContent).toEqual(cli.expectExit(0).json)
    expect((r.content[0] as { text: string }).text).toBe(cli.stdout.trimEnd())
  })

  test('a value after `--` stays a value (--json is added as a leading switch)', async () => {
    const root = fx.copy()
    const r = await callIn(root, 'root', 'cli', { argv: ['task', 'add', '--project', 'alpha', '--', '--odd title'] })
    expect(r.structuredContent).toMatchObject({ schema: 'task/v1', title: '--odd title' })
  })

  test('mcp serve is refused through it, before anything runs', async () => {
    for (const argv of [
      ['mcp', 'serve'],
      ['--json', 'mcp', 'serve', '--profile', 'minimal'],
    ]) {
      const r = await callIn(fx.ws.root, 'root', 'cli', { argv })
      expect(r.isError).toBe(true)
      expect(textJSON(r)).toMatchObject({ exit_code: 2, kind: 'usage' })
      expect(textJSON(r).message).toMatch(/mcp serve cannot run through the cli tool/)
    }
  })

  test('an unknown command is a usage error with suggestions; --help answers the catalog/v1 document', async () => {
    const typo = await callIn(fx.ws.root, 'root', 'cli', { argv: ['tsak', 'list'] })
    expect(typo.isError).toBe(true)
    expect(textJSON(typo).suggestions).toContain('dacli task list')
    const help = await callIn(fx.ws.root, 'root', 'cli', { argv: ['task', 'claim', '--help'] })
    expect(help.isError).toBeFalsy()
    expect(help.structuredContent).toMatchObject({ schema: 'catalog/v1', commands: [{ path: 'task claim' }] })
    expect(textJSON(help)).toEqual(help.structuredContent)
  })
})
