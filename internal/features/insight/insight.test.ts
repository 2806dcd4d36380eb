import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { ledgerPlan } from '../../testkit/ledger.js'
import { dacliJson } from '../../testkit/schemas.js'
import type { RunOpts, Workspace } from '../../testkit/ws.js'

let ws: Workspace
const j = (...args: (string | RunOpts)[]) => dacliJson(ws, ...args)

beforeEach(async () => {
  ws = await ledgerPlan()
})

describe('status and overview', () => {
  test('status counts per project, totals, pending events and the identity', async () => {
    const ro = await ws.agent('ro', 'reader')
    ;(await ws.dacli('task', 'claim', '1', { as: ro.token })).expectExit(0)
    const s = (await j('status')).expectExit(0).json
    expect(s.projects).toEqual([
      { slug: 'ledger', title: 'Ledger', counts: { open: 4, active: 0, blocked: 0, done: 0 } },
    ])
    expect(s).toMatchObject({ totals: { open: 4 }, pending_events: 1, identity: { id: 'a-root', grant: 'rw' } })
  })

  test('a project whose project file cannot be read still has its tasks counted, under its slug, and is named in skipped', async () => {
    const file = '.dacli/projects/ledger/project.md'
    ws.write(file, ws.file(file).replace(/^kind: project$/m, 'kind: [project'))
    const s = (await j('status')).expectExit(0).json
    const listed = (await j('task', 'list')).expectExit(0).json
    expect(s.projects).toEqual([
      { slug: 'ledger', title: 'ledger', counts: { open: 4, active: 0, blocked: 0, done: 0 } },
    ])
    expect(s.totals.open).toBe(listed.total)
    expect(s.skipped.map((b: { path: string }) => b.path)).toContain(file)
    expect((await ws.dacli('status')).expectExit(0).stdout).toMatch(/^ledger\s+4\s+0\s+0\s+0\s+ledger$/m)
  })

  test('overview: counts, WIP, live agents and at most three ready tasks with their command; never a could beside a must', async () => {
    const a = await ws.agent('rw', 'worker')
    ;(await ws.dacli('task', 'claim', '2', { as: a.token })).expectExit(0)
    const o = (await j('overview')).expectExit(0).json
    expect(o).toMatchObject({
      version: 1,
      projects: 1,
      tasks: 4,
      counts: { open: 3, active: 1 },
      wip: { active: 1, capacity: null },
      live_agents: 1,
      pending_events: 0,
    })
    // 004 depends FF on 002: FF constrains its finish, never its start, so it is ready beside the must.
    expect(o.ready_now).toEqual([
      {
        id: expect.any(String),
        ref: 'ledger/001-audit-write-paths',
        title: 'Audit write paths',
        priority: 'must',
        command: 'dacli task claim ledger/001-audit-write-paths',
      },
      {
        id: expect.any(String),
        ref: 'ledger/004-write-notes',
        title: 'Write notes',
        priority: 'should',
        command: 'dacli task claim ledger/004-write-notes',
      },
    ])
    const human = await ws.dacli('overview')
    expect(human.stdout).toMatch(/Ready now/)
  })
})

describe('next', () => {
  test('the frontier: musts first, dependencies respected, the rest explained', async () => {
    const n = (await j('next', '--project', 'ledger')).expectExit(0).json
    // 004 (FF on 002) may start now; 003 is a could while a must is ready.
    expect(n.ready.map((r: { ref: string }) => r.ref)).toEqual([
      'ledger/001-audit-write-paths',
      'ledger/004-write-notes',
    ])
    expect(n.ready[0]).toMatchObject({
      critical: true,
      slack: 0,
      command: 'dacli task claim ledger/001-audit-write-paths',
    })
    expect(n.waiting).toEqual([
      {
        ref: 'ledger/002-build-the-shim',
        on: ['ledger/001-audit-write-paths'],
        holds: [{ ref: 'ledger/001-audit-write-paths', type: 'FS', status: 'open', needs: 'done' }],
      },
    ])
    ;(await ws.dacli('task', 'check', '1', '--all')).expectExit(0)
    ;(await ws.dacli('task', 'done', '1')).expectExit(0)
    const n2 = (await j('next', '--parallel', '5')).json
    expect(n2.ready.map((r: { ref: string }) => r.ref)).toEqual(['ledger/002-build-the-shim', 'ledger/004-write-notes'])
    ;(await ws.dacli('task', 'block', '2')).expectExit(0)
    const n3 = (await j('next')).json
    expect(n3.ready.map((r: { ref: string }) => r.ref)).toEqual(['ledger/004-write-notes', 'ledger/003-chart-drift'])
    ;(await ws.dacli('task', 'edit', '3', '--priority', 'wont')).expectExit(0)
    ;(await ws.dacli('task', 'edit', '4', '--priority', 'wont')).expectExit(0)
    const n4 = (await j('next')).json
    expect(n4.ready).toEqual([])
    expect(n4.explanation).toBe('nothing is ready: 1 blocked, 2 marked wont')
  })
})

describe('critical-path', () => {
  test('schedule, chain and duration; mermaid and dot highlight the chain', async () => {
    const c = (await j('critical-path', '--project', 'ledger')).expectExit(0).json
    expect(c.duration).toBe(6)
    expect(c.critical_path.length).toBe(3) // 1 → 2, and 4 finishes with 2 (FF) at zero slack
    const byRef = Object.fromEntries(c.tasks.map((t: { ref: string }) => [t.ref, t]))
    expect(byRef['ledger/001-audit-write-paths']).toMatchObject({ te: 2, es: 0, ef: 2, slack: 0, critical: true })
    expect(byRef['ledger/002-build-the-shim']).toMatchObject({ te: 4, es: 2, ef: 6, critical: true })
    expect(byRef['ledger/004-write-notes']).toMatchObject({ te: 2, es: 4, ef: 6, slack: 0 })
    expect(byRef['ledger/003-chart-drift']).toMatchObject({ te: 1, slack: 5, critical: false })
    const m = await ws.dacli('critical-path', '--project', 'ledger', '--format', 'mermaid')
    expect(m.stdout).toMatch(/^flowchart LR/)
    expect(m.stdout).toMatch(/class .* critical/)
    expect(m.stdout).toMatch(/-- FF -->/)
    const d = await ws.dacli('critical-path', '--format', 'dot')
    expect(d.stdout).toMatch(/^digraph critical_path \{/)
    expect(d.stdout).toMatch(/penwidth=3/)
    expect((await j('critical-path', '--format', 'svg')).code).toBe(2)
  })

  test('an unsized task makes the duration null; a cycle is refused naming it', async () => {
    ;(await ws.dacli('task', 'add', 'Unsized thing here', '--project', 'ledger')).expectExit(0)
    const c = (await j('critical-path')).expectExit(0).json
    expect(c.duration).toBeNull()
    expect(c.unsized).toEqual(['ledger/005-unsized-thing-here'])
    // Hand-edit a cycle the CLI itself refuses to create.
    const file = path.join(ws.root, '.dacli/projects/ledger/tasks/open/001-audit-write-paths.md')
    const id2 = (await ws.dacli('task', 'show', '2', '--json')).json.id
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('version: 1', `depends_on: [${id2}]\nversion: 1`))
    const cyc = (await j('critical-path')).expectExit(3)
    expect(cyc.error.details.cycle).toEqual([
      'ledger/001-audit-write-paths',
      'ledger/002-build-the-shim',
      'ledger/001-audit-write-paths',
    ])
  })
})

describe('next --cursor', () => {
  test('a bad cursor under --json: stderr is the one error envelope, no note before it', async () => {
    await ws.ok('task', 'add', 'An unsized extra', '--project', 'ledger', '--accept', 'x', '--force')
    await ws.ok('task', 'add', 'Another unsized extra', '--project', 'ledger', '--accept', 'x', '--force')
    expect((await ws.dacli('next')).stderr).toContain('not every task in scope has an estimate')
    const r = await ws.dacli('next', '--cursor', 'garbage', '--json')
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(JSON.parse(r.stderr).schema).toBe('error/v1')
  })
})
