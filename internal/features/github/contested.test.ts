// One issue, one task. An issue another project linked to the same repository already maps is `already_mapped`
// in a pull (never adopted a second time, whose pushes would then fight over its labels), and an issue two
// `github:` blocks map (one copied by hand) is refused by push and sync (3) before anything is written, where a
// push created a duplicate issue and moved the right task's mapping to it. Against the fake GitHub on 127.0.0.1.

import { afterEach, expect, test } from 'vitest'
import { type GitHubWorkspace, githubWorkspace } from '../../testkit/ghworkspace.js'

let w: GitHubWorkspace
afterEach(async () => {
  await w.close()
})

test('two projects linked to one repository: the second pull leaves the issue the first adopted alone', async () => {
  w = await githubWorkspace()
  await w.ws.ok('project', 'add', 'Beta', '--slug', 'beta')
  ;(await w.run('github', 'link', 'beta', '--repo', 'acme/widgets')).expectExit(0)
  w.gh.addIssue('acme/widgets', { title: 'Shared bug report', user: 'erin' })
  ;(await w.run('github', 'pull', 'alpha')).expectExit(0)
  const plan = (await w.run('github', 'pull', 'beta', '--dry-run', '--json')).expectExit(0).json
  expect(plan.counts).toMatchObject({ create: 0, already_mapped: 1 })
  const alpha = (await w.ws.dacli('task', 'show', 'alpha/1', '--json')).expectExit(0).json
  expect(plan.already_mapped[0]).toMatchObject({ issue_number: 1, task_id: alpha.id })
  ;(await w.run('github', 'pull', 'beta')).expectExit(0)
  expect((await w.ws.dacli('task', 'list', '--project', 'beta', '--json')).expectExit(0).json.tasks).toEqual([])
  w.gh.resetCalls()
  ;(await w.run('github', 'push', 'beta')).expectExit(0)
  expect(w.gh.writes()).toEqual([])
})

test('an issue mapped by two tasks (a github block copied by hand): push and sync refuse, nothing written anywhere', async () => {
  w = await githubWorkspace()
  w.gh.addIssue('acme/widgets', { title: 'Refactor storage layer', user: 'bob' })
  w.gh.addIssue('acme/widgets', { title: 'Unrelated zebra work', user: 'bob' })
  ;(await w.run('github', 'pull', 'alpha')).expectExit(0)
  ;(await w.run('github', 'push', 'alpha')).expectExit(0)
  const one = '.dacli/projects/alpha/tasks/open/001-refactor-storage-layer.md'
  const two = '.dacli/projects/alpha/tasks/open/002-unrelated-zebra-work.md'
  const block = /^github: .*$/m.exec(w.ws.file(two))?.[0] as string
  w.ws.write(one, w.ws.file(one).replace(/^github: .*$/m, block))
  const before = w.ws.snapshot()
  const issues = JSON.stringify(w.gh.repo('acme/widgets').issues)
  w.gh.resetCalls()
  for (const argv of [['push'], ['push', '--dry-run'], ['sync', '--dry-run']]) {
    const r = (await w.run('github', ...argv, 'alpha', '--json')).expectExit(3)
    expect(r.error).toMatchObject({
      kind: 'refused',
      details: {
        repository: 'acme/widgets',
        contested: [{ issue: 2, tasks: ['alpha/001-refactor-storage-layer', 'alpha/002-unrelated-zebra-work'] }],
      },
    })
  }
  expect((await w.run('github', 'sync', 'alpha')).expectExit(3).stderr).toMatch(
    /#2 by alpha\/001-refactor-storage-layer and alpha\/002-unrelated-zebra-work/,
  )
  expect(w.gh.writes()).toEqual([])
  expect(JSON.stringify(w.gh.repo('acme/widgets').issues)).toBe(issues)
  expect(w.ws.snapshot()).toEqual(before)
})
