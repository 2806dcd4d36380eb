// `context --budget N` through the CLI on real workspaces with many sections: for every budget either exit 3
// naming a minimum M that then succeeds (and M - 1 does not), or exit 0 with `estimated_tokens` ≤ N and equal to
// the estimate of the whole markdown returned (header and omission notice included), sections dropped only from
// the bottom. The same through MCP `get_context` (it runs the same command).

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { session } from '../../testkit/mcp.js'
import { expectValid } from '../../testkit/schemas.js'
import { type Workspace, workspace } from '../../testkit/ws.js'

const WORDS = ['ledger', 'refund', 'batch', 'rounding', 'audit', 'export', 'month', 'drift', 'seam', 'retry', 'cache']
const text = (min: number, max: number) =>
  fc.array(fc.constantFrom(...WORDS), { minLength: min, maxLength: max }).map((w) => w.join(' '))
const some = <T>(item: fc.Arbitrary<T>) => fc.array(item, { maxLength: 2 })

const shapes = fc.record({
  accept: fc.array(text(1, 14), { minLength: 1, maxLength: 4 }),
  context: fc.option(text(1, 80), { nil: undefined }),
  goal: fc.option(text(1, 30), { nil: undefined }),
  soThat: fc.option(text(1, 20), { nil: undefined }),
  decisions: some(fc.record({ rejected: text(1, 10), because: text(1, 20) })),
  risks: some(text(1, 8)),
  terms: fc.uniqueArray(fc.constantFrom(...WORDS), { maxLength: 2 }),
  findings: some(fc.constantFrom('minor', 'moderate', 'major')),
  depends: fc.boolean(),
})
type Shape = typeof shapes extends fc.Arbitrary<infer S> ? S : never

const tokens = (md: string) => Math.ceil(md.length / 4)

/** A workspace whose task ledger/2 has the sections `s` asks for. */
async function build(s: Shape): Promise<Workspace> {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger', ...(s.goal ? ['--goal', s.goal] : []))
  await ws.ok('task', 'add', 'Audit write paths', '--project', 'ledger', '--accept', 'listed')
  await ws.ok(
    'task',
    'add',
    'Build the shim',
    '--project',
    'ledger',
    ...s.accept.flatMap((a) => ['--accept', a]),
    ...(s.context ? ['--context', s.context] : []),
    ...(s.soThat ? ['--so-that', s.soThat] : []),
    ...(s.depends ? ['--depends-on', '1'] : []),
  )
  for (const [i, d] of s.decisions.entries())
    await ws.ok(
      'note',
      'add',
      'decision',
      `Decision ${i}`,
      '--project',
      'ledger',
      '--rejected',
      d.rejected,
      '--because',
      d.because,
    )
  for (const [i, r] of s.risks.entries())
    await ws.ok(
      'risk',
      'add',
      `Risk ${i}`,
      '--project',
      'ledger',
      '--impact',
      'high',
      '--likelihood',
      'low',
      '--indicator',
      r,
    )
  for (const term of s.terms) await ws.ok('glossary', 'ledger', '--term', term, '--def', `what ${term} means here`)
  for (const [i, severity] of s.findings.entries())
    await ws.ok('note', 'add', 'finding', `Finding ${i}`, '--project', 'ledger', '--severity', severity, '--about', '1')
  return ws
}

/** One budget: exit 3 with a working, least minimum, or exit 0 within it. */
async function checkBudget(ws: Workspace, full: any, budget: number): Promise<void> {
  const r = await ws.dacli('context', 'ledger/2', '--budget', String(budget), '--json')
  if (r.code === 3) {
    const minimum = r.error.details.minimum_budget
    expect(minimum).toBeGreaterThan(budget)
    expect(r.error.next_actions).toEqual([`dacli context ledger/002-build-the-shim --budget ${minimum}`])
    const at = (await ws.dacli('context', 'ledger/2', '--budget', String(minimum), '--json')).expectExit(0).json
    expect(at.estimated_tokens).toBeLessThanOrEqual(minimum)
    expect(at.estimated_tokens).toBe(tokens(at.markdown))
    ;(await ws.dacli('context', 'ledger/2', '--budget', String(minimum - 1), '--json')).expectExit(3)
    return
  }
  const c = r.expectExit(0).json
  expectValid(c)
  expect(c.budget).toBe(budget)
  expect(c.estimated_tokens, `--budget ${budget}`).toBeLessThanOrEqual(budget)
  expect(c.estimated_tokens).toBe(tokens(c.markdown))
  const titles = full.sections.map((x: { title: string }) => x.title)
  // Dropped only from the bottom: what is kept is a run from the top, what is omitted the rest, in order.
  expect(c.sections.map((x: { title: string }) => x.title)).toEqual(titles.slice(0, c.sections.length))
  expect(c.omitted.map((o: { section: string }) => o.section)).toEqual(titles.slice(c.sections.length))
  expect(c.sections.length).toBeGreaterThanOrEqual(1)
  for (const o of c.omitted) expect(c.markdown).toContain(`- ${o.section}: left out`)
  // Nothing is dropped when the whole brief fits.
  if (budget >= full.estimated_tokens) expect(c.omitted).toEqual([])
}

describe('context --budget: the whole markdown is counted', () => {
  test('every budget either fits the brief or names a minimum that does', async () => {
    await fc.assert(
      fc.asyncProperty(
        shapes,
        fc.array(fc.integer({ min: 1, max: 900 }), { minLength: 4, maxLength: 8 }),
        async (s, budgets) => {
          const ws = await build(s)
          const full = (await ws.dacli('context', 'ledger/2', '--json')).expectExit(0).json
          expect(full.estimated_tokens).toBe(tokens(full.markdown))
          const edges = [full.estimated_tokens, full.estimated_tokens - 1, full.estimated_tokens - 40]
          for (const b of [...budgets, ...edges.filter((b) => b >= 1)]) await checkBudget(ws, full, b)
        },
      ),
      { numRuns: 20 },
    )
  }, 240_000)

  test('MCP get_context: within the budget, or refused with a minimum that get_context then honours', async () => {
    const ws = await build({
      accept: ['batch covered', 'rounding audited'],
      context: 'month end drift in the ledger export',
      goal: 'No month-end drift',
      soThat: 'drift stops',
      decisions: [{ rejected: 'rewrite callers', because: 'one seam' }],
      risks: ['duplicate rows'],
      terms: ['shim'],
      findings: ['major'],
      depends: true,
    })
    const mcp = await session(ws.root)
    try {
      const call = async (budget: number) =>
        (await mcp.call('get_context', { schema_version: 1, ref: 'ledger/2', budget })).structuredContent as any
      const refused = (await call(10)).refused
      const minimum = refused.details.minimum_budget
      expect(minimum).toBeGreaterThan(10)
      for (const budget of [minimum, minimum + 30, minimum + 90]) {
        const c = await call(budget)
        expect(c.refused).toBeUndefined()
        expect(c.estimated_tokens).toBeLessThanOrEqual(budget)
        expect(c.estimated_tokens).toBe(tokens(c.markdown))
        const cli = (await ws.dacli('context', 'ledger/2', '--budget', String(budget), '--json')).expectExit(0).json
        expect(c.markdown).toBe(cli.markdown)
      }
      expect((await call(minimum - 1)).refused.details.minimum_budget).toBe(minimum)
    } finally {
      await mcp.close()
    }
  })
})
