// reconcile --apply-safe closes a landed task through the claims remote (coordination.md: claims go through the
// remote on every path when claims.remote is set): the task's claim ref on the remote goes with the close, as it
// does with `task done`, instead of staying behind for the next reconcile to find.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace } from '../../testkit/deliveryws.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

test('a landed task closed by reconcile --apply-safe releases its claim on the claims remote', async () => {
  w = await deliveryWorkspace()
  const root = w.ws.root
  const cfg = path.join(root, '.dacli', 'config.yml')
  fs.writeFileSync(cfg, `${fs.readFileSync(cfg, 'utf8')}claims: {remote: origin}\n`)
  const ref = await w.task('Landed while claimed')
  const { dir, branch } = await w.worktree(ref)
  w.commit(dir, 'landed.txt', 'landed\n', 'landed')
  ;(await w.ws.dacli('task', 'claim', ref)).expectExit(0)
  const id = (await w.ws.dacli('task', 'show', ref, '--json')).json.id as string
  const claimRef = `refs/dacli/claims/${id}`
  const onOrigin = () => git(w.origin, 'for-each-ref', '--format=%(objectname)', claimRef).trim()
  expect(onOrigin()).not.toBe('')
  git(root, 'merge', '-q', '--no-ff', '-m', `Merge branch '${branch}'`, branch)
  git(root, 'push', '-q', 'origin', 'main')
  ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
  const plan = (await w.run('reconcile', '--json')).expectExit(0).json
  expect(plan.findings.filter((f: { class: string }) => f.class === 'landed_not_done')).toMatchObject([
    { subject: ref, safe: true },
  ])
  const applied = (await w.run('reconcile', '--apply-safe', plan.plan_id, '--json')).expectExit(0).json
  expect(applied.applied).toMatchObject([{ class: 'landed_not_done', outcome: 'applied' }])
  expect((await w.ws.dacli('task', 'show', ref, '--json')).json.status).toBe('done')
  expect(onOrigin()).toBe('')
  const after = (await w.run('reconcile', '--json')).expectExit(0).json
  expect(after.findings.filter((f: { class: string }) => f.class === 'claim_on_closed_task')).toEqual([])
})
