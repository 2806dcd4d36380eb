// A removed task's issue: `github push` closes it (labelled status:removed), a removed task that never had an
// issue gets none, and a second push changes nothing.

import { afterEach, expect, test } from 'vitest'
import { type GitHubWorkspace, githubWorkspace } from '../../testkit/ghworkspace.js'

let w: GitHubWorkspace
afterEach(async () => {
  await w.close()
})

test('github push closes the issue of a removed task and creates none for a removed task without one', async () => {
  w = await githubWorkspace()
  await w.ws.ok('task', 'add', 'Rotate keys', '--project', 'alpha', '--priority', 'must')
  await w.ws.ok('task', 'add', 'Write the runbook', '--project', 'alpha')
  ;(await w.run('github', 'push', 'alpha')).expectExit(0)
  await w.ws.ok('task', 'rm', 'alpha/1', '--force')
  await w.ws.ok('task', 'add', 'Never pushed', '--project', 'alpha')
  await w.ws.ok('task', 'rm', 'alpha/3', '--force')
  const tombstone = '.dacli/projects/alpha/tasks/removed/001-rotate-keys.md'
  const before = w.ws.snapshot()
  w.gh.resetCalls()

  const preview = (await w.run('github', 'push', 'alpha', '--dry-run', '--json')).expectExit(0)
  expect(preview.json.counts).toEqual({ create: 0, update: 0, close: 1, unchanged: 1 })
  expect(w.gh.writes()).toEqual([])

  const r = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0)
  expect(r.json.items.map((i: { ref: string; outcome: string }) => [i.ref, i.outcome])).toEqual([
    ['alpha/001-rotate-keys', 'closed'],
    ['alpha/002-write-the-runbook', 'unchanged'],
  ])
  expect(w.gh.writes().map((c) => [c.method, c.path, c.body])).toEqual([
    ['PATCH', '/repos/acme/widgets/issues/1', { labels: ['priority:must', 'status:removed'], state: 'closed' }],
  ])
  const issues = w.gh.repo('acme/widgets').issues
  expect(issues.map((i) => [i.number, i.state])).toEqual([
    [1, 'closed'],
    [2, 'open'],
  ])
  // Nothing local changed: the tombstone keeps its bytes.
  expect(before.get(tombstone)).toContain('github:')
  expect(w.ws.snapshot().get(tombstone)).toBe(before.get(tombstone))

  w.gh.resetCalls()
  const again = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0)
  expect(again.json.counts).toEqual({ create: 0, update: 0, close: 0, unchanged: 2 })
  expect(w.gh.writes()).toEqual([])
})

test('github push naming a removed task closes its issue (no 4 for a task whose tombstone is there)', async () => {
  w = await githubWorkspace()
  await w.ws.ok('task', 'add', 'Rotate keys', '--project', 'alpha', '--priority', 'must')
  await w.ws.ok('task', 'add', 'Write the runbook', '--project', 'alpha')
  ;(await w.run('github', 'push', 'alpha')).expectExit(0)
  await w.ws.ok('task', 'rm', 'alpha/1', '--force')
  await w.ws.ok('task', 'add', 'Never pushed', '--project', 'alpha')
  await w.ws.ok('task', 'rm', 'alpha/3', '--force')
  w.gh.resetCalls()
  const r = (await w.run('github', 'push', 'alpha', '1', 'alpha/3', '--json')).expectExit(0)
  expect(r.json.items.map((i: { ref: string; outcome: string }) => [i.ref, i.outcome])).toEqual([
    ['alpha/001-rotate-keys', 'closed'],
  ])
  expect(w.gh.writes().map((c) => [c.method, c.path])).toEqual([['PATCH', '/repos/acme/widgets/issues/1']])
  expect(w.gh.repo('acme/widgets').issues.map((i) => [i.number, i.state])).toEqual([
    [1, 'closed'],
    [2, 'open'],
  ])
  // A reference that names no task and no tombstone is still not found.
  expect((await w.run('github', 'push', 'alpha', '9', '--json')).expectExit(4).error.kind).toBe('not_found')
})
