// The retry policy on its own (no network): the backoff doubles from its first
// wait up to a minute, with equal jitter; a rate limit waits what GitHub asks;
// the attempts per request and the waits of a run are bounded, and a wait that
// does not fit the budget is never started.

import { describe, expect, test } from 'vitest'
import { GaveUpError, type Trouble } from './failure.js'
import { Retrier } from './retry.js'

const transient: Trouble = { kind: 'transient', status: 502 }

/** A policy whose jitter is fixed at `r` (0: half the backoff, 1: all of it), recording its sleeps. */
function policy(r: number, settings = { maxAttempts: 20, backoffMs: 1_000, budgetMs: 10_000_000 }) {
  const slept: number[] = []
  const retrier = new Retrier(settings, { sleep: async (ms) => void slept.push(ms), random: () => r })
  return { retrier, slept }
}

/** A server error as Octokit reports one. */
const serverError = () => Object.assign(new Error('Server Error'), { status: 502, response: { headers: {} } })

describe('the retry policy', () => {
  test('the backoff doubles from the first wait and stops growing at a minute, jittered between half and all', () => {
    const full = [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]
    for (const r of [0, 0.5, 1]) {
      const { retrier } = policy(r)
      const waits = full.map((_, i) => (retrier.waitFor(transient, i + 1) as { waitMs: number }).waitMs)
      expect(waits).toEqual(full.map((f) => Math.round(f / 2 + (r * f) / 2)))
    }
  })

  test('a rate limit waits what GitHub asks; a silent secondary limit a minute; a silent primary one backs off', () => {
    const { retrier } = policy(1)
    expect(retrier.waitFor({ kind: 'rate_limit', status: 429, waitMs: 7_000, secondary: true }, 1)).toEqual({
      waitMs: 7_000,
    })
    expect(retrier.waitFor({ kind: 'rate_limit', status: 403, waitMs: null, secondary: true }, 3)).toEqual({
      waitMs: 60_000,
    })
    expect(retrier.waitFor({ kind: 'rate_limit', status: 403, waitMs: null, secondary: false }, 2)).toEqual({
      waitMs: 2_000,
    })
    expect(retrier.waitFor({ kind: 'final', status: 422 }, 1)).toEqual({ stop: null })
  })

  test('at most maxAttempts attempts per request; the waits of the run together stay within the budget', async () => {
    const { retrier, slept } = policy(1, { maxAttempts: 3, backoffMs: 100, budgetMs: 800 })
    let calls = 0
    const failing = () => {
      calls++
      return Promise.reject(serverError())
    }
    const first = await retrier.run(failing, { idempotent: true }).catch((e: unknown) => e)
    expect(first).toBeInstanceOf(GaveUpError)
    expect(first).toMatchObject({ attempts: 3, why: null })
    expect([calls, slept]).toEqual([3, [100, 200]])

    // 500 ms of the budget are left: 100 and 200 fit; then 100 does, and the 200 after it would not — and is not slept.
    calls = 0
    const second = await retrier.run(failing, { idempotent: true }).catch((e: unknown) => e)
    expect(second).toMatchObject({ attempts: 3, why: null })
    const third = await retrier.run(failing, { idempotent: true }).catch((e: unknown) => e)
    expect(third).toMatchObject({ attempts: 2, why: 'the retry budget is spent' })
    expect(slept).toEqual([100, 200, 100, 200, 100])
    expect(retrier.report()).toEqual({
      max_attempts: 3,
      budget_ms: 800,
      waited_ms: 700,
      retried: 5,
      exhausted: true,
    })
  })

  test('a write that is not idempotent is sent again only through its proof, and only when the proof finds nothing', async () => {
    const { retrier } = policy(0)
    let sent = 0
    const create = () => {
      sent++
      return sent < 3 ? Promise.reject(serverError()) : Promise.resolve('created')
    }
    let proofs = 0
    const found = await retrier.run(create, { idempotent: false, proof: async () => (++proofs === 2 ? 'found' : null) })
    expect([found, sent, proofs]).toEqual(['found', 2, 2])
    // Without a proof, a failure that may have taken effect is never sent again.
    let once = 0
    const write = () => {
      once++
      return Promise.reject(serverError())
    }
    const noProof = await retrier.run(write, { idempotent: false }).catch((e: unknown) => e)
    expect(noProof).toMatchObject({ attempts: 1, why: null })
    expect(once).toBe(1)
  })
})
