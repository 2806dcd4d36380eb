// The large fault test of issue 15: a 10% random fault rate (500, 502, timeout,
// 429) over 300 tasks converges in at most 2 runs with no duplicate marker. Its
// 1,000-task version runs in `npm run stress` (bench/stress.test.ts). Its own
// file, so it runs beside faults.test.ts.

import { describe, expect, test } from 'vitest'
import { githubChaos } from '../../testkit/ghstress.js'

describe('github push under random faults', () => {
  test('10% random faults over 300 tasks converge in at most 2 runs, with no duplicate marker', {
    timeout: 300_000,
  }, async () => {
    const f = await githubChaos({ tasks: 300, rate: 0.1, seed: 15, maxRuns: 2 })
    expect(f.runs_to_converge).toBeGreaterThanOrEqual(1)
    expect(f.runs_to_converge).toBeLessThanOrEqual(2)
    expect(f).toMatchObject({
      runs_without_a_result: 0,
      duplicates: 0,
      tasks_not_mapped_to_their_issue: 0,
      issues_in_the_wrong_state: 0,
      writes_once_converged: 0,
    })
    expect(f.faults_injected).toBeGreaterThan(30)
    expect(f.requests_sent_again).toBeGreaterThan(0)
  })
})
