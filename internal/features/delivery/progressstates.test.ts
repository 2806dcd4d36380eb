// Delivery progress: every task of a project stands in exactly one delivery state, and a done task is `landed`
// even without a `landed <sha>` log line (closed with no branch, or with --allow-unlanded).

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('every done task is counted once, as landed, with or without a landed line', async () => {
  const ws = await workspace({ git: false })
  ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
  for (const t of ['a', 'b', 'c'])
    (await ws.dacli('task', 'add', t, '--project', 'ledger', '--accept', 'x')).expectExit(0)
  ;(await ws.dacli('task', 'check', 'ledger/1', '--all')).expectExit(0)
  ;(await ws.dacli('task', 'done', 'ledger/1')).expectExit(0)
  ;(await ws.dacli('task', 'claim', 'ledger/2')).expectExit(0)
  const doc = (await ws.dacli('overview', '--json')).expectExit(0).json
  expect(doc.counts).toMatchObject({ open: 1, active: 1, done: 1 })
  const states = doc.delivery[0].states
  expect(states).toEqual({ open: 1, claimed: 1, pr_open: 0, ready: null, landed: 1, released: null })
  expect((await ws.dacli('metrics', '--json')).expectExit(0).json.delivery[0].states).toEqual(states)
})
