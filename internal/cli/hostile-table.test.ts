// The hostile-workspace suite over the command table (issue 28, "Tests"; internal/testkit/hostiletable.ts says what
// it checks): for links where dacli writes, FIFOs in events/ and agents/, a planted root key, a revived identity and
// a task whose worktree.path points outside, every command of the table — its happy-path argv from the scenario
// table of internal/cli/invariants.test.ts — runs in process, one after another on one copy per condition
// (destructive commands last). The large variant (each command on a fresh copy, more conditions) is in
// bench/stress.test.ts behind STRESS=1.

import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CONDITIONS, hostileTable, ORDER, SCENARIOS, type TableBase, tableBase } from '../testkit/hostiletable.js'

let base: TableBase
beforeAll(async () => {
  base = await tableBase()
}, 120_000)
afterAll(async () => {
  await base?.close()
})

describe('the hostile-workspace suite over the command table', () => {
  test('the scenario table is read and covers the table', () => {
    expect(ORDER.filter((p) => SCENARIOS[p] === undefined)).toEqual([])
  })

  test.each(Object.entries(CONDITIONS))(
    '%s: every command ends with a known code, writes nothing outside, runs nothing, changes nothing when it refuses',
    async (name, plant) => {
      const r = await hostileTable(base, name, plant, { isolated: false })
      expect(r.failures).toEqual([])
    },
    300_000,
  )
})
