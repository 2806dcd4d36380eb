// reconcile's pr_without_task for a pull request with no marker to go by: an open pull request of this repository
// from a task branch (dacli/…) that no task of the workspace has. A fork's branch of that name, the record branch,
// a closed pull request and a branch a task has are not findings.

import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { expectValid } from '../../testkit/schemas.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

test('an open pull request from a task branch no task has is pr_without_task; others are not', async () => {
  w = await deliveryWorkspace()
  const root = w.ws.root
  const ref = await w.task('Has a branch')
  const { branch } = await w.worktree(ref)
  git(root, 'push', '-q', 'origin', 'HEAD:refs/heads/dacli/alpha-042-gone')
  git(root, 'push', '-q', 'origin', 'HEAD:refs/heads/dacli/record')
  const ghost = w.gh.addPull(REPO, { title: 'Work of a removed task', head: 'dacli/alpha-042-gone' })
  w.gh.addPull(REPO, { title: 'The record branch', head: 'dacli/record' })
  w.gh.addPull(REPO, { title: 'The task has it', head: branch })
  const fork = w.gh.addPull(REPO, { title: 'From a fork', head: 'dacli/alpha-043-theirs' })
  fork.headRepo = 'someone/widgets'
  const closed = w.gh.addPull(REPO, { title: 'Closed', head: 'dacli/alpha-044-closed' })
  closed.state = 'closed'
  w.gh.resetCalls()

  const r = (await w.run('reconcile', '--json')).expectExit(0)
  expectValid(r.json)
  const found = r.json.findings.filter((f: { class: string }) => f.class === 'pr_without_task')
  expect(found).toMatchObject([{ subject: `#${ghost.number}`, safe: false }])
  expect(found[0].evidence).toContain('dacli/alpha-042-gone')
  expect(w.gh.writes()).toEqual([])
  // Scoped to its project by the branch's name: another project's reconcile does not report it.
  ;(await w.ws.dacli('project', 'add', 'Beta', '--slug', 'beta')).expectExit(0)
  const beta = (await w.run('reconcile', '--project', 'beta', '--json')).expectExit(0)
  expect(beta.json.findings.filter((f: { class: string }) => f.class === 'pr_without_task')).toEqual([])
  const alpha = (await w.run('reconcile', '--project', 'alpha', '--json')).expectExit(0)
  expect(alpha.json.findings.filter((f: { class: string }) => f.class === 'pr_without_task')).toHaveLength(1)
})

test('a removed task’s pull request dacli opened (its marker): found with --project by its branch, and when no task is left', async () => {
  w = await deliveryWorkspace()
  const { ref } = await w.worked('Removed later')
  const opened = (await w.run('pr', 'open', ref, '--json')).expectExit(0)
  ;(await w.ws.dacli('task', 'rm', ref, '--force')).expectExit(0)
  // alpha has no task left: GitHub is still read, through the project's link.
  for (const scope of [[], ['--project', 'alpha']]) {
    const r = (await w.run('reconcile', ...scope, '--json')).expectExit(0).json
    expect(r.skipped.filter((s: { source: string }) => s.source === 'github')).toEqual([])
    expect(r.findings.filter((f: { class: string }) => f.class === 'pr_without_task')).toMatchObject([
      { subject: `#${opened.json.pr.number}` },
    ])
  }
  ;(await w.ws.dacli('project', 'add', 'Beta', '--slug', 'beta')).expectExit(0)
  const beta = (await w.run('reconcile', '--project', 'beta', '--json')).expectExit(0).json
  expect(beta.findings.filter((f: { class: string }) => f.class === 'pr_without_task')).toEqual([])
})
