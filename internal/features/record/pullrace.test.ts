// record pull and concurrent writers (coordination.md): the pull writes under the
// per-task locks and re-reads under them, so a claim landing during it survives.
// The full count runs in `npm run stress`.

import { expect, test } from 'vitest'
import { pullClaimRace } from '../../testkit/coordination.js'
import { workspace } from '../../testkit/ws.js'

test('a task claim racing a record pull of a diverged record is never lost', { timeout: 120_000 }, async () => {
  const f = await pullClaimRace(await workspace(), 6)
  expect(f.claims_failed).toBe(0)
  expect(f.claims_lost).toBe(0)
  expect(String(f.pull_exit_codes)).toMatch(/^(0×\d+)? ?(5×\d+)?$/)
})
