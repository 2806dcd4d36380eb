// reconcile judges "landed" as `task done` does: a branch merged into trunk once and worked on since has not
// landed, so it is no landed_not_done finding and --apply-safe never closes its task.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace } from '../../testkit/deliveryws.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

test('a branch merged once and given more commits since is not landed_not_done', async () => {
  w = await deliveryWorkspace()
  const root = w.ws.root
  const ref = await w.task('Half landed')
  const { dir, branch } = await w.worktree(ref)
  w.commit(dir, 'a.txt', 'a\n', 'first half')
  git(root, 'merge', '-q', '--no-ff', '-m', `Merge branch '${branch}'`, branch)
  git(root, 'push', '-q', 'origin', 'main')
  w.commit(dir, 'b.txt', 'b\n', 'second half')
  ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
  ;(await w.ws.dacli('task', 'done', ref)).expectExit(3)
  const r = (await w.run('reconcile', '--json')).expectExit(0)
  expect(r.json.findings.filter((f: { class: string }) => f.class === 'landed_not_done')).toEqual([])
  ;(await w.run('reconcile', '--apply-safe', r.json.plan_id, '--json')).expectExit(0)
  expect((await w.ws.dacli('task', 'show', ref, '--json')).json.status).toBe('open')

  // The rest lands: now it is landed_not_done, and safe.
  git(root, 'merge', '-q', '--no-ff', '-m', `Merge branch '${branch}'`, branch)
  git(root, 'push', '-q', 'origin', 'main')
  const again = (await w.run('reconcile', '--json')).expectExit(0)
  expect(again.json.findings).toMatchObject([{ class: 'landed_not_done', subject: ref, safe: true }])
})

test('a merge of another branch whose name contains the task branch does not name it', async () => {
  w = await deliveryWorkspace()
  const root = w.ws.root
  const ref = await w.task('Login')
  ;(await w.ws.dacli('worktree', 'add', ref, '--branch', 'login')).expectExit(0)
  git(root, 'checkout', '-q', '-b', 'login-v2')
  w.commit(root, 'v2.txt', 'v2\n')
  git(root, 'checkout', '-q', 'main')
  git(root, 'merge', '-q', '--no-ff', '-m', "Merge branch 'login-v2'", 'login-v2')
  git(root, 'push', '-q', 'origin', 'main')
  ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
  const r = (await w.run('reconcile', '--json')).expectExit(0)
  expect(r.json.findings.filter((f: { class: string }) => f.class === 'landed_not_done')).toEqual([])
})

test('a branch fast-forwarded into trunk, with no merge commit, is landed_not_done; applying closes it', async () => {
  w = await deliveryWorkspace()
  const root = w.ws.root
  const ref = await w.task('Fast forward')
  const { dir, branch } = await w.worktree(ref)
  const sha = w.commit(dir, 'ff.txt', 'ff\n', 'the work')
  git(root, 'merge', '-q', '--ff-only', branch)
  git(root, 'push', '-q', 'origin', 'main')
  ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
  const r = (await w.run('reconcile', '--json')).expectExit(0)
  const landed = r.json.findings.filter((f: { class: string }) => f.class === 'landed_not_done')
  expect(landed).toMatchObject([{ subject: ref, safe: true }])
  expect(landed[0].evidence).toContain(`holds the work of ${branch}`)
  expect(landed[0].fix).toContain(`--branch ${sha}`)
  const applied = (await w.run('reconcile', '--apply-safe', r.json.plan_id, '--json')).expectExit(0)
  expect(applied.json.applied).toMatchObject([{ class: 'landed_not_done', subject: ref, outcome: 'applied' }])
  const shown = (await w.ws.dacli('task', 'show', ref, '--json')).expectExit(0).json
  expect(shown.status).toBe('done')
  const file = fs.readFileSync(path.join(root, shown.path), 'utf8')
  expect(shown.path).toContain('/tasks/done/')
  expect(file).toContain(`landed ${sha}`)
})

test('a branch that only moved along trunk (no commit made on it) has landed nothing', async () => {
  w = await deliveryWorkspace()
  const root = w.ws.root
  const ref = await w.task('Never started')
  const { dir } = await w.worktree(ref)
  w.commit(root, 'other.txt', 'other\n', 'someone else on main')
  git(root, 'push', '-q', 'origin', 'main')
  git(dir, 'merge', '-q', '--ff-only', 'main') // the branch catches up with trunk: it moved, with no work of its own
  ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
  const r = (await w.run('reconcile', '--json')).expectExit(0)
  expect(r.json.findings.filter((f: { class: string }) => f.class === 'landed_not_done')).toEqual([])
})
