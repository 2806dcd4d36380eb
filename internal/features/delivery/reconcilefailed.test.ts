// reconcile --apply-safe prints its document whatever happens, and a safe fix that failed is exit 1 (as for
// cleanup --apply-safe): here the claims remote refuses to delete the done task's claim ref.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { git, tempDir, workspace } from '../../testkit/ws.js'

test('a safe fix the remote refuses is reported failed and exits 1', async () => {
  const ws = await workspace()
  const origin = tempDir('dacli-origin-')
  git(origin, 'init', '-q', '--bare', '-b', 'main')
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  git(ws.root, 'remote', 'add', 'origin', origin)
  git(ws.root, 'push', '-q', 'origin', 'main')
  await ws.ok('project', 'add', 'p')
  const ref = (await ws.ok('task', 'add', 'Shipped', '--project', 'p', '--accept', 'it works', '--json')).json
    .ref as string
  await ws.ok('task', 'check', ref, '--all')
  await ws.ok('task', 'done', ref)
  const id = (await ws.ok('task', 'show', ref, '--json')).json.id as string
  const claim = `refs/dacli/claims/${id}`
  git(ws.root, 'push', '-q', 'origin', `HEAD:${claim}`)
  // The remote takes pushes but refuses every deletion.
  const hook = path.join(origin, 'hooks', 'pre-receive')
  fs.writeFileSync(hook, '#!/bin/sh\nwhile read old new name; do\n  case "$new" in 0000000*) exit 1;; esac\ndone\n')
  fs.chmodSync(hook, 0o755)

  const plan = (await ws.dacli('reconcile', '--json')).expectExit(0).json
  expect(plan.findings).toMatchObject([{ class: 'claim_on_closed_task', safe: true }])
  const r = (await ws.dacli('reconcile', '--apply-safe', plan.plan_id, '--json')).expectExit(1)
  expect(r.json).toMatchObject({ schema: 'delivery-state/v1', dry_run: false })
  expect(r.json.applied).toMatchObject([{ class: 'claim_on_closed_task', outcome: 'failed' }])
  expect(git(origin, 'for-each-ref', '--format=%(refname)', claim).trim()).toBe(claim)
})
