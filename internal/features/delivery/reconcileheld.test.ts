// reconcile does not call a close safe that the claims remote will refuse: when another clone holds a live claim on
// the task there, `task done` through the remote is a conflict (5), so the landed task's finding says who holds it
// and is left for a person; --apply-safe applies nothing for it. Once the claim is released, the same finding is
// safe and --apply-safe closes the task.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { type Checkout, cloneTeam, team } from '../../testkit/coordination.js'
import { git, workspace } from '../../testkit/ws.js'

test('a landed task another clone holds on the claims remote is not a safe close until that claim is released', async () => {
  const ws = await workspace()
  const t = await team(ws, { tasks: 1 })
  // Claims go through origin in every clone (config.yml travels with the record).
  fs.appendFileSync(path.join(ws.root, '.dacli', 'config.yml'), 'claims: {remote: origin}\n')
  await cloneTeam(t, 1, 0)
  const b = t.clones[0] as Checkout
  ;(await b.dacli('task', 'claim', 'race/1')).expectExit(0)

  // In the first clone the task's work lands on main, its criteria checked; it knows nothing of b's claim locally.
  const wt = (await ws.dacli('worktree', 'add', 'race/1', '--json')).expectExit(0).json
  const dir = path.resolve(ws.root, wt.path)
  fs.writeFileSync(path.join(dir, 'work.txt'), 'done\n')
  git(dir, 'add', 'work.txt')
  git(dir, 'commit', '-q', '-m', 'the work')
  git(ws.root, 'merge', '-q', '--no-ff', '-m', `Merge branch '${wt.branch}'`, wt.branch)
  git(ws.root, 'push', '-q', 'origin', 'main')
  ;(await ws.dacli('task', 'check', 'race/1', '--all')).expectExit(0)

  const landed = (r: { findings: { class: string }[] }) => r.findings.filter((f) => f.class === 'landed_not_done')
  const held = (await ws.dacli('reconcile', '--json')).expectExit(0).json
  expect(landed(held)).toEqual([
    expect.objectContaining({
      subject: expect.stringMatching(/^race\/001-/),
      safe: false,
      evidence: expect.stringContaining('is claimed on origin by a-root'),
    }),
  ])
  const none = (await ws.dacli('reconcile', '--apply-safe', held.plan_id, '--json')).expectExit(0).json
  expect(none.applied).toEqual([])
  expect((await ws.dacli('task', 'show', 'race/1', '--json')).json.status).toBe('open')

  // b lets go: the same finding is safe now, and applying it closes the task.
  ;(await b.dacli('task', 'release', 'race/1')).expectExit(0)
  const free = (await ws.dacli('reconcile', '--json')).expectExit(0).json
  expect(landed(free)).toEqual([expect.objectContaining({ safe: true })])
  const applied = (await ws.dacli('reconcile', '--apply-safe', free.plan_id, '--json')).expectExit(0).json
  expect(applied.applied).toEqual([expect.objectContaining({ class: 'landed_not_done', outcome: 'applied' })])
  expect((await ws.dacli('task', 'show', 'race/1', '--json')).json.status).toBe('done')
})
