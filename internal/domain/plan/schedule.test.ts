// The schedule and the frontier over random DAGs with all four link types: `next`
// (the frontier) must never offer a task the CPM schedule says cannot start yet,
// and the schedule must keep what it can compute when parts are unsized.

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { type CpmTask, criticalPath, type LinkType } from './cpm.js'
import { frontier } from './frontier.js'
import { readiness } from './readiness.js'
import { type PlanTask, type Schedule, schedule } from './schedule.js'

const STATES = ['open', 'active', 'blocked', 'done'] as const
const TYPES = ['FS', 'SS', 'FF', 'SF'] as const
const PRIORITIES = ['must', 'should', 'could', 'wont', null] as const

/** A random acyclic plan: task i may depend only on tasks before it. */
const plans = fc
  .array(
    fc.record({
      project: fc.constantFrom('p', 'q'),
      status: fc.constantFrom(...STATES),
      priority: fc.constantFrom(...PRIORITIES),
      te: fc.oneof(
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 6, arbitrary: fc.integer({ min: 0, max: 9 }) },
      ),
      deps: fc.array(fc.record({ back: fc.nat(), type: fc.constantFrom(...TYPES) }), { maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 12 },
  )
  .map((raw) =>
    raw.map(
      (r, i): PlanTask => ({
        id: `t${String(i).padStart(2, '0')}`,
        project: r.project,
        status: r.status,
        priority: r.priority,
        te: r.te,
        deps:
          i === 0
            ? []
            : [...new Map(r.deps.map((d) => [`t${String(d.back % i).padStart(2, '0')}`, d.type])).entries()].map(
                ([on, type]) => ({ on, type }),
              ),
      }),
    ),
  )

const ready = (tasks: readonly PlanTask[], project: string | null) => {
  const byId = new Map(tasks.map((t) => [t.id, t]))
  const scope = tasks
    .filter((t) => project === null || t.project === project)
    .map((t, i) => ({ ...t, seq: i + 1, priority: t.priority as 'must' | null }))
  return frontier(
    scope,
    (t) => t.deps,
    (id) => byId.get(id)?.status ?? null,
    null,
    1000,
  )
}

/** The schedule with only the links that constrain a start (FS, SS): what "may it start now" is in CPM terms. */
const startSchedule = (tasks: readonly PlanTask[], project: string | null) =>
  schedule(
    tasks.map((t) => ({ ...t, deps: t.deps.filter((d) => d.type === 'FS' || d.type === 'SS') })),
    project,
  )

describe('next against the CPM schedule (property tests over random DAGs, FS/SS/FF/SF)', () => {
  test('next never offers a task CPM says cannot start yet', () => {
    fc.assert(
      fc.property(plans, fc.constantFrom('p', null), (tasks, project) => {
        const f = ready(tasks, project)
        const full = schedule(tasks, project)
        const start = startSchedule(tasks, project)
        const row = (s: typeof full, id: string) => s.rows.find((r) => r.id === id)
        for (const t of f.ready) {
          // In the plan, and its start-constraining links leave it an early start of now.
          expect(row(full, t.id)?.status).toBe('open')
          expect(row(start, t.id)?.es).toBe(0)
          // No FS predecessor still in the plan; every SS predecessor in the plan has started.
          for (const l of full.links.filter((x) => x.to === t.id)) {
            if (l.type === 'FS') throw new Error(`${t.id} offered with FS predecessor ${l.from} unfinished`)
            if (l.type === 'SS') expect(row(full, l.from)?.status).toBe('active')
          }
        }
      }),
      { numRuns: 400 },
    )
  })

  test('FF and SF never hold a start; FS holds until done, SS until started', () => {
    fc.assert(
      fc.property(plans, (tasks) => {
        const f = ready(tasks, null)
        const offered = new Set(f.ready.map((t) => t.id))
        const byId = new Map(tasks.map((t) => [t.id, t]))
        const held = (t: PlanTask) =>
          t.deps.some((d) => {
            const p = byId.get(d.on)?.status
            return d.type === 'FS' ? p !== 'done' : d.type === 'SS' ? p !== 'active' && p !== 'done' : false
          })
        const startable = tasks.filter((t) => t.status === 'open' && t.priority !== 'wont' && !held(t))
        const anyMust = startable.some((t) => t.priority === 'must')
        for (const t of tasks) {
          // Startable ones are all offered, except a could while a must is ready.
          expect(offered.has(t.id)).toBe(startable.includes(t) && !(anyMust && t.priority === 'could'))
        }
      }),
      { numRuns: 400 },
    )
  })

  test('the CPM numbers are consistent wherever they are known; wont is excluded, blocked is kept', () => {
    fc.assert(
      fc.property(plans, fc.constantFrom('p', null), (tasks, project) => {
        const s = schedule(tasks, project)
        const row = new Map(s.rows.map((r) => [r.id, r]))
        for (const t of tasks) {
          const inScope = project === null || t.project === project
          if (t.priority === 'wont' || t.status === 'done') expect(row.has(t.id)).toBe(false)
          else if (inScope) expect(row.has(t.id)).toBe(true)
          if (inScope && t.priority === 'wont' && t.status !== 'done')
            expect(s.excluded.map((x) => x.id)).toContain(t.id)
        }
        for (const r of s.rows) {
          if (r.status === 'active') {
            // Started: it starts now; FF/SF may stretch its finish, never delay its start.
            expect(r.es).toBe(0)
            if (r.ef !== null && r.te !== null) expect(r.ef).toBeGreaterThanOrEqual(r.te - 1e-6)
            continue
          }
          if (r.es !== null && r.te !== null) expect(r.ef).toBeCloseTo(r.es + r.te, 6)
          if (r.lf !== null && r.te !== null) expect(r.ls).toBeCloseTo(r.lf - r.te, 6)
          if (r.slack !== null) expect(r.slack).toBeGreaterThanOrEqual(0)
          if (r.critical) expect(r.slack).toBe(0)
          if (r.lf !== null && s.duration_lower_bound !== null)
            expect(r.lf).toBeLessThanOrEqual(s.duration_lower_bound + 1e-6)
        }
        for (const l of s.links) {
          const p = row.get(l.from)
          const q = row.get(l.to)
          if (!p || !q) throw new Error('a link outside the schedule')
          const [a, b] =
            l.type === 'FS'
              ? [p.ef, q.es]
              : l.type === 'SS'
                ? [p.es, q.es]
                : l.type === 'FF'
                  ? [p.ef, q.ef]
                  : [p.es, q.ef]
          if (a !== null && b !== null) expect(b).toBeGreaterThanOrEqual(a - 1e-6)
        }
        if (s.unsized.length === 0) expect(s.duration).toBe(s.duration_lower_bound)
      }),
      { numRuns: 400 },
    )
  })

  test('an unsized task leaves everything not linked to it fully scheduled', () => {
    fc.assert(
      fc.property(plans, (tasks) => {
        const s = schedule(tasks, null)
        const unsized = new Set(s.unsized)
        // Everything connected (either way) to an unsized task through the schedule's links.
        const touched = new Set(unsized)
        for (let changed = true; changed; ) {
          changed = false
          for (const l of s.links) {
            if (touched.has(l.from) !== touched.has(l.to)) {
              touched.add(l.from)
              touched.add(l.to)
              changed = true
            }
          }
        }
        for (const r of s.rows) {
          if (touched.has(r.id)) continue
          expect([r.es, r.ef, r.ls, r.lf, r.slack]).not.toContain(null)
        }
      }),
      { numRuns: 300 },
    )
  })

  test('critical_path is a chain only when the critical tasks form one path', () => {
    fc.assert(
      fc.property(plans, (tasks) => {
        const s = schedule(tasks, null)
        if (s.critical_path.length === 0) return
        expect(s.critical_path.length).toBe(s.critical.length)
        const after = new Map(s.critical.map((c) => [c.id, c.after.map((a) => a.id)]))
        s.critical_path.forEach((id, i) => {
          expect(after.get(id)).toEqual(i === 0 ? [] : [s.critical_path[i - 1]])
        })
      }),
      { numRuns: 300 },
    )
  })
})

/**
 * The schedule as its header states it, composed the plain way: the plan as a map, one CPM input object per task,
 * criticalPath over them, and a row per CPM row. schedule() works the same out on task positions without those
 * objects; the two must agree byte for byte (key order included).
 */
function reference(all: readonly PlanTask[], project: string | null): Schedule {
  const link = (type: string): LinkType => (type === 'SS' || type === 'FF' || type === 'SF' ? type : 'FS')
  const planned = (t: PlanTask) => t.status !== 'done' && t.priority !== 'wont'
  const byId = new Map(all.map((t) => [t.id, t]))
  const own = all.filter((t) => (project === null || t.project === project) && t.status !== 'done')
  const inPlan = new Map(own.filter(planned).map((t) => [t.id, t]))
  const stack = [...inPlan.values()]
  while (stack.length > 0) {
    for (const d of (stack.pop() as PlanTask).deps) {
      const p = byId.get(d.on)
      if (p === undefined || inPlan.has(p.id) || !planned(p)) continue
      inPlan.set(p.id, p)
      stack.push(p)
    }
  }
  const input: CpmTask[] = [...inPlan.values()].map((t) => ({
    id: t.id,
    te: t.te,
    started: t.status === 'active',
    deps: t.deps
      .filter((d) => inPlan.has(d.on) && (t.status !== 'active' || link(d.type) === 'FF' || link(d.type) === 'SF'))
      .map((d) => ({ on: d.on, type: link(d.type) })),
  }))
  const isOwn = (id: string) => project === null || byId.get(id)?.project === project
  const cpm = criticalPath(input, { measured: isOwn })
  const rows = cpm.rows.map((r) => {
    const t = byId.get(r.id) as PlanTask
    return { ...r, project: t.project, status: t.status, external: !isOwn(r.id) }
  })
  const excluded = own
    .filter((t) => t.priority === 'wont')
    .map((t) => ({
      id: t.id,
      reason: 'wont' as const,
      dependents: [...inPlan.values()].filter((x) => x.deps.some((d) => d.on === t.id)).map((x) => x.id),
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return {
    ...cpm,
    rows,
    scope: project === null ? 'workspace' : 'project',
    excluded,
    links: input.flatMap((t) => t.deps.map((d) => ({ from: d.on, to: t.id, type: d.type }))),
  }
}

test('the schedule is CPM over the plan it states: the same document as the plain composition', () => {
  // Any order of the tasks (roots are taken in id order, not input order), links to ids nowhere in the plan, a
  // task's two links to one predecessor.
  const mixed = plans.chain((tasks) =>
    fc
      .shuffledSubarray(
        tasks.map((t, i) => ({
          ...t,
          deps: i % 4 === 3 ? [...t.deps, { on: 'gone', type: 'FS' }, ...t.deps.slice(0, 1)] : t.deps,
        })),
        { minLength: tasks.length, maxLength: tasks.length },
      )
      .map((x) => x),
  )
  fc.assert(
    fc.property(mixed, fc.constantFrom('p', 'q', null), (tasks, project) => {
      expect(JSON.stringify(schedule(tasks, project))).toBe(JSON.stringify(reference(tasks, project)))
    }),
    { numRuns: 1000 },
  )
})

describe('the schedule (hand-made cases)', () => {
  const task = (
    id: string,
    te: number | null,
    deps: [string, string][] = [],
    more: Partial<PlanTask> = {},
  ): PlanTask => ({
    id,
    project: 'p',
    status: 'open',
    priority: 'must',
    te,
    deps: deps.map(([on, type]) => ({ on, type })),
    ...more,
  })

  test('parallel critical tasks stay parallel: a DAG, not a chain', () => {
    const s = schedule(
      [
        task('alpha', 1),
        task('bravo', 2, [['alpha', 'FS']]),
        task('charlie', 2, [['alpha', 'FS']]),
        task('delta', 1, [
          ['bravo', 'FS'],
          ['charlie', 'FS'],
        ]),
      ],
      'p',
    )
    expect(s.duration).toBe(4)
    expect(s.critical_path).toEqual([])
    expect(s.critical).toEqual([
      { id: 'alpha', after: [] },
      { id: 'bravo', after: [{ id: 'alpha', type: 'FS' }] },
      { id: 'charlie', after: [{ id: 'alpha', type: 'FS' }] },
      {
        id: 'delta',
        after: [
          { id: 'bravo', type: 'FS' },
          { id: 'charlie', type: 'FS' },
        ],
      },
    ])
  })

  test('one path stays a chain', () => {
    const s = schedule([task('a', 1), task('b', 2, [['a', 'FS']]), task('c', 1, [['a', 'FS']])], 'p')
    expect(s.critical_path).toEqual(['a', 'b'])
  })

  test('a wont task is out of the plan and listed with what depends on it', () => {
    const s = schedule([task('a', 1), task('w', 20, [], { priority: 'wont' }), task('b', 2, [['w', 'FS']])], 'p')
    expect(s.duration).toBe(2)
    expect(s.rows.map((r) => r.id).sort()).toEqual(['a', 'b'])
    expect(s.excluded).toEqual([{ id: 'w', reason: 'wont', dependents: ['b'] }])
  })

  test('a blocked task keeps its place; an active one has started', () => {
    const s = schedule(
      [
        task('x', 3, [], { status: 'blocked' }),
        task('y', 2, [['x', 'FS']]),
        task('z', 4, [['y', 'FS']], { status: 'active' }),
      ],
      'p',
    )
    const row = (id: string) => s.rows.find((r) => r.id === id)
    expect(row('x')).toMatchObject({ status: 'blocked', es: 0, ef: 3, critical: true })
    expect(row('y')).toMatchObject({ es: 3, ef: 5 })
    expect(row('z')).toMatchObject({ status: 'active', es: 0, ef: 4, slack: 1 })
    expect(s.duration).toBe(5)
  })

  test('an active task starts now even when FF pushes its finish; its SS successor may start now too', () => {
    const s = schedule(
      [
        task('long', 6),
        task('act', 2, [['long', 'FF']], { status: 'active' }),
        task('pair', 1, [['act', 'SS']]),
        task('after', 1, [['act', 'FS']]),
      ],
      'p',
    )
    const row = (id: string) => s.rows.find((r) => r.id === id)
    expect(row('act')).toMatchObject({ es: 0, ef: 6, ls: 0, lf: 6, slack: 0, critical: true })
    expect(row('pair')).toMatchObject({ es: 0, ef: 1 })
    expect(row('after')).toMatchObject({ es: 6, ef: 7, critical: true })
    expect(s.duration).toBe(7)
  })

  test('an unsized task erases only what depends on its duration', () => {
    const s = schedule(
      [
        task('a', 2),
        task('u', null, [['a', 'FS']]),
        task('after', 1, [['u', 'FS']]),
        task('ff', 1, [['a', 'FF']]),
        task('free', 5),
      ],
      null,
    )
    const row = (id: string) => s.rows.find((r) => r.id === id)
    expect(s.duration).toBeNull()
    expect(s.duration_lower_bound).toBe(5)
    expect(s.unsized).toEqual(['u'])
    expect(row('u')).toMatchObject({ es: 2, ef: null, ls: null, lf: 4 })
    expect(row('after')).toMatchObject({ es: null, ef: null, ls: 4, lf: 5 })
    expect(row('a')).toMatchObject({ es: 0, ef: 2, ls: null, lf: null, slack: null })
    expect(row('free')).toMatchObject({ es: 0, ef: 5, ls: 0, lf: 5, slack: 0, critical: true })
    expect(row('ff')).toMatchObject({ es: 1, ef: 2, ls: 4, lf: 5, slack: 3 })
  })

  test("a project's schedule waits on other projects' tasks without counting them in its duration", () => {
    const s = schedule(
      [
        task('q1', 5, [], { project: 'q' }),
        task('q2', 1, [], { project: 'q' }),
        task('p1', 2, [['q1', 'FS']]),
        task('p2', 1),
      ],
      'p',
    )
    const row = (id: string) => s.rows.find((r) => r.id === id)
    expect(row('q1')).toMatchObject({ external: true, project: 'q', es: 0, ef: 5, critical: true })
    expect(row('q2')).toBeUndefined()
    expect(row('p1')).toMatchObject({ external: false, es: 5, ef: 7, critical: true })
    expect(row('p2')).toMatchObject({ es: 0, slack: 6 })
    expect(s.duration).toBe(7)
  })

  test('readiness names every hold whatever the task state', () => {
    const r = readiness({ status: 'active', priority: 'must' }, [{ on: 'a', type: 'FS' }], () => 'open')
    expect(r).toEqual({
      ready: false,
      reason: 'active',
      holds: [{ on: 'a', type: 'FS', status: 'open', needs: 'done' }],
    })
  })

  test('criticalPath measures only the tasks it is told to', () => {
    const r = criticalPath(
      [
        { id: 'x', te: 9, deps: [] },
        { id: 'y', te: 1, deps: [{ on: 'x', type: 'SS' }] },
      ],
      { measured: (id) => id === 'y' },
    )
    expect(r.duration).toBe(1)
  })
})
