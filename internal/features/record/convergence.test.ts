// Three real clones of a bare remote kept converged by `record sync` (issue 29), at a size `npm test` affords;
// the full size (3 clones × 50 rounds, 50 kills) is in bench/stress.test.ts (`npm run stress`). A failure names
// its seed: CONVERGENCE_SEED=<seed> replays it.

import { describe, expect, test } from 'vitest'
import { convergenceRun, seedFromEnv, syncKills } from '../../testkit/convergence.js'

describe('randomized convergence: 3 clones, random claims, ticks, edits, adds and status moves, random syncs', () => {
  test.each([
    ['ignored', 'file', 'disjoint', 'local'],
    ['committed', 'file', 'contended', 'local'],
    ['committed', 'http', 'contended', 'remote'],
  ] as const)(
    '.dacli/ %s, over %s, %s changes, %s claims: one tree in every clone, every task once, decisions only where both sides changed',
    { timeout: 240_000 },
    async (workflow, transport, mode, claims) => {
      const {
        seed,
        figures: f,
        failures,
      } = await convergenceRun({
        seed: seedFromEnv(),
        rounds: 5,
        workflow,
        transport,
        mode,
        arbiter: claims === 'remote',
      })
      expect(failures, `seed ${seed}`).toEqual([])
      expect(f).toMatchObject({
        files_differing_between_clones: 0,
        tasks_lost: 0,
        tasks_duplicated: 0,
        torn_task_files: 0,
        conflict_copies_in_status_folders: 0,
      })
      if (mode === 'disjoint') expect(f.open_decisions_at_the_end, `seed ${seed}`).toBe(0)
      expect(f.claims_won_while_another_clone_held).toBe(0)
    },
  )
})

test('record sync killed with SIGKILL at random points: the clone opens, nothing is lost, the next sync converges', {
  timeout: 240_000,
}, async () => {
  const { seed, figures: f, failures } = await syncKills({ trials: 8, seed: seedFromEnv() })
  expect(failures, `seed ${seed}`).toEqual([])
  expect(f.files_differing_at_the_end).toBe(0)
})
