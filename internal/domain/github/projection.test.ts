import { describe, expect, test } from 'vitest'
import { type IssueState, issueBody, markerOf, type ProjectedTask, project } from './projection.js'

const WS = '01WORKSPACE'
const task = (id: string, over: Partial<ProjectedTask> = {}): ProjectedTask => ({
  id,
  ref: `p/00${id.slice(-1)}-x`,
  title: `Task ${id}`,
  status: 'open',
  priority: null,
  so_that: null,
  labels: [],
  milestone: null,
  acceptance: [],
  github: null,
  ...over,
})
const issue = (number: number, over: Partial<IssueState> = {}): IssueState => ({
  number,
  title: `Issue ${number}`,
  body: '',
  state: 'open',
  milestone: null,
  labels: [],
  ...over,
})

describe('projecting tasks onto issues', () => {
  test('mapped → kept; marker → adopted; neither → create; duplicates of a marker are reported, lowest kept', () => {
    const a = task('t-A', { github: { issue: 1, repo: 'o/r' } })
    const b = task('t-B')
    const c = task('t-C')
    const issues = [
      issue(1, { title: a.title, body: issueBody(a, WS), labels: ['status:open'] }),
      issue(5, { title: b.title, body: issueBody(b, WS), labels: ['status:open'] }),
      issue(3, { title: b.title, body: issueBody(b, WS), labels: ['status:open'] }),
      // Another workspace's marker for the same task id is not ours.
      issue(4, { body: markerOf('t-C', 'OTHERWS') }),
    ]
    const p = project([a, b, c], issues, 'O/R', WS)
    expect(p.steps.map((s) => [s.action, s.issue?.number ?? null, s.adopted, s.remap])).toEqual([
      ['unchanged', 1, false, false],
      ['unchanged', 3, true, true],
      ['create', null, false, false],
    ])
    expect(p.duplicates).toEqual([{ task_id: 't-B', kept: 3, others: [5] }])
  })

  test('labels: managed ones replaced, others kept; a done task closes; a human issue keeps title and body', () => {
    const t = task('t-A', { status: 'done', priority: 'must', github: { issue: 7, repo: null }, title: 'Renamed' })
    const human = issue(7, {
      title: 'Original words',
      body: 'by a person',
      labels: ['bug', 'status:open', 'priority:could'],
    })
    const [s] = project([t], [human], 'o/r', WS).steps
    expect(s?.action).toBe('close')
    expect(s?.changes).toEqual(['labels', 'state'])
    expect(s?.desired).toMatchObject({
      title: 'Original words',
      body: 'by a person',
      labels: ['bug', 'priority:must', 'status:done'],
    })
    // A block without a repository is taken as this one, and gets completed.
    expect(s?.remap).toBe(true)
  })

  test('an issue dacli authored follows the task: title and body; reopening reopens; one issue serves one task', () => {
    const t = task('t-A', { github: { issue: 2, repo: 'o/r' }, acceptance: [{ text: 'ok', checked: true }] })
    const stale = issue(2, {
      title: 'Old',
      body: `${markerOf('t-A', WS)}\nold text`,
      state: 'closed',
      labels: ['status:done'],
    })
    const twin = task('t-Z', { github: { issue: 2, repo: 'o/r' } })
    const p = project([t, twin], [stale], 'o/r', WS)
    expect(p.steps[0]?.action).toBe('update')
    expect(p.steps[0]?.changes).toEqual(['title', 'body', 'labels', 'state'])
    expect(p.steps[0]?.desired.body).toContain('- [x] ok')
    expect(p.steps[1]?.action).toBe('create')
  })

  test('a mapping to another repository does not count here', () => {
    const t = task('t-A', { github: { issue: 1, repo: 'other/repo' } })
    expect(project([t], [issue(1)], 'o/r', WS).steps[0]?.action).toBe('create')
  })

  test('writes less: no status label reads as the state’s own; a task without priority keeps the issue’s', () => {
    const adopted = (n: number, over: Partial<ProjectedTask> = {}) =>
      task(`t-${n}`, { github: { issue: n, repo: 'o/r' }, ...over })
    const issues = [
      issue(1, { labels: [] }),
      issue(2, { labels: ['bug', 'priority:high'] }),
      issue(3, { state: 'closed', labels: [] }),
      issue(4, { labels: [] }),
      issue(5, { labels: ['priority:high', 'status:open'] }),
    ]
    const p = project(
      [
        adopted(1),
        adopted(2),
        adopted(3, { status: 'done' }),
        adopted(4, { status: 'active' }),
        adopted(5, { priority: 'must' }),
      ],
      issues,
      'o/r',
      WS,
    )
    expect(p.steps.map((s) => [s.action, s.changes, s.desired.labels])).toEqual([
      ['unchanged', [], ['status:open']],
      ['unchanged', [], ['bug', 'priority:high', 'status:open']],
      ['unchanged', [], ['status:done']],
      // A task that moved on is written, with its labels in full.
      ['update', ['labels'], ['status:active']],
      ['update', ['labels'], ['priority:must', 'status:open']],
    ])
  })
})
