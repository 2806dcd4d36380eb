// `overview --label L`: the delivery states are those of the labelled tasks, like the counts and the ready tasks.

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('overview --label filters delivery too', async () => {
  const ws = await workspace({ git: false })
  ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'ui', '--project', 'ledger', '--accept', 'x', '--label', 'ui')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'api', '--project', 'ledger', '--accept', 'x', '--label', 'api')).expectExit(0)
  ;(await ws.dacli('task', 'claim', 'ledger/2')).expectExit(0)
  const doc = (await ws.dacli('overview', '--label', 'ui', '--json')).expectExit(0).json
  expect(doc.counts).toMatchObject({ open: 1, active: 0 })
  expect(doc.delivery).toHaveLength(1)
  expect(doc.delivery[0].states).toMatchObject({ open: 1, claimed: 0 })
  const all = (await ws.dacli('overview', '--json')).expectExit(0).json
  expect(all.delivery[0].states).toMatchObject({ open: 1, claimed: 1 })
})
