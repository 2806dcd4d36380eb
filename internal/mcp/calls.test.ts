// Every tool, in process through the SDK's in-memory transport, on a real
// workspace: the happy path answers the wrapped command's document, valid against
// its published schema, as structuredContent and as identical JSON text.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { type Session, session, textJSON } from '../testkit/mcp.js'
import { expectValid } from '../testkit/schemas.js'
import { dacliIn, type Fixture, fixture, snapshotOf, table } from '../testkit/ws.js'
import { CLI_TOOL, TIER1 } from './tools.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
})

/** A successful call of every tool; `as: 'rw'` runs it as the agent that holds alpha/3. */
interface Happy {
  args: Record<string, unknown>
  as?: 'rw'
  check?: (doc: any) => void
  /** Arguments only a call before it can provide (a question's id); `root` is the workspace's folder. */
  prepare?: (mcp: Session, root: string) => Promise<Record<string, unknown>>
}
const HAPPY: Record<string, Happy> = {
  whoami: { args: {}, as: 'rw', check: (d) => expect(d).toMatchObject({ grant: 'rw', role: 'worker' }) },
  status: { args: {} },
  overview: { args: {} },
  get_context: { args: { ref: 'alpha/2', budget: '4000' }, check: (d) => expect(d.ref).toBe('alpha/002-second-thing') },
  list_projects: { args: {} },
  list_tasks: {
    args: { status: ['open', 'active'], limit: 2 },
    check: (d) => expect(d).toMatchObject({ total: 4, truncated: true }),
  },
  show_task: { args: { ref: 'alpha/1' }, check: (d) => expect(d.acceptance).toHaveLength(1) },
  next_tasks: { args: { project: 'alpha', parallel: 2 } },
  critical_path: { args: { project: 'alpha' } },
  add_task: {
    args: {
      title: 'Sixth: a new job',
      project: 'alpha',
      priority: 'must',
      estimate: '1,2,4',
      accept: ['one', 'two'],
      depends_on: ['alpha/1:SS'],
      force: 'false',
    },
    check: (d) => expect(d).toMatchObject({ seq: 6, priority: 'must', acceptance_total: 2 }),
  },
  claim_task: {
    args: { ref: 'alpha/1', lease: '1h' },
    check: (d) => expect(d).toMatchObject({ outcome: 'changed' }),
  },
  release_task: { args: { ref: 'alpha/3' }, as: 'rw', check: (d) => expect(d.outcome).toBe('changed') },
  renew_claim: { args: { ref: 'alpha/3', lease: '30m' }, as: 'rw' },
  check_task: { args: { ref: 'alpha/1', n: [1], verify: 'true' }, check: (d) => expect(d.outcome).toBe('changed') },
  finish_task: { args: { ref: 'alpha/4' }, check: (d) => expect(d.task.status).toBe('done') },
  block_task: { args: { ref: 'alpha/2', by: 'alpha/1', why: 'waits' } },
  accept_task: { args: { ref: 'alpha/4', verify: 'true' }, check: (d) => expect(d.accepted).toBe(1) },
  add_dependency: { args: { ref: 'alpha/1', add: ['alpha/4:SS'] } },
  add_note: {
    args: { kind: 'finding', title: 'Something odd', project: 'alpha', about: 'alpha/1', severity: 'minor' },
  },
  ask: {
    args: { question: 'Round half-up or half-even?', about: 'alpha/2', need: 'a rounding rule' },
    check: (d) => expect(d).toMatchObject({ schema: 'question/v1', task: { status: 'blocked' } }),
  },
  answer: {
    args: { answer: 'Half-even', as: 'decision', rejected: 'half-up', because: 'the bank does' },
    prepare: async (mcp) => {
      const q = await mcp.call('ask', { schema_version: 1, question: 'Which rounding?', about: 'alpha/2' })
      return { question_id: (q.structuredContent as any).id }
    },
    check: (d) => expect(d).toMatchObject({ note: { kind: 'decision' }, task: { unblocked: true } }),
  },
  list_notes: { args: { project: 'alpha', kind: 'decision' }, check: (d) => expect(d.notes).toHaveLength(1) },
  list_events: { args: { pending: true } },
  doctor: { args: { strict: 'true' } },
  search: {
    args: { query: 'second thing', kind: 'task' },
    check: (d) => expect(d.results[0].ref).toBe('alpha/002-second-thing'),
  },
  queue_next: {
    args: { queue: 'mcp' },
    prepare: async (mcp) => {
      await mcp.call('cli', { schema_version: 1, argv: ['queue', 'add', 'mcp', 'alpha/2', 'alpha/1'] })
      return {}
    },
    check: (d) => expect(d).toMatchObject({ schema: 'queue-next/v1', queue: 'mcp' }),
  },
  queue_advance: {
    args: { queue: 'mcp2', fail: 'not today' },
    prepare: async (mcp) => {
      await mcp.call('cli', { schema_version: 1, argv: ['queue', 'add', 'mcp2', 'alpha/2'] })
      return {}
    },
    check: (d) => expect(d.advanced).toEqual({ ref: 'alpha/002-second-thing', turn: 'failed', reason: 'not today' }),
  },
  run_shortcut: {
    args: { name: 'look', params: { ref: 'alpha/2' } },
    prepare: async (_mcp, root) => {
      fs.mkdirSync(path.join(root, '.dacli', 'shortcuts'))
      fs.writeFileSync(
        path.join(root, '.dacli', 'shortcuts', 'look.md'),
        '# Look\n\n## Parameters\n\n- ref\n\n## Steps\n\n1. task show {{ref}}\n',
      )
      return {}
    },
    check: (d) => expect(d.steps[0].document).toMatchObject({ schema: 'task/v1', ref: 'alpha/002-second-thing' }),
  },
  reconcile_event_journal: { args: { dry_run: true } },
  cleanup_repository: { args: { dry_run: true } },
  reconcile_delivery: { args: { project: 'alpha', dry_run: true } },
  [CLI_TOOL]: { args: { argv: ['task', 'edit', 'alpha/1', '--priority', 'should'] } },
}

const expectedSchema = (tool: string): string | null => {
  if (tool === CLI_TOOL) return 'task-change/v1'
  const path = TIER1.find((t) => t.name === tool)?.path
  return table.find((c) => c.path === path)?.json ?? null
}

describe('every tool’s happy path', () => {
  test('every tool has a scenario here', () => {
    // These three need a GitHub (github_projection: internal/features/github/projection.ts's test, over MCP too): their happy paths run against the fake GitHub with pulls
    // (internal/features/pr/diagnose.test.ts, internal/features/release/train.test.ts) and over MCP in
    // internal/features/delivery/mcp.test.ts.
    const withGitHub = new Set(['diagnose_pr', 'release_train', 'github_projection'])
    expect(Object.keys(HAPPY).sort()).toEqual(
      [...TIER1.map((t) => t.name).filter((n) => !withGitHub.has(n)), CLI_TOOL].sort(),
    )
  })

  test.each(Object.keys(HAPPY))('%s', async (tool) => {
    const s = HAPPY[tool] as Happy
    const root = fx.copy()
    const mcp = await session(root, s.as === 'rw' ? { as: fx.rw.token } : {})
    try {
      const r = await mcp.call(tool, { schema_version: 1, ...s.args, ...(await s.prepare?.(mcp, root)) })
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy()
      const doc = r.structuredContent as any
      expect(doc.schema).toBe(expectedSchema(tool))
      expect(Object.keys(doc)[0]).toBe('schema')
      expect(textJSON(r)).toEqual(doc)
      expect(r.content).toHaveLength(1)
      expectValid(doc)
      s.check?.(doc)
    } finally {
      await mcp.close()
    }
  })
})

describe('the CLI and MCP cannot disagree', () => {
  const reads: [string, Record<string, unknown>, string[]][] = [
    ['show_task', { ref: 'alpha/2' }, ['task', 'show', 'alpha/2']],
    // A list-like tool sends its default page size when the call names none: the command line with that --limit.
    [
      'list_tasks',
      { project: 'alpha', status: ['open'] },
      ['task', 'list', '--project', 'alpha', '--status', 'open', '--limit', '15'],
    ],
    ['next_tasks', { parallel: 5 }, ['next', '--parallel', '5', '--limit', '10']],
    [
      'list_notes',
      { project: 'alpha', limit: 1, cursor: '1' },
      ['note', 'list', '--project', 'alpha', '--limit', '1', '--cursor', '1'],
    ],
    ['critical_path', {}, ['critical-path', '--limit', '10']],
    ['whoami', {}, ['whoami']],
  ]
  test.each(reads)('%s answers what the command prints under --json', async (tool, args, argv) => {
    const mcp = await session(fx.ws.root, { as: fx.rw.token })
    try {
      const r = await mcp.call(tool, { schema_version: 1, ...args })
      const cli = await dacliIn(fx.ws.root, [...argv, '--json'], { as: fx.rw.token })
      expect(r.structuredContent).toEqual(cli.expectExit(0).json)
    } finally {
      await mcp.close()
    }
  })

  test('a write through MCP is the write the command makes, as the bound identity', async () => {
    const root = fx.copy()
    const mcp = await session(root, { as: fx.rw.token })
    try {
      const r = await mcp.call('claim_task', { schema_version: 1, ref: 'alpha/4' })
      expect(r.structuredContent).toMatchObject({ outcome: 'changed' })
      const shown = (await dacliIn(root, ['task', 'show', 'alpha/4', '--json'])).expectExit(0).json
      expect(shown).toMatchObject({ status: 'active', owner: fx.rw.id })
    } finally {
      await mcp.close()
    }
  })
})

test('the cli tool: a --json the caller wrote is the switch it always sets; --json=false is a usage error saying why', async () => {
  const mcp = await session(fx.ws.root, { as: fx.rw.token })
  try {
    const plain = await mcp.call('cli', { schema_version: 1, argv: ['task', 'show', 'alpha/2'] })
    const given = await mcp.call('cli', { schema_version: 1, argv: ['task', 'show', 'alpha/2', '--json'] })
    expect(given.isError).not.toBe(true)
    expect(given.structuredContent).toEqual(plain.structuredContent)
    const off = await mcp.call('cli', { schema_version: 1, argv: ['task', 'list', '--json=false'] })
    expect(off.isError).toBe(true)
    expect(textJSON(off)).toMatchObject({
      exit_code: 2,
      message: expect.stringContaining('--json=false cannot be honored'),
    })
    expect(textJSON(off).message).not.toContain('given 2 times')
  } finally {
    await mcp.close()
  }
})

describe('schema_version is checked before anything runs', () => {
  const bad: [string, unknown, RegExp][] = [
    ['missing', undefined, /missing required argument schema_version/],
    ['null', null, /missing required argument schema_version/],
    ['malformed', 'one', /schema_version must be the integer 1/],
    ['fractional', 1.5, /schema_version must be the integer 1/],
    ['unsupported', 2, /unsupported schema_version 2/],
  ]
  test.each(Object.keys(HAPPY))(
    '%s: missing, malformed or unsupported → usage error, nothing written',
    async (tool) => {
      const root = fx.copy()
      const before = snapshotOf(root)
      const mcp = await session(root)
      try {
        for (const [what, v, message] of bad) {
          const args = { ...(HAPPY[tool]?.args ?? {}), ...(v === undefined ? {} : { schema_version: v }) }
          const r = await mcp.call(tool, args)
          expect(r.isError, what).toBe(true)
          expect(r.structuredContent).toBeUndefined()
          const env = textJSON(r)
          expectValid(env, 'error/v1')
          expect(env).toMatchObject({ exit_code: 2, kind: 'usage' })
          expect(env.message).toMatch(message)
        }
      } finally {
        await mcp.close()
      }
      expect(snapshotOf(root)).toEqual(before)
    },
  )

  test('"1" is read as 1', async () => {
    const mcp = await session(fx.ws.root)
    const r = await mcp.call('whoami', { schema_version: '1' })
    await mcp.close()
    expect(r.isError).toBeFalsy()
    expect(r.structuredContent).toMatchObject({ schema: 'identity/v1', id: 'a-root' })
  })
})
