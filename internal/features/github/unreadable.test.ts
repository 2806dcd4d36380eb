// A task file dacli cannot read may be the one that maps an issue (github.md: pull "refuses (3, nothing written)
// while any item is blocking (a possible duplicate or a conflict)"): adopting the issue again would make a second
// task, and the next push a second issue on GitHub.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { type GitHubWorkspace, githubWorkspace } from '../../testkit/ghworkspace.js'

let w: GitHubWorkspace
afterEach(async () => {
  await w?.close()
})

const openTasks = () => fs.readdirSync(path.join(w.ws.root, '.dacli', 'projects', 'alpha', 'tasks', 'open')).sort()

test('an unreadable task file that maps an issue: pull refuses (3, nothing written), push makes no duplicate issue', async () => {
  w = await githubWorkspace()
  w.gh.addIssue('acme/widgets', { title: 'From GitHub' })
  ;(await w.run('github', 'pull', 'alpha')).expectExit(0)
  const f = '.dacli/projects/alpha/tasks/open/001-from-github.md'
  const good = w.ws.file(f)
  expect(good).toContain('github: {issue: 1,')
  // A hand edit breaks the frontmatter (a merge conflict, a typo): the task still exists and still maps #1.
  w.ws.write(f, good.replace('kind: task', 'kind: task\nbad: [unclosed'))
  const before = w.ws.snapshot()
  const r = (await w.run('github', 'pull', 'alpha')).expectExit(3)
  expect(r.stderr).toContain('001-from-github.md')
  expect(r.stderr).toContain('#1 "From GitHub"')
  expect(w.ws.snapshot()).toEqual(before)
  expect(openTasks()).toEqual(['001-from-github.md'])
  // The dry run shows the same item as refused, with nothing sent.
  const plan = (await w.run('github', 'pull', 'alpha', '--dry-run', '--json')).expectExit(0).json
  expect(plan.refused).toMatchObject([{ issue_number: 1 }])
  // Once the file is repaired, nothing is duplicated on either side.
  w.ws.write(f, good)
  ;(await w.run('github', 'pull', 'alpha')).expectExit(0)
  expect(openTasks()).toEqual(['001-from-github.md'])
  w.gh.resetCalls()
  ;(await w.run('github', 'push', 'alpha', '--json')).expectExit(0)
  expect(w.gh.writes().filter((c) => c.method === 'POST')).toEqual([])
  expect(w.gh.repo('acme/widgets').issues).toHaveLength(1)
}, 20_000)

test('a removed task still maps its issue: pull does not adopt the issue again as a new task', async () => {
  w = await githubWorkspace()
  w.gh.addIssue('acme/widgets', { title: 'From GitHub' })
  ;(await w.run('github', 'pull', 'alpha')).expectExit(0)
  ;(await w.run('task', 'rm', 'alpha/1', '--force')).expectExit(0)
  const plan = (await w.run('github', 'pull', 'alpha', '--dry-run', '--json')).expectExit(0).json
  expect(plan.create).toEqual([])
  expect(plan.already_mapped).toMatchObject([{ issue_number: 1 }])
  const before = w.ws.snapshot()
  ;(await w.run('github', 'pull', 'alpha')).expectExit(0)
  expect(w.ws.snapshot()).toEqual(before)
})
