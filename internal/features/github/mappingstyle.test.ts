// The bytes of a task's `github:` block: one style whoever writes it (a pull's adoption or link, a push's write-back),
// and a block a person wrote keeps its style, its other keys and its comments.

import { afterEach, expect, test } from 'vitest'
import { type GitHubWorkspace, githubWorkspace } from '../../testkit/ghworkspace.js'

let w: GitHubWorkspace
afterEach(async () => {
  await w.close()
})

const OPEN = '.dacli/projects/alpha/tasks/open'
const FLOW = /\ngithub: \{issue: \d+, repo: acme\/widgets, synced_at: \S+Z\}\n/

test('pull (adopt and link) and push write the github block in the same flow style', async () => {
  w = await githubWorkspace()
  await w.ws.ok('task', 'add', 'Rotate keys', '--project', 'alpha')
  await w.ws.ok('task', 'add', 'Write the runbook', '--project', 'alpha')
  w.gh.addIssue('acme/widgets', { title: 'Export the ledger' })
  w.gh.addIssue('acme/widgets', { title: 'Rotate keys' })
  ;(await w.run('github', 'pull', 'alpha')).expectExit(0)
  ;(await w.run('github', 'push', 'alpha')).expectExit(0)
  expect(w.ws.file(`${OPEN}/001-rotate-keys.md`)).toMatch(FLOW) // linked by the pull
  expect(w.ws.file(`${OPEN}/002-write-the-runbook.md`)).toMatch(FLOW) // created by the push
  expect(w.ws.file(`${OPEN}/003-export-the-ledger.md`)).toMatch(FLOW) // adopted by the pull
})

test('a github block a person wrote keeps its style, its other keys and comments when push writes into it', async () => {
  w = await githubWorkspace()
  await w.ws.ok('task', 'add', 'Rotate keys', '--project', 'alpha')
  const file = `${OPEN}/001-rotate-keys.md`
  const block = 'github:\n  # the ops board\n  board: ops-7\n  issue: 1\n  repo: acme/widgets\n'
  w.ws.write(file, w.ws.file(file).replace('version: 1\n', `${block}version: 1\n`))
  w.gh.addIssue('acme/widgets', { title: 'Rotate keys' })
  await w.ws.ok('task', 'edit', 'alpha/1', '--priority', 'must') // a label to change on the issue
  await w.ws.ok('task', 'add', 'Write the runbook', '--project', 'alpha', '--priority', 'must')
  const flow = `${OPEN}/002-write-the-runbook.md`
  w.ws.write(
    flow,
    w.ws.file(flow).replace('version: 1\n', 'github: {issue: 2, repo: acme/widgets}  # mirrored\nversion: 1\n'),
  )
  w.gh.addIssue('acme/widgets', { title: 'Write the runbook' })
  ;(await w.run('github', 'push', 'alpha')).expectExit(0)
  expect(w.ws.file(flow)).toMatch(
    /\ngithub: \{issue: 2, repo: acme\/widgets, synced_at: \S+Z\} {2}# mirrored\nversion: 2\n/,
  )
  const text = w.ws.file(file)
  expect(text).toMatch(
    /\ngithub:\n {2}# the ops board\n {2}board: ops-7\n {2}issue: 1\n {2}repo: acme\/widgets\n {2}synced_at: \S+Z\nversion: 3\n/,
  )
})
