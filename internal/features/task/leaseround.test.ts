// A lease is never shorter than asked: `expires` (whole seconds) is rounded up, so a claim that exits 0 is live
// when it returns, and its `expires` is always later than its `at`.

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('a sub-second lease taken mid-second ends after the claim, not at its own at', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Write the shim', '--project', 'ledger', '--accept', 'covers batch')
  const now = new Date('2026-12-01T10:00:00.300Z')
  const r = (await ws.ok('task', 'claim', '1', '--lease', '500ms', '--json', { now })).json
  expect(r.task.claim).toMatchObject({ at: '2026-12-01T10:00:00Z', expires: '2026-12-01T10:00:01Z', expired: false })
  const renewed = (await ws.ok('task', 'renew', '1', '--lease', '1h', '--json', { now })).json
  expect(renewed.task.claim).toMatchObject({ expires: '2026-12-01T11:00:01Z', expired: false })
  expect(ws.file(r.task.path)).toContain('claim: {by: a-root, at: 2026-12-01T10:00:00Z, expires: 2026-12-01T11:00:01Z}')
})
