// pr wait under GitHub's rate limits, against the loopback fake: a 429 with retry-after and a 403 with the quota
// spent (x-ratelimit-remaining 0, x-ratelimit-reset) are waited out before the request is sent again, and a quota
// spent between polls holds the next poll until its reset however short the interval — counted in requests and
// in time.

import { afterEach, describe, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { expectValid } from '../../testkit/schemas.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

/** A task whose pull request is open and ready (opened through dacli). */
async function readyPull(title: string) {
  const ref = await w.task(title)
  const { dir, branch } = await w.worktree(ref)
  w.commit(dir, `${branch.replace(/\W/g, '_')}.txt`, `${title}\n`, title)
  ;(await w.run('pr', 'open', ref)).expectExit(0)
  w.gh.resetCalls()
  return { ref, branch }
}

const lines = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))

const PULLS = /^\/repos\/acme\/widgets\/pulls$/

describe('pr wait honours rate limits', () => {
  test.each([
    ['429 with retry-after', { status: 429, headers: { 'retry-after': '1' }, message: 'secondary rate limit' }],
    [
      '403 with the quota spent',
      {
        status: 403,
        message: 'API rate limit exceeded',
        headers: () => ({
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 1),
        }),
      },
    ],
  ] as const)('%s: waited out, then the request is sent once more', async (_name, fault) => {
    w = await deliveryWorkspace()
    const { ref } = await readyPull('Rate limited')
    const headers = typeof fault.headers === 'function' ? fault.headers() : fault.headers
    w.gh.fail({ method: 'GET', path: PULLS, status: fault.status, headers, message: fault.message })
    const started = Date.now()
    const r = (await w.run('pr', 'wait', ref, '--interval', '10ms', '--timeout', '30s', '--json')).expectExit(0)
    const took = Date.now() - started
    const out = lines(r.stdout)
    expectValid(out[out.length - 1])
    expect(out[out.length - 1]).toMatchObject({ outcome: 'reached', code: 'ready', polls: 1 })
    const listed = w.gh.calls.filter((c) => c.method === 'GET' && PULLS.test(c.path))
    // The refused listing, then the one retry it took: never a burst of retries.
    expect(listed.map((c) => c.status)).toEqual([fault.status, 200])
    expect(took).toBeGreaterThanOrEqual(900)
    expect(w.gh.writes()).toEqual([])
  })

  test('a quota spent between polls holds the next poll until its reset, whatever the interval', async () => {
    w = await deliveryWorkspace()
    const { ref, branch } = await readyPull('Quota spent')
    w.gh.setChecks(REPO, branch, [{ name: 'ci', status: 'in_progress', conclusion: null }])
    // Every answer from now on says the quota is spent and resets in about a second.
    w.gh.rateLimit = { limit: 5000, remaining: 0, reset: Math.ceil(Date.now() / 1000) + 1 }
    const timer = setInterval(() => {
      if (w.gh.calls.some((c) => c.path.endsWith('/check-runs')))
        w.gh.setChecks(REPO, branch, [{ name: 'ci', status: 'completed', conclusion: 'success' }])
    }, 5)
    const r = (await w.run('pr', 'wait', ref, '--interval', '10ms', '--timeout', '30s', '--json')).expectExit(0)
    clearInterval(timer)
    const out = lines(r.stdout)
    expect(out.map((l) => l.code)).toEqual(['checks_pending', 'ready', 'ready'])
    const done = out[2]
    expectValid(done)
    // Two polls, not the hundreds a 10 ms interval would make in that time; the second after the reset.
    expect(done.polls).toBe(2)
    const [first, second] = done.changes.map((c: { at: string }) => Date.parse(c.at))
    expect(second - first).toBeGreaterThanOrEqual(1000)
    expect(w.gh.calls.filter((c) => c.path.endsWith('/check-runs'))).toHaveLength(2)
  })
})
