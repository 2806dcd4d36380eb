// The schedule as a planner sees it through the CLI (issue 14, items 1–5), and
// `next` against `critical-path` on real workspaces built from random DAGs.

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { type Workspace, workspace } from '../../testkit/ws.js'

const doc = async (ws: Workspace, ...a: string[]) => {
  const r = (await ws.dacli(...a, '--json')).expectExit(0)
  expectValid(r.json)
  return r.json
}
type Row = { ref: string; es: number | null; status: string; critical: boolean }
const rowsByShortRef = (c: { tasks: Row[] }) =>
  Object.fromEntries(c.tasks.map((t) => [t.ref.replace(/^([^/]+\/\d+)-.*/, '$1'), t]))

describe('critical-path', () => {
  test('1. critical tasks that run in parallel are reported as a DAG, not a chain', async () => {
    const ws = await workspace()
    await ws.ok('project', 'add', 'Calc', '--slug', 'calc')
    await ws.ok('task', 'add', 'Alpha', '--project', 'calc', '--estimate', '1,1,1')
    await ws.ok('task', 'add', 'Bravo', '--project', 'calc', '--estimate', '2,2,2', '--depends-on', '1')
    await ws.ok('task', 'add', 'Charlie', '--project', 'calc', '--estimate', '2,2,2', '--depends-on', '1')
    await ws.ok(
      'task',
      'add',
      'Delta',
      '--project',
      'calc',
      '--estimate',
      '1,1,1',
      '--depends-on',
      '2',
      '--depends-on',
      '3',
    )
    const c = await doc(ws, 'critical-path', '--project', 'calc')
    expect(c.duration).toBe(4)
    expect(c.critical_path).toEqual([])
    const graph = c.critical_graph.map((n: { ref: string; after: { ref: string }[] }) => [
      n.ref,
      n.after.map((a) => a.ref),
    ])
    expect(graph).toEqual([
      ['calc/001-alpha', []],
      ['calc/002-bravo', ['calc/001-alpha']],
      ['calc/003-charlie', ['calc/001-alpha']],
      ['calc/004-delta', ['calc/002-bravo', 'calc/003-charlie']],
    ])
    const human = (await ws.dacli('critical-path', '--project', 'calc')).expectExit(0).stdout
    expect(human).not.toMatch(/bravo → .*charlie/)
    expect(human).toMatch(/critical path: calc\/1 → calc\/2 ‖ calc\/3 → calc\/4/)
    expect(human).toMatch(/calc\/4\s+3\.0\s+after calc\/2 \+ calc\/3/)
    // One path is still drawn as a chain.
    await ws.ok('task', 'edit', '3', '--estimate', '1,1,1')
    const one = await doc(ws, 'critical-path', '--project', 'calc')
    expect(one.critical_path.length).toBe(3)
    expect((await ws.dacli('critical-path', '--project', 'calc')).stdout).toMatch(
      /critical path: calc\/1 → calc\/2 → calc\/4/,
    )
  })

  test('2. a wont task is out of the plan and listed as excluded', async () => {
    const ws = await workspace()
    await ws.ok('project', 'add', 'Calc', '--slug', 'calc')
    await ws.ok('task', 'add', 'Parse input', '--project', 'calc', '--estimate', '1,2,3')
    await ws.ok('task', 'add', 'Port to COBOL', '--project', 'calc', '--priority', 'wont', '--estimate', '20,20,20')
    const c = await doc(ws, 'critical-path', '--project', 'calc')
    expect(c.duration).toBe(2)
    expect(c.tasks.map((t: Row) => t.ref)).toEqual(['calc/001-parse-input'])
    expect(c.critical_path).toEqual([c.tasks[0].id])
    expect(c.excluded).toEqual([
      { id: expect.any(String), ref: 'calc/002-port-to-cobol', title: 'Port to COBOL', reason: 'wont', dependents: [] },
    ])
    expect((await ws.dacli('critical-path', '--project', 'calc')).stdout).toMatch(/excluded \(wont\): calc\/2/)
  })

  test('4. a blocked task stays in the schedule, marked, holding its dependents', async () => {
    const ws = await workspace()
    await ws.ok('project', 'add', 'Calc', '--slug', 'calc')
    await ws.ok('task', 'add', 'Lexer', '--project', 'calc', '--estimate', '3,3,3')
    await ws.ok('task', 'add', 'Parser', '--project', 'calc', '--estimate', '2,2,2', '--depends-on', '1')
    await ws.ok('task', 'block', '1', '--why', 'waiting for the grammar')
    const c = await doc(ws, 'critical-path', '--project', 'calc')
    const r = rowsByShortRef(c)
    expect(r['calc/001']).toMatchObject({ status: 'blocked', es: 0, critical: true })
    expect(r['calc/002']).toMatchObject({ status: 'open', es: 3, critical: true })
    expect(c.duration).toBe(5)
    expect((await ws.dacli('critical-path', '--project', 'calc')).stdout).toMatch(/Lexer\s+\[blocked\]/)
  })

  test('5. an unsized task leaves the rest scheduled; the workspace view is not a project; cross-project links count', async () => {
    const ws = await workspace()
    await ws.ok('project', 'add', 'Calc', '--slug', 'calc')
    await ws.ok('project', 'add', 'Docs', '--slug', 'docs')
    await ws.ok('task', 'add', 'Lexer', '--project', 'calc', '--estimate', '3,3,3')
    await ws.ok('task', 'add', 'Parser', '--project', 'calc', '--estimate', '2,2,2', '--depends-on', '1')
    await ws.ok('task', 'add', 'Sketch the manual', '--project', 'docs')
    await ws.ok(
      'task',
      'add',
      'Document the parser',
      '--project',
      'docs',
      '--estimate',
      '1,1,1',
      '--depends-on',
      'calc/2',
    )
    const all = await doc(ws, 'critical-path')
    expect(all).toMatchObject({ scope: 'workspace', project: null, duration: null, duration_lower_bound: 6 })
    expect(all.unsized).toEqual(['docs/001-sketch-the-manual'])
    const r = rowsByShortRef(all)
    expect(r['calc/001']).toMatchObject({ es: 0, ls: 0, slack: 0, critical: true })
    expect(r['calc/002']).toMatchObject({ es: 3, ls: 3, slack: 0 })
    expect(r['docs/002']).toMatchObject({ es: 5, ef: 6, ls: 5, lf: 6 })
    const human = (await ws.dacli('critical-path')).stdout
    expect(human).toMatch(/^workspace \(every project\) — duration: unknown, 1 unsized task; at least 6\.0/)
    expect(human).not.toMatch(/^project/m)
    // The per-project view keeps the other project's predecessors.
    const d = await doc(ws, 'critical-path', '--project', 'docs')
    expect(d.scope).toBe('project')
    const dr = rowsByShortRef(d)
    expect(dr['docs/002']).toMatchObject({ es: 5, external: false })
    expect(dr['calc/002']).toMatchObject({ external: true, project: 'calc', es: 3 })
    expect(dr['calc/001']).toMatchObject({ external: true })
    expect((await ws.dacli('critical-path', '--project', 'docs')).stdout).toMatch(/Parser\s+\[other project\]/)
  })
})

describe('next, overview and context agree on readiness (FS done, SS started, FF/SF never hold)', () => {
  test('3. SS on unstarted tasks is not ready; FF on an unfinished task is', async () => {
    const ws = await workspace()
    await ws.ok('project', 'add', 'Calc', '--slug', 'calc')
    await ws.ok('task', 'add', 'Lexer', '--project', 'calc', '--priority', 'must', '--estimate', '1,2,3')
    await ws.ok('task', 'add', 'Grammar', '--project', 'calc', '--priority', 'must', '--estimate', '1,2,3')
    await ws.ok(
      'task',
      'add',
      'Parser',
      '--project',
      'calc',
      '--priority',
      'must',
      '--depends-on',
      '1:SS',
      '--depends-on',
      '2:SS',
    )
    await ws.ok('task', 'add', 'Test suite', '--project', 'calc', '--priority', 'must', '--depends-on', '1:FF')
    const n = await doc(ws, 'next', '--project', 'calc', '--parallel', '10')
    expect(n.ready.map((r: { ref: string }) => r.ref)).toEqual([
      'calc/001-lexer',
      'calc/002-grammar',
      'calc/004-test-suite',
    ])
    expect(n.waiting).toEqual([
      {
        ref: 'calc/003-parser',
        on: ['calc/001-lexer', 'calc/002-grammar'],
        holds: [
          { ref: 'calc/001-lexer', type: 'SS', status: 'open', needs: 'started' },
          { ref: 'calc/002-grammar', type: 'SS', status: 'open', needs: 'started' },
        ],
      },
    ])
    const o = await doc(ws, 'overview')
    expect(o.ready_now.map((r: { ref: string }) => r.ref)).toEqual(n.ready.map((r: { ref: string }) => r.ref))
    const brief = (await ws.dacli('context', 'calc/3')).stdout
    expect(brief).toMatch(/Ready to start: no — 2 dependencies hold the start\./)
    expect(brief).toMatch(/- SS calc\/001-lexer — open: Lexer \(holds the start\)/)
    expect((await ws.dacli('context', 'calc/4')).stdout).toMatch(/Ready to start: yes/)
    // Starting both SS predecessors releases the parser.
    await ws.ok('task', 'claim', '1')
    await ws.ok('task', 'claim', '2')
    const n2 = await doc(ws, 'next', '--project', 'calc')
    expect(n2.ready.map((r: { ref: string }) => r.ref)).toEqual(['calc/003-parser', 'calc/004-test-suite'])
    expect((await ws.dacli('context', 'calc/3')).stdout).toMatch(/- SS calc\/001-lexer — active: Lexer \(start: met\)/)
  })

  test('property: on real workspaces, next never offers a task critical-path says cannot start yet', async () => {
    const TYPES = ['FS', 'SS', 'FF', 'SF'] as const
    const shape = fc.array(
      fc.record({
        state: fc.constantFrom('open', 'active', 'blocked', 'done', 'open'),
        te: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null, freq: 5 }),
        deps: fc.array(fc.record({ back: fc.nat(), type: fc.constantFrom(...TYPES) }), { maxLength: 2 }),
      }),
      { minLength: 2, maxLength: 6 },
    )
    await fc.assert(
      fc.asyncProperty(shape, async (tasks) => {
        const ws = await workspace({ git: false })
        await ws.ok('project', 'add', 'P', '--slug', 'p')
        for (const [i, t] of tasks.entries()) {
          const deps = i === 0 ? [] : [...new Map(t.deps.map((d) => [(d.back % i) + 1, d.type])).entries()]
          await ws.ok(
            'task',
            'add',
            `Task number ${i + 1}`,
            '--project',
            'p',
            '--force',
            ...(t.te === null ? [] : ['--estimate', `${t.te},${t.te},${t.te}`]),
            ...deps.flatMap(([n, type]) => ['--depends-on', `${n}:${type}`]),
          )
        }
        for (const [i, t] of tasks.entries()) {
          if (t.state === 'active') await ws.ok('task', 'claim', String(i + 1))
          if (t.state === 'blocked') await ws.ok('task', 'block', String(i + 1))
          if (t.state === 'done') await ws.ok('task', 'done', String(i + 1), '--allow-unverified')
        }
        const next = await doc(ws, 'next', '--project', 'p', '--parallel', '100')
        const cpm = await doc(ws, 'critical-path', '--project', 'p')
        const row = new Map(cpm.tasks.map((r: Row & { id: string }) => [r.id, r]))
        for (const r of next.ready) {
          const t = (await doc(ws, 'task', 'show', r.ref)) as { depends_on: { on: string; type: string }[] }
          expect((row.get(r.id) as Row | undefined)?.status).toBe('open')
          for (const d of t.depends_on) {
            const p = row.get(d.on) as Row | undefined
            // FS: the predecessor is finished (out of the schedule). SS: it has started (active, ES 0) or finished.
            if (d.type === 'FS') expect(p).toBeUndefined()
            if (d.type === 'SS' && p !== undefined) expect(p).toMatchObject({ status: 'active', es: 0 })
          }
          // Without finish-only (FF/SF) links to scheduled tasks, CPM starts it now.
          const finishOnly = t.depends_on.some((d) => (d.type === 'FF' || d.type === 'SF') && row.has(d.on))
          const es = (row.get(r.id) as Row).es
          if (!finishOnly && es !== null) expect(es).toBe(0)
        }
        // Every active task has started: CPM starts it now.
        for (const r of cpm.tasks as Row[]) if (r.status === 'active') expect(r.es).toBe(0)
      }),
      { numRuns: Number(process.env.PROP_RUNS ?? 10) },
    )
  }, 120_000)
})
