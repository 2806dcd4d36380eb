// A blank --verify (or MCP `verify: ""`) exits 0 having proved nothing: it was logged as "verified", which the
// task's log promises only for a command that ran. It is a usage error, and nothing is written.

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('a blank --verify is a usage error (2) on task check and accept, and writes nothing', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Write the shim', '--project', 'ledger', '--accept', 'covers batch')
  await ws.ok('task', 'claim', 'ledger/1')
  const before = ws.snapshot()
  for (const blank of ['', ' ', '\n', '\t ']) {
    const check = (await ws.dacli('task', 'check', 'ledger/1', '--all', '--verify', blank, '--json')).expectExit(2)
    expect(check.error.message).toContain('--verify is empty')
    const accept = (await ws.dacli('accept', 'ledger/1', '--verify', blank, '--json')).expectExit(2)
    expect(accept.error.message).toContain('--verify is empty')
  }
  expect(ws.snapshot()).toEqual(before)
  // A real command still verifies.
  const ok = (await ws.dacli('task', 'check', 'ledger/1', '--all', '--verify', 'true', '--json')).expectExit(0).json
  expect(ok.details.verification).toMatchObject({ command: 'true', exit_code: 0 })
})
