import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { isNearDuplicate, similarity, tokens } from '../../base/similarity.js'
import { type BriefSection, BudgetError, fitBrief, type Trimmed, tokensOf } from './brief.js'
import { type CpmTask, CycleError, criticalPath } from './cpm.js'
import { type Dep, type FrontierTask, frontier as frontierOf } from './frontier.js'
import { AMBIGUOUS, ambiguousTerms, lintDecision, lintRisk, lintTask } from './lint.js'
import { readiness, startHeld, type TaskState } from './readiness.js'

const row = (r: ReturnType<typeof criticalPath>, id: string) => r.rows.find((x) => x.id === id)

describe('critical path (hand-computed schedules)', () => {
  test('FS diamond: A(3) → B(2), C(4) → D(1)', () => {
    const r = criticalPath([
      { id: 'A', te: 3, deps: [] },
      { id: 'B', te: 2, deps: [{ on: 'A', type: 'FS' }] },
      { id: 'C', te: 4, deps: [{ on: 'A', type: 'FS' }] },
      {
        id: 'D',
        te: 1,
        deps: [
          { on: 'B', type: 'FS' },
          { on: 'C', type: 'FS' },
        ],
      },
    ])
    expect(r.duration).toBe(8)
    expect(row(r, 'A')).toMatchObject({ es: 0, ef: 3, ls: 0, lf: 3, slack: 0, critical: true })
    expect(row(r, 'B')).toMatchObject({ es: 3, ef: 5, ls: 5, lf: 7, slack: 2, critical: false })
    expect(row(r, 'C')).toMatchObject({ es: 3, ef: 7, ls: 3, lf: 7, slack: 0, critical: true })
    expect(row(r, 'D')).toMatchObject({ es: 7, ef: 8, ls: 7, lf: 8, slack: 0, critical: true })
    expect(r.critical_path).toEqual(['A', 'C', 'D'])
  })

  test('SS: B(2) may start with A(4)', () => {
    const r = criticalPath([
      { id: 'A', te: 4, deps: [] },
      { id: 'B', te: 2, deps: [{ on: 'A', type: 'SS' }] },
    ])
    expect(r.duration).toBe(4)
    expect(row(r, 'B')).toMatchObject({ es: 0, ef: 2, ls: 2, lf: 4, slack: 2 })
    expect(row(r, 'A')).toMatchObject({ slack: 0, critical: true })
  })

  test('FF: B(2) cannot finish before A(4) finishes', () => {
    const r = criticalPath([
      { id: 'A', te: 4, deps: [] },
      { id: 'B', te: 2, deps: [{ on: 'A', type: 'FF' }] },
    ])
    expect(row(r, 'B')).toMatchObject({ es: 2, ef: 4, ls: 2, lf: 4, slack: 0, critical: true })
    expect(r.critical_path).toEqual(['A', 'B'])
  })

  test('SF: B(2) cannot finish before A(3) starts', () => {
    const r = criticalPath([
      { id: 'A', te: 3, deps: [] },
      { id: 'B', te: 2, deps: [{ on: 'A', type: 'SF' }] },
    ])
    expect(r.duration).toBe(3)
    expect(row(r, 'B')).toMatchObject({ es: 0, ef: 2, lf: 3, ls: 1, slack: 1, critical: false })
    expect(row(r, 'A')).toMatchObject({ es: 0, lf: 3, slack: 0, critical: true })
  })

  test('parallel chains: the longer one is critical, the other has the difference as slack', () => {
    const r = criticalPath([
      { id: 'X1', te: 2, deps: [] },
      { id: 'X2', te: 3, deps: [{ on: 'X1', type: 'FS' }] },
      { id: 'Y1', te: 1, deps: [] },
      { id: 'Y2', te: 1, deps: [{ on: 'Y1', type: 'FS' }] },
    ])
    expect(r.duration).toBe(5)
    expect(r.critical_path).toEqual(['X1', 'X2'])
    expect(row(r, 'Y1')?.slack).toBe(3)
    expect(row(r, 'Y2')?.slack).toBe(3)
  })

  test('an unsized task makes the duration null and never invents values', () => {
    const r = criticalPath([
      { id: 'A', te: 2, deps: [] },
      { id: 'B', te: null, deps: [{ on: 'A', type: 'FS' }] },
      { id: 'C', te: 1, deps: [{ on: 'B', type: 'FS' }] },
    ])
    expect(r.duration).toBeNull()
    expect(r.unsized).toEqual(['B'])
    expect(row(r, 'A')).toMatchObject({ es: 0, ef: 2, ls: null, slack: null, critical: false })
    expect(row(r, 'C')).toMatchObject({ es: null, ef: null })
    expect(r.critical_path).toEqual([])
  })

  test('a cycle is an error naming it', () => {
    const tasks: CpmTask[] = [
      { id: 'A', te: 1, deps: [{ on: 'C', type: 'FS' }] },
      { id: 'B', te: 1, deps: [{ on: 'A', type: 'FS' }] },
      { id: 'C', te: 1, deps: [{ on: 'B', type: 'FS' }] },
    ]
    const err = (() => {
      try {
        criticalPath(tasks)
      } catch (e) {
        return e
      }
    })() as CycleError
    expect(err).toBeInstanceOf(CycleError)
    expect(err.cycle).toEqual(['A', 'C', 'B', 'A'])
  })
})

type WithDeps = FrontierTask & { deps: Dep[] }
const frontier = (
  scope: WithDeps[],
  statusOf: (id: string) => FrontierTask['status'] | null,
  slack: Map<string, number> | null,
  limit: number,
) => frontierOf(scope, (x) => x.deps, statusOf, slack, limit)

describe('the ready frontier', () => {
  const t = (
    id: string,
    seq: number,
    priority: FrontierTask['priority'],
    deps: Dep[] = [],
    status: FrontierTask['status'] = 'open',
  ): WithDeps => ({
    id,
    project: 'p',
    seq,
    status,
    priority,
    deps,
  })
  const statuses = new Map<string, FrontierTask['status']>([
    ['done1', 'done'],
    ['open9', 'open'],
  ])
  const statusOf = (id: string) => statuses.get(id) ?? null

  test('MoSCoW first; never a could while a must is ready; wont never; then sequence', () => {
    const f = frontier(
      [
        t('c', 1, 'could'),
        t('s', 2, 'should'),
        t('m2', 4, 'must'),
        t('m1', 3, 'must'),
        t('w', 5, 'wont'),
        t('n', 6, null),
      ],
      statusOf,
      null,
      10,
    )
    expect(f.ready.map((x) => x.id)).toEqual(['m1', 'm2', 's', 'n'])
    const noMust = frontier([t('c', 1, 'could'), t('s', 2, 'should')], statusOf, null, 10)
    expect(noMust.ready.map((x) => x.id)).toEqual(['s', 'c'])
  })

  test('slack breaks ties within a priority when known; --parallel limits', () => {
    const slack = new Map([
      ['a', 5],
      ['b', 0],
      ['c', 2],
    ])
    const f = frontier([t('a', 1, 'must'), t('b', 2, 'must'), t('c', 3, 'must')], statusOf, slack, 2)
    expect(f.ready.map((x) => x.id)).toEqual(['b', 'c'])
  })

  test('readiness per link type: FS needs done, SS needs started, FF/SF never hold a start; empty frontiers are explained', () => {
    const st = new Map<string, FrontierTask['status']>([
      ['done1', 'done'],
      ['open9', 'open'],
      ['act7', 'active'],
      ['blk5', 'blocked'],
    ])
    const f = frontier(
      [
        t('x', 1, 'must', [{ on: 'done1', type: 'FS' }]),
        t('y', 2, 'must', [{ on: 'open9', type: 'FS' }]),
        t('z', 3, 'must', [{ on: 'open9', type: 'SS' }]),
        t('s', 4, 'must', [{ on: 'act7', type: 'SS' }]),
        t('f', 5, 'must', [{ on: 'open9', type: 'FF' }]),
        t('g', 6, 'must', [{ on: 'blk5', type: 'SF' }]),
        t('h', 7, 'must', [{ on: 'blk5', type: 'SS' }]),
        t('u', 8, 'must', [{ on: 'nowhere', type: 'FS' }]),
        t('w', 9, 'must', [{ on: 'act7', type: 'FS' }]),
      ],
      (id) => st.get(id) ?? null,
      null,
      10,
    )
    expect(f.ready.map((x) => x.id)).toEqual(['x', 's', 'f', 'g'])
    expect(f.waiting.map((w) => [w.id, f.holdsOf(w).map((h) => `${h.type}:${h.status}:${h.needs}`)])).toEqual([
      ['y', ['FS:open:done']],
      ['z', ['SS:open:started']],
      ['h', ['SS:blocked:started']],
      ['u', ['FS:null:done']],
      ['w', ['FS:active:done']],
    ])
    const none = frontier(
      [t('y', 2, 'must', [{ on: 'open9', type: 'FS' }]), t('b', 3, 'must', [], 'blocked')],
      statusOf,
      null,
      3,
    )
    expect(none.explanation).toBe(
      'nothing is ready: 1 open task waits on dependencies (FS: not done, SS: not started), 1 blocked',
    )
    expect(frontier([t('d', 1, 'must', [], 'done')], statusOf, null, 3).explanation).toBe('everything is done')
  })
})

test('startHeld is readiness without the holds: any links, any predecessor states', () => {
  const link = fc.record({
    on: fc.constantFrom('a', 'b', 'c', 'gone'),
    type: fc.constantFrom('FS', 'SS', 'FF', 'SF', 'XX'),
  })
  const state = fc.constantFrom<TaskState | null>('open', 'active', 'blocked', 'done', null)
  fc.assert(
    fc.property(fc.array(link, { maxLength: 5 }), fc.tuple(state, state, state), (deps, [a, b, c]) => {
      const states = new Map<string, TaskState | null>([
        ['a', a],
        ['b', b],
        ['c', c],
      ])
      const statusOf = (id: string) => states.get(id) ?? null
      expect(startHeld(deps, statusOf)).toBe(
        readiness({ status: 'open', priority: null }, deps, statusOf).holds.length > 0,
      )
    }),
  )
})

describe('brief trimming', () => {
  const sections = [
    { title: 'Task', content: 'T'.repeat(200) },
    { title: 'Why', content: 'W'.repeat(200) },
    { title: 'Risks', content: 'R'.repeat(400) },
  ]
  test('unlimited keeps everything', () => {
    const r = fitBrief('# Brief', sections, null)
    expect(r.omitted).toEqual([])
    expect(r.kept.map((k) => k.title)).toEqual(['Task', 'Why', 'Risks'])
    expect(r.estimated_tokens).toBe(tokensOf(r.markdown))
  })
  test.each([
    [400, ['Task', 'Why', 'Risks'], []],
    [200, ['Task', 'Why'], ['Risks']],
    [120, ['Task'], ['Why', 'Risks']],
  ])('budget %i keeps %j', (budget, kept, omitted) => {
    const r = fitBrief('# Brief', sections, budget)
    expect(r.kept.map((k) => k.title)).toEqual(kept)
    expect(r.omitted.map((o) => o.section)).toEqual(omitted)
    expect(r.estimated_tokens).toBeLessThanOrEqual(budget)
    for (const o of omitted) expect(r.markdown).toContain(`- ${o}: left out`)
  })
  test('a budget below the task section alone is an error stating the minimum', () => {
    expect(() => fitBrief('# Brief', sections, 20)).toThrow(BudgetError)
    try {
      fitBrief('# Brief', sections, 20)
    } catch (e) {
      expect((e as BudgetError).minimum).toBeGreaterThan(50)
    }
  })
})

describe('brief budget: every character of the returned markdown counts', () => {
  const section = fc.record({
    title: fc.constantFrom('Task', 'Why', 'Out of scope', 'Constraints', 'Risks', 'Glossary', 'Dependencies'),
    content: fc.string({ maxLength: 900 }),
  })
  const fits = (header: string, sections: BriefSection[], budget: number) => {
    try {
      return fitBrief(header, sections, budget)
    } catch (e) {
      if (e instanceof BudgetError) return e
      throw e
    }
  }
  test('fits within the budget, drops only from the bottom, or names a minimum that fits and is the least', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        fc.array(section, { minLength: 1, maxLength: 9 }),
        fc.integer({ min: 1, max: 3000 }),
        (header, sections, budget) => {
          const r = fits(header, sections, budget)
          if (r instanceof BudgetError) {
            expect(r.minimum).toBeGreaterThan(budget)
            const at = fits(header, sections, r.minimum)
            expect(at).not.toBeInstanceOf(BudgetError)
            expect((at as Trimmed).estimated_tokens).toBeLessThanOrEqual(r.minimum)
            expect(fits(header, sections, r.minimum - 1)).toBeInstanceOf(BudgetError)
            return
          }
          expect(r.estimated_tokens).toBeLessThanOrEqual(budget)
          expect(r.estimated_tokens).toBe(tokensOf(r.markdown))
          expect(r.kept.length).toBeGreaterThanOrEqual(1)
          expect([...r.kept.map((k) => k.title), ...r.omitted.map((o) => o.section)]).toEqual(
            sections.map((s) => s.title),
          )
          for (const o of r.omitted) expect(r.markdown).toContain(`- ${o.section}: left out`)
          // A budget that holds the brief holds it at every larger budget, however many digits it gains.
          expect(fits(header, sections, budget + 1)).not.toBeInstanceOf(BudgetError)
        },
      ),
      { numRuns: 2000 },
    )
  })
  test('a budget just past a power of ten, with many sections omitted, still fits', () => {
    const many = Array.from({ length: 9 }, (_, i) => ({ title: `S${i}`, content: 'x'.repeat(i === 0 ? 3664 : 400) }))
    const m = (() => {
      try {
        fitBrief('# Brief', many, 1)
      } catch (e) {
        return (e as BudgetError).minimum
      }
      throw new Error('expected a BudgetError')
    })()
    expect(m).toBeLessThan(1000)
    for (let b = m; b <= m + 1200; b++) expect(fitBrief('# Brief', many, b).estimated_tokens).toBeLessThanOrEqual(b)
  })
})

describe('lint rules', () => {
  test('ambiguous wording, missing criteria, decisions and risks', () => {
    expect(ambiguousTerms('Load properly and fast, etc.')).toEqual(['properly', 'etc', 'fast'])
    expect(ambiguousTerms('Responds within 200 ms at p99')).toEqual([])
    expect(
      lintTask({ ref: 'p/1', title: 'Make it user-friendly', status: 'open', criteria: [] }).map((f) => f.code),
    ).toEqual(['no-acceptance-criteria', 'ambiguous-title'])
    expect(lintTask({ ref: 'p/1', title: 'x', status: 'open', criteria: ['works as needed'] })[0]?.message).toMatch(
      /criterion 1/,
    )
    expect(lintTask({ ref: 'p/1', title: 'properly', status: 'done', criteria: [] })).toEqual([])
    expect(lintDecision({ subject: 'd', rejected: null })[0]?.code).toBe('decision-without-rejected')
    expect(lintRisk({ subject: 'r', rank: 1, action: null })[0]?.code).toBe('unmanaged-risk')
    expect(lintRisk({ subject: 'r', rank: 3, action: null })).toEqual([])
  })
})

test('ambiguous terms: the one-pass pattern finds exactly what a search for each term finds', () => {
  const noise = ['Fast', 'faster', 'as', 'needed', 'and', 'or', 'user', 'friendly', 'ETC.', 'x/y', '—', '(', ')', ',']
  // The definition, term by term: whole words, case-insensitive, punctuation other than / and - dropped.
  const naive = (text: string) => {
    const t = ` ${text.toLowerCase().replace(/[^\p{L}\p{N}/-]+/gu, ' ')} `
    return AMBIGUOUS.filter((w) => t.includes(` ${w.replace(/[^\p{L}\p{N}/ -]+/gu, '')} `))
  }
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...AMBIGUOUS, ...noise), { maxLength: 12 }),
      fc.constantFrom(' ', ', ', '  '),
      (ws, sep) => {
        const text = ws.join(sep)
        expect(ambiguousTerms(text)).toEqual(naive(text))
      },
    ),
    { numRuns: 3000 },
  )
})

describe('similarity', () => {
  // Titles that differ in what they name are different tasks: exit 3 means "never retry unchanged", so a guard
  // that fires on them teaches agents to pass --force always.
  const distinct: [string, string][] = [
    ['Add modulo function', 'Add power function'],
    ['Fix bug in lexer', 'Fix bug in parser'],
    ['Write docs for logout', 'Write docs for login'],
    ['Support CSV export', 'Support JSON export'],
    ['Add user login page', 'Add user signup page'],
    ['Refactor parser error handling', 'Refactor lexer error handling'],
    ['Ledger export', 'Ledger import'],
    ['Migrate the users table', 'Migrate the orders table'],
  ]
  // The same task typed again: reordered, re-cased, re-punctuated, pluralised, or with a word added.
  const twins: [string, string][] = [
    ['Add power function', 'function: add power'],
    ['Add power function', 'Add power functions'],
    ['Fix bug in lexer', 'fix BUG in the lexer!!'],
    ['Write docs for login', 'Write docs for login page'],
    ['Fix the parser crash', 'Parser crash — fix'],
    ['Update dependencies', 'update dependency'],
    ['Add the ledger write shim', 'ledger write shim'],
    ['Cache query results', 'Cache queries results'],
  ]
  test.each(distinct)('"%s" and "%s" are different tasks', (a, b) => {
    expect(isNearDuplicate(a, b)).toBe(false)
    expect(isNearDuplicate(b, a)).toBe(false)
  })
  test.each(twins)('"%s" and "%s" are near-duplicates', (a, b) => {
    expect(isNearDuplicate(a, b)).toBe(true)
    expect(isNearDuplicate(b, a)).toBe(true)
  })
  test('tokens: plurals reduced conservatively; at least two shared tokens', () => {
    expect([...tokens('Classes, queries, boxes and bus status')]).toEqual(['class', 'query', 'box', 'bus', 'status'])
    expect(isNearDuplicate('Deploy', 'deploy')).toBe(false)
    expect(similarity('a b', 'c d').jaccard).toBe(0)
  })
})
