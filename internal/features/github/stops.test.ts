// When a push stops sending, and when it goes on (issue 15, item 2): a failure
// that would repeat on every item (the token or the permissions refused, a rate
// limit beyond the retry budget, the budget spent, answers that are not GitHub's
// API, a link off the API's host) fails the item and lists the rest as `not
// sent`; a failure of one item only (a 422) or failures of GitHub that are not
// in a row never stop it. Each case against the loopback fake, bytes on disk
// checked: exactly the created issues are mapped.

import { afterEach, describe, expect, test } from 'vitest'
import type { Fault } from '../../testkit/fakegithub.js'
import { type GitHubWorkspace, githubWorkspace, mappingsOnDisk, seedTasks } from '../../testkit/ghworkspace.js'
import { expectValid } from '../../testkit/schemas.js'

/** The push result of a run with failed items: under --json the error/v1 envelope (exit 1) carries it in details. */
const partial = (r: { error: any }): any => {
  expect(r.error).toMatchObject({ schema: 'error/v1', kind: 'failure', exit_code: 1 })
  return r.error.details.result
}

let w: GitHubWorkspace
afterEach(async () => {
  await w.close()
})

interface Item {
  outcome: string
  reason: string | null
  attempts: number
  issue_number: number | null
}

const mapped = () => [...mappingsOnDisk(w.ws.root, 'alpha').values()].filter((n) => n !== null).sort()
const posts = () => w.gh.writes().filter((c) => c.method === 'POST')

interface Halt {
  name: string
  fault: Fault
  /** The failed item's reason. */
  reason: RegExp
  /** Why the push stopped (default: that reason). */
  stopped?: RegExp
  env?: Record<string, string>
  exhausted?: boolean
}

const halting: Halt[] = [
  { name: 'the token refused (401)', fault: { status: 401, message: 'Bad credentials' }, reason: /rejected the token/ },
  {
    name: 'the permissions refused (403)',
    fault: { status: 403, message: 'Resource not accessible by integration' },
    reason: /refused creating an issue .*\(403: Resource not accessible/,
  },
  {
    name: 'a rate limit beyond the retry budget',
    fault: {
      status: 403,
      message: 'API rate limit exceeded',
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600) },
    },
    reason: /more than the retry budget has left/,
    exhausted: true,
  },
  {
    name: 'the retry budget spent',
    fault: { status: 502 },
    env: { DACLI_GITHUB_RETRY_BUDGET_MS: '0' },
    reason: /502 while creating an issue .*the retry budget is spent/,
    stopped: /^the retry budget is spent$/,
    exhausted: true,
  },
  {
    name: 'an answer that is not GitHub’s API',
    fault: { status: 200, body: '<html>proxy login</html>', contentType: 'text/html' },
    reason: /not GitHub’s API: expected JSON, got an HTML page/,
  },
  {
    name: 'a redirect off the API’s host',
    fault: { status: 307, headers: { location: 'http://192.0.2.1:9/repos/acme/widgets/issues' } },
    reason: /another host \(192\.0\.2\.1:9\)/,
  },
]

describe('github push: when it stops sending, and when it goes on', () => {
  for (const c of halting) {
    test(`stops at ${c.name}: that item failed, the rest not sent, exit 1`, async () => {
      w = await githubWorkspace()
      seedTasks(w.ws, 'alpha', 5)
      w.gh.fail({ method: 'POST', nth: 2, times: Number.POSITIVE_INFINITY, ...c.fault })
      const r = (await w.run('github', 'push', 'alpha', '--json', { env: c.env ?? {} })).expectExit(1)
      expectValid(partial(r))
      expect(r.stdout).toBe('') // the contract's failure: the envelope on stderr, the result in its details
      const items = partial(r).items as Item[]
      expect(items.map((i) => i.outcome)).toEqual(['created', 'failed', 'failed', 'failed', 'failed'])
      expect(items[1]?.reason).toMatch(c.reason)
      expect(items[1]?.attempts).toBe(1)
      if (c.stopped === undefined) expect(partial(r).stopped).toBe(items[1]?.reason)
      else expect(partial(r).stopped).toMatch(c.stopped)
      for (const i of items.slice(2)) {
        expect(i).toMatchObject({ reason: `not sent: ${partial(r).stopped}`, attempts: 0, issue_number: null })
      }
      expect(partial(r).retry.exhausted).toBe(c.exhausted ?? false)
      // Nothing was sent after the failure that would repeat; only the created issue is recorded on disk.
      expect(posts()).toHaveLength(2)
      expect(mapped()).toEqual([1])

      const human = (await w.run('github', 'push', 'alpha', { env: c.env ?? {} })).expectExit(1)
      expect(human.stdout).toMatch(/stopped sending after a failure that would repeat: /)
      expect(human.stdout).toMatch(/ {2}3 tasks were not sent\n/)
    })
  }

  test('a failure that would repeat at the last item: stopped is said, but no "not sent" line for nothing', async () => {
    w = await githubWorkspace()
    seedTasks(w.ws, 'alpha', 2)
    w.gh.fail({ method: 'POST', nth: 2, times: Number.POSITIVE_INFINITY, status: 401, message: 'Bad credentials' })
    const human = (await w.run('github', 'push', 'alpha')).expectExit(1)
    expect(human.stdout).toMatch(/stopped sending after a failure that would repeat: GitHub rejected the token/)
    expect(human.stdout).not.toMatch(/not sent/)
    expect(human.stdout).toMatch(/1 task not pushed\./)
  })

  test('goes on past a failure of one item (422): the others are created, nothing stopped', async () => {
    w = await githubWorkspace()
    seedTasks(w.ws, 'alpha', 4)
    w.gh.fail({ method: 'POST', nth: 2, status: 422, message: 'Validation Failed' })
    const r = (await w.run('github', 'push', 'alpha', '--json')).expectExit(1)
    expectValid(partial(r))
    expect((partial(r).items as Item[]).map((i) => i.outcome)).toEqual(['created', 'failed', 'created', 'created'])
    expect(partial(r).items[1].reason).toMatch(/GitHub answered 422 while creating an issue .*Validation Failed/)
    expect(partial(r).stopped).toBeNull()
    expect(mapped()).toEqual([1, 2, 3])
  })

  test('goes on past GitHub failures that are not in a row, after DACLI_GITHUB_MAX_ATTEMPTS attempts each', async () => {
    w = await githubWorkspace()
    seedTasks(w.ws, 'alpha', 6)
    // Two attempts per item: the 1st, 3rd and 5th items fail both of theirs; the others succeed at once.
    for (const nth of [1, 4, 7]) w.gh.fail({ method: 'POST', nth, times: 2, status: 502 })
    const r = (
      await w.run('github', 'push', 'alpha', '--json', { env: { DACLI_GITHUB_MAX_ATTEMPTS: '2' } })
    ).expectExit(1)
    expectValid(partial(r))
    const items = partial(r).items as Item[]
    expect(items.map((i) => [i.outcome, i.attempts])).toEqual([
      ['failed', 2],
      ['created', 1],
      ['failed', 2],
      ['created', 1],
      ['failed', 2],
      ['created', 1],
    ])
    expect(items[0]?.reason).toMatch(/GitHub answered 502 while creating an issue .*\(2 attempts\)$/)
    expect(partial(r).stopped).toBeNull()
    expect(partial(r).retry).toMatchObject({ max_attempts: 2, retried: 3, exhausted: false })
    expect(posts()).toHaveLength(9)
    expect(mapped()).toEqual([1, 2, 3])
  })
})
