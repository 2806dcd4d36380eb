// Labels and milestones on tasks: the bytes task add|edit write, the filters of task list, next and overview, and
// milestone list's progress.

import { describe, expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { type Workspace, workspace } from '../../testkit/ws.js'

const FILE1 = '.dacli/projects/api/tasks/open/001-harden-login.md'

async function setup(): Promise<Workspace> {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Api', '--slug', 'api')
  await ws.ok(
    'task',
    'add',
    'Harden login',
    '--project',
    'api',
    '--accept',
    'ok',
    '--label',
    'security',
    '--label',
    'backend',
    '--milestone',
    'v2.0',
  )
  await ws.ok(
    'task',
    'add',
    'Style the page',
    '--project',
    'api',
    '--accept',
    'ok',
    '--label',
    'frontend',
    '--milestone',
    'v2.0',
  )
  await ws.ok('task', 'add', 'Audit sessions', '--project', 'api', '--accept', 'ok', '--label', 'security', '--force')
  return ws
}

const refs = (list: { ref: string }[]) => list.map((t) => t.ref)

describe('labels and milestones on tasks', () => {
  test('task add writes labels: and milestone:; task edit adds, removes and clears them', async () => {
    const ws = await setup()
    expect(ws.file(FILE1)).toContain('\nlabels:\n  - security\n  - backend\nmilestone: v2.0\nversion: 1\n')
    const shown = (await ws.ok('task', 'show', 'api/1', '--json')).json
    expectValid(shown)
    expect(shown).toMatchObject({ labels: ['security', 'backend'], milestone: 'v2.0' })
    const edited = (
      await ws.ok(
        'task',
        'edit',
        'api/1',
        '--label',
        'urgent',
        '--remove-label',
        'backend',
        '--milestone',
        'v2.1',
        '--json',
      )
    ).json
    expectValid(edited)
    expect(edited.details.fields).toEqual(['labels', 'milestone'])
    expect(ws.file(FILE1)).toContain('\nlabels:\n  - security\n  - urgent\nmilestone: v2.1\nversion: 2\n')
    expect(ws.file(FILE1)).toMatch(/a-root edited labels, milestone\n/)
    await ws.ok('task', 'edit', 'api/1', '--clear-milestone', '--remove-label', 'security', '--remove-label', 'urgent')
    expect(ws.file(FILE1)).not.toMatch(/^(labels|milestone):/m)
    const again = (await ws.ok('task', 'edit', 'api/1', '--clear-milestone', '--json')).json
    expect(again.outcome).toBe('unchanged')
  })

  test('bad labels and milestones are refused (exit 2) and nothing is written', async () => {
    const ws = await setup()
    const before = ws.snapshot()
    for (const argv of [
      ['task', 'edit', 'api/1', '--label', 'a,b'],
      ['task', 'edit', 'api/1', '--label', ' padded'],
      ['task', 'edit', 'api/1', '--label', 'x'.repeat(51)],
      ['task', 'edit', 'api/1', '--label', 'bell\u0007'],
      ['task', 'edit', 'api/1', '--milestone', 'two\nlines'],
      ['task', 'edit', 'api/1', '--milestone', 'v3', '--clear-milestone'],
      ['task', 'add', 'New one', '--project', 'api', '--label', ''],
      ['task', 'list', '--label', 'a,b'],
      ['next', '--label', ''],
    ]) {
      const r = (await ws.dacli(...argv, '--json')).expectExit(2)
      expect(r.error.kind).toBe('usage')
    }
    expect(ws.snapshot()).toEqual(before)
  })

  test('--label filters task list (every label given), next and overview; --milestone filters task list', async () => {
    const ws = await setup()
    const sec = (await ws.ok('task', 'list', '--label', 'security', '--json')).json
    expectValid(sec)
    expect(refs(sec.tasks)).toEqual(['api/001-harden-login', 'api/003-audit-sessions'])
    expect(sec.tasks[0]).toMatchObject({ labels: ['security', 'backend'], milestone: 'v2.0' })
    expect(
      refs((await ws.ok('task', 'list', '--label', 'security', '--label', 'backend', '--json')).json.tasks),
    ).toEqual(['api/001-harden-login'])
    expect(refs((await ws.ok('task', 'list', '--milestone', 'v2.0', '--json')).json.tasks)).toEqual([
      'api/001-harden-login',
      'api/002-style-the-page',
    ])
    const next = (await ws.ok('next', '--label', 'frontend', '--json')).json
    expectValid(next)
    expect(refs(next.ready)).toEqual(['api/002-style-the-page'])
    const ov = (await ws.ok('overview', '--label', 'security', '--json')).json
    expectValid(ov)
    expect(ov.tasks).toBe(2)
    expect(refs(ov.ready_now)).toEqual(['api/001-harden-login', 'api/003-audit-sessions'])
  })
})

describe('milestone list', () => {
  test('progress per milestone, in name order; the tasks in none are counted', async () => {
    const ws = await setup()
    await ws.ok('task', 'claim', 'api/2')
    await ws.ok('task', 'check', 'api/2', '--all')
    await ws.ok('task', 'done', 'api/2')
    await ws.ok('task', 'edit', 'api/3', '--milestone', 'v1.9')
    const doc = (await ws.ok('milestone', 'list', '--json')).json
    expectValid(doc)
    expect(doc).toEqual({
      schema: 'milestone-list/v1',
      project: null,
      milestones: [
        {
          name: 'v1.9',
          total: 1,
          counts: { open: 1, active: 0, blocked: 0, done: 0 },
          progress: 0,
          acceptance_done: 0,
          acceptance_total: 1,
          projects: ['api'],
          command: 'dacli task list --milestone "v1.9"',
        },
        {
          name: 'v2.0',
          total: 2,
          counts: { open: 1, active: 0, blocked: 0, done: 1 },
          progress: 0.5,
          acceptance_done: 1,
          acceptance_total: 2,
          projects: ['api'],
          command: 'dacli task list --milestone "v2.0"',
        },
      ],
      unassigned: 0,
      skipped: [],
    })
    const human = (await ws.ok('milestone', 'list')).stdout
    expect(human).toMatch(/v2\.0\s+1\/2\s+1\s+0\s+0\s+\[#####\.\.\.\.\.\] 50%/)
    expect((await ws.ok('milestone', 'list', '--project', 'api', '--json')).json.project).toBe('api')
    ;(await ws.dacli('milestone', 'list', '--project', 'nope', '--json')).expectExit(4)
  })
})
