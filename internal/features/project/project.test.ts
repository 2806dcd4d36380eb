import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

describe('project', () => {
  test('add derives the slug, show reports sections and counts, list lists', async () => {
    const ws = await workspace()
    const a = (
      await ws.dacli('project', 'add', 'Ledger', 'Write', 'Path', '--goal', 'No divergence', '--json')
    ).expectExit(0)
    expect(a.json).toMatchObject({
      schema: 'project/v1',
      slug: 'ledger-write-path',
      title: 'Ledger Write Path',
      goal: 'No divergence',
      stage: 'definition',
      total: 0,
    })
    ;(await ws.dacli('task', 'add', 'One', '--project', 'ledger-write-path')).expectExit(0)
    const s = (await ws.dacli('project', 'show', 'ledger-write-path', '--json')).expectExit(0)
    expect(s.json.counts).toEqual({ open: 1, active: 0, blocked: 0, done: 0 })
    const l = (await ws.dacli('project', 'list', '--json')).expectExit(0)
    expect(l.json.projects).toHaveLength(1)
    expect(l.json.skipped).toEqual([])
  })

  test('refusals: existing slug 5, unsafe slug 2, bad stage 2, rm without --force 3', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    expect((await ws.dacli('project', 'add', 'Q', '--slug', 'p', '--json')).expectExit(5).error.details.slug).toBe('p')
    for (const bad of ['../x', '.hidden', 'a/b', 'A B', 'x\u0000y']) {
      expect((await ws.dacli('project', 'add', 'Q', '--slug', bad, '--json')).code).toBe(2)
    }
    expect((await ws.dacli('project', 'add', 'Q', '--stage', 'done', '--json')).expectExit(2).error.message).toMatch(
      /definition, elicitation/,
    )
    ;(await ws.dacli('task', 'add', 'One task', '--project', 'p', '--accept', 'done')).expectExit(0)
    const before = ws.snapshot()
    const rm = (await ws.dacli('project', 'rm', 'p', '--json')).expectExit(3)
    expect(rm.error.details.would_delete).toBeDefined()
    // Counts read "1 open task", never "1 open tasks".
    expect(rm.error.message).toBe('removing project "p" deletes 1 open task; pass --force to confirm')
    expect(ws.snapshot()).toEqual(before)
    ;(await ws.dacli('project', 'rm', 'p', '--force')).expectExit(0)
    expect(fs.existsSync(path.join(ws.root, '.dacli/projects/p'))).toBe(false)
    ;(await ws.dacli('project', 'show', 'p')).expectExit(4)
  })

  test('an unparseable project file is skipped by list and reported, never rewritten', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Good')).expectExit(0)
    ws.write('.dacli/projects/bad/project.md', '---\ntitle: fix: broken\n---\n# Bad\n')
    const r = (await ws.dacli('project', 'list', '--json')).expectExit(0)
    expect(r.json.projects.map((p: { slug: string }) => p.slug)).toEqual(['good'])
    expect(r.json.skipped[0].path).toBe('.dacli/projects/bad/project.md')
    const human = await ws.dacli('project', 'list')
    expect(human.stderr).toMatch(/skipped \.dacli\/projects\/bad\/project\.md/)
  })
})

test('a task file that cannot be read is left out of a project’s counts and said so: skipped in project list, a warning in project show', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'One', '--project', 'ledger', '--accept', 'x')
  await ws.ok('task', 'add', 'Two', '--project', 'ledger', '--accept', 'y')
  const broken = '.dacli/projects/ledger/tasks/open/002-two.md'
  ws.write(broken, '---\nid: [\n---\n# broken\n')
  const l = (await ws.dacli('project', 'list', '--json')).expectExit(0)
  expect(l.json.projects[0].counts).toEqual({ open: 1, active: 0, blocked: 0, done: 0 })
  expect(l.json.skipped).toEqual([expect.objectContaining({ path: broken, code: 'unparseable-object' })])
  const s = (await ws.dacli('project', 'show', 'ledger')).expectExit(0)
  expect(s.stderr).toContain(`skipped ${broken}`)
})
