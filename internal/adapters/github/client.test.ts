import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { exitCodeOf } from '../../clikit/exit.js'
import { FakeGitHub } from '../../testkit/fakegithub.js'
import { type ClientOptions, createClient, Tally } from './client.js'
import { redact } from './redact.js'

let fake: FakeGitHub

beforeEach(async () => {
  fake = await FakeGitHub.start()
  fake.addRepo('acme/widgets')
})
afterEach(async () => {
  await fake.close()
})

const client = (over: Partial<ClientOptions> = {}) =>
  createClient({
    apiUrl: fake.url,
    token: fake.token,
    timeoutMs: 5_000,
    writeIntervalMs: 0,
    userAgent: 'dacli-test',
    retry: { maxAttempts: 3, backoffMs: 10, budgetMs: 60_000 },
    ...over,
  })
const attempts = (maxAttempts: number) => ({ retry: { maxAttempts, backoffMs: 10, budgetMs: 60_000 } })
const fields = (title: string) => ({ title, body: `body of ${title} <!-- m:${title} -->`, labels: [] })

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p
  } catch (e) {
    return e as Error
  }
  throw new Error('expected the call to fail')
}

describe('the GitHub client against the fake', () => {
  test('lists every issue across Link pages, ascending, without pull requests', async () => {
    for (let i = 1; i <= 250; i++) fake.addIssue('acme/widgets', { title: `Issue ${i}`, pull_request: i % 50 === 0 })
    fake.repo('acme/widgets').issues[9]!.state = 'closed'
    const pages: number[] = []
    const issues = await client().listIssues('acme/widgets', (n) => pages.push(n))
    expect(issues).toHaveLength(245)
    expect(issues.map((i) => i.number)).toEqual([...issues.map((i) => i.number)].sort((a, b) => a - b))
    expect(issues.find((i) => i.number === 10)?.state).toBe('closed')
    const lists = fake.calls.filter((c) => c.path === '/repos/acme/widgets/issues')
    expect(lists).toHaveLength(3)
    expect(lists.every((c) => c.query.state === 'all' && c.query.per_page === '100')).toBe(true)
    expect(pages).toEqual([100, 200, 250])
    expect(lists[0]?.authorization).toBe(`token ${fake.token}`)
  })

  test('repository visibility and the rate limit', async () => {
    fake.addRepo('acme/public-site', 'public')
    const c = client()
    expect(await c.repository('ACME/Widgets')).toEqual({ full_name: 'acme/widgets', visibility: 'private' })
    expect((await c.repository('acme/public-site')).visibility).toBe('public')
    const rl = await c.rateLimit()
    expect(rl.limit).toBe(5000)
    expect(rl.remaining).toBeLessThan(5000)
    expect(rl.reset).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  })

  test('a 5xx on a read is retried with backoff, and the attempts are counted', async () => {
    fake.fail({ method: 'GET', path: /\/issues$/, status: 502, times: 2 })
    const c = client()
    expect(await c.listIssues('acme/widgets')).toEqual([])
    expect(fake.calls.filter((x) => x.path.endsWith('/issues')).map((x) => x.status)).toEqual([502, 502, 200])
    expect(c.retries()).toMatchObject({ max_attempts: 3, retried: 2, exhausted: false })
    expect(c.retries().waited_ms).toBeGreaterThan(0)
    expect(c.quota()).toMatchObject({ limit: 5000, remaining: expect.any(Number) })

    // Past the attempts: exit 1, saying how many were made.
    fake.fail({ method: 'GET', path: /\/issues$/, status: 500, times: 3 })
    const e = await failure(c.listIssues('acme/widgets'))
    expect(exitCodeOf(e)).toBe(1)
    expect(e.message).toMatch(/GitHub answered 500 while listing the issues of acme\/widgets: .*\(3 attempts\)$/)
  })

  test('a create whose answer was lost is found by its marker, not sent again', async () => {
    fake.fail({ method: 'POST', status: 502, afterApply: true })
    const tally = new Tally()
    const r = await client().createIssue('acme/widgets', fields('T'), { marker: '<!-- m:T -->', tally })
    expect(r).toMatchObject({ adopted: true, issue: { number: 1, title: 'T' } })
    expect(fake.writes()).toHaveLength(1)
    expect(fake.repo('acme/widgets').issues).toHaveLength(1)
    expect(tally.attempts).toBe(1)
    // The proof read only the issues updated since shortly before the create, by GitHub's clock.
    const proof = fake.calls.find((c) => c.method === 'GET' && c.path.endsWith('/issues'))
    expect(Date.parse(proof?.query.since ?? '')).toBeGreaterThan(Date.now() - 5 * 60_000)
  })

  test('a create that failed before GitHub acted is sent again once the proof finds nothing', async () => {
    fake.addIssue('acme/widgets', { title: 'Older', body: 'no marker here' })
    fake.fail({ method: 'POST', status: 502, times: 2 })
    const tally = new Tally()
    const r = await client().createIssue('acme/widgets', fields('T'), { marker: '<!-- m:T -->', tally })
    expect(r).toMatchObject({ adopted: false, issue: { number: 2, title: 'T' } })
    expect(fake.writes().map((c) => c.status)).toEqual([502, 502, 201])
    expect(tally.attempts).toBe(3)
    expect(fake.repo('acme/widgets').issues).toHaveLength(2)
  })

  test('a create is never sent again when the proof cannot be read', async () => {
    fake.fail({ method: 'POST', status: 503 })
    fake.fail({ method: 'GET', path: /\/issues$/, status: 500, times: 10 })
    const e = await failure(client().createIssue('acme/widgets', fields('T'), { marker: '<!-- m:T -->' }))
    expect(e.message).toMatch(/GitHub answered 503 while creating an issue .*could not check whether it took effect/)
    expect(fake.writes()).toHaveLength(1)
  })

  test('a secondary rate limit (429 + retry-after) is waited out and retried', async () => {
    fake.fail({
      method: 'PATCH',
      status: 429,
      headers: { 'retry-after': '1' },
      message: 'You have exceeded a secondary rate limit',
    })
    fake.addIssue('acme/widgets', { title: 'A' })
    const waits: string[] = []
    const t0 = Date.now()
    const i = await client({ onWait: (ms, why) => waits.push(`${why} ${ms}`) }).updateIssue('acme/widgets', 1, {
      state: 'closed',
    })
    expect(i.state).toBe('closed')
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900)
    expect(waits[0]).toMatch(/^GitHub secondary rate limit on PATCH \/repos\/.* 1000$/)
    expect(fake.writes().map((c) => c.status)).toEqual([429, 200])
  })

  test('a primary rate limit (403, remaining 0) waits until the reset', async () => {
    const reset = Math.floor(Date.now() / 1000) + 1
    fake.fail({
      method: 'GET',
      path: /^\/repos\/acme\/widgets$/,
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      message: 'API rate limit exceeded',
    })
    const waits: number[] = []
    const c = client({ onWait: (ms) => waits.push(ms) })
    expect((await c.repository('acme/widgets')).full_name).toBe('acme/widgets')
    // Until one second past the reset, by GitHub's clock (the Date header), not ours.
    expect(waits).toHaveLength(1)
    expect(waits[0]).toBeGreaterThan(500)
    expect(waits[0]).toBeLessThanOrEqual(3_000)
  })

  test('a rate limit longer than the retry budget is not waited for: exit 1 naming the reset and the budget', async () => {
    const reset = Math.floor(Date.now() / 1000) + 3600
    fake.fail({
      status: 403,
      times: 5,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      message: 'API rate limit exceeded',
    })
    const t0 = Date.now()
    const c = client()
    const e = await failure(c.repository('acme/widgets'))
    // Not an hour: no wait was started at all (waited_ms 0 below); the bound only guards against a hang.
    expect(Date.now() - t0).toBeLessThan(30_000)
    expect(exitCodeOf(e)).toBe(1)
    expect(e.message).toMatch(
      /the limit resets at \d{4}-.*GitHub asks to wait \d+s, more than the retry budget has left/,
    )
    expect(fake.calls).toHaveLength(1)
    expect(c.retries()).toMatchObject({ exhausted: true, retried: 0, waited_ms: 0 })
  })

  test('a plain 429 with retry-after is honoured on any request', async () => {
    fake.fail({ method: 'GET', path: /\/issues$/, status: 429, headers: { 'retry-after': '1' }, message: 'Too many' })
    const t0 = Date.now()
    expect(await client().listIssues('acme/widgets')).toEqual([])
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950)
    expect(fake.calls.map((c) => c.status)).toEqual([429, 200])
  })

  test('every request has a timeout: a hung server is a clear failure, not a hang', async () => {
    // The server would answer after 30 s; two attempts of 200 ms each end long before that, even on a
    // loaded machine (the bound separates "timed out" from "waited for the answer", not fast from slow).
    fake.fail({ delayMs: 30_000, times: 10 })
    const t0 = Date.now()
    const e = await failure(client({ timeoutMs: 200, ...attempts(2) }).repository('acme/widgets'))
    expect(Date.now() - t0).toBeLessThan(20_000)
    expect(exitCodeOf(e)).toBe(1)
    expect(e.message).toMatch(/unreachable/)
    expect(fake.calls).toHaveLength(2)
  })

  test('an unreachable API is exit 1', async () => {
    const url = fake.url
    await fake.close()
    const e = await failure(client({ apiUrl: url, ...attempts(1) }).rateLimit())
    expect(exitCodeOf(e)).toBe(1)
    expect(e.message).toContain(`GitHub API at ${url} is unreachable`)
  })

  test('401 and 404 are classified, and the token never appears in a message', async () => {
    const bad = client({ token: 'ghp_wrongTokenWrongTokenWrong1234' })
    const e401 = await failure(bad.repository('acme/widgets'))
    expect(exitCodeOf(e401)).toBe(1)
    expect(e401.message).toMatch(/rejected the token \(401\)/)
    const e404 = await failure(client().repository('acme/nope'))
    expect(exitCodeOf(e404)).toBe(4)

    // A server that echoes the credential back in its error text.
    fake.fail({ status: 500, times: 5, message: `internal error for ${fake.token} (also ghs_${'x'.repeat(30)})` })
    const echoed = await failure(client(attempts(1)).repository('acme/widgets'))
    expect(echoed.message).toContain('internal error for [redacted]')
    expect(echoed.message).not.toContain(fake.token)
    expect(echoed.message).not.toContain('ghs_xxx')
    expect(JSON.stringify((echoed as unknown as { details: unknown }).details)).not.toContain(fake.token)
  })

  test('the token never rides along in why a create gave up (the proof read that failed)', async () => {
    fake.fail({ method: 'POST', status: 502 })
    fake.fail({ method: 'GET', path: /\/issues$/, status: 404, times: 10, message: `no such thing for ${fake.token}` })
    const e = await failure(client().createIssue('acme/widgets', fields('T'), { marker: '<!-- m:T -->' }))
    expect(e.message).toMatch(/could not check whether it took effect: .*no such thing for \[redacted\]/)
    expect(e.message).not.toContain(fake.token)
    expect(fake.writes()).toHaveLength(1)
  })

  test('text from GitHub never carries the token in use: issue fields are masked, a repository name with it is refused', async () => {
    const leak = (s: string) => `${s} ${fake.token}`
    fake.addIssue('acme/widgets', { title: leak('T'), body: leak('body'), labels: [leak('l')], user: fake.token })
    const c = client()
    const [listed] = await c.listIssues('acme/widgets')
    const created = await c.createIssue('acme/widgets', fields(leak('N')), { marker: '<!-- m:N -->' })
    const updated = await c.updateIssue('acme/widgets', 1, { title: leak('U') })
    for (const i of [listed, created.issue, updated]) expect(JSON.stringify(i)).not.toContain(fake.token)
    expect(listed).toMatchObject({ title: 'T [redacted]', body: 'body [redacted]', labels: ['l [redacted]'] })
    expect(listed?.author).toBe('[redacted]')
    expect(updated.title).toBe('U [redacted]')

    fake.fail({
      path: /^\/repos\/acme\/widgets$/,
      status: 200,
      body: JSON.stringify({ full_name: `acme/${fake.token}`, visibility: 'private' }),
    })
    const e = await failure(c.repository('acme/widgets'))
    expect(e.message).toMatch(/not GitHub’s API: the repository name carries the token/)
    expect(e.message).not.toContain(fake.token)
  })

  test('a Link that loops or runs on past the end is refused, not followed forever', async () => {
    const self = `<${fake.url}/repos/acme/widgets/issues?state=all&per_page=100&page=1>; rel="next"`
    const one = JSON.stringify([{ number: 1, title: 'x', state: 'open', labels: [], user: { login: 'a' } }])
    fake.fail({ method: 'GET', path: /\/issues$/, status: 200, body: one, headers: { link: self }, times: 50 })
    const loop = await failure(client().listIssues('acme/widgets'))
    expect(exitCodeOf(loop)).toBe(1)
    expect(loop.message).toMatch(/not GitHub’s API: .*links back to a page already read/)
    expect(fake.calls.length).toBeLessThanOrEqual(2)

    fake.clearFaults()
    fake.resetCalls()
    const on = `<${fake.url}/repos/acme/widgets/issues?state=all&per_page=100&page=7>; rel="next"`
    fake.fail({ method: 'GET', path: /\/issues$/, status: 200, body: '[]', headers: { link: on }, times: 50 })
    const empty = await failure(client().listIssues('acme/widgets'))
    expect(empty.message).toMatch(/not GitHub’s API: .*an empty page .* links to a further page/)
    expect(fake.calls).toHaveLength(1)
  })

  test('redact masks the given secrets and anything shaped like a GitHub token', () => {
    expect(redact('a secret-value-123 b', ['secret-value-123'])).toBe('a [redacted] b')
    expect(redact(`x github_pat_${'A1_'.repeat(10)} y`)).toBe('x [redacted] y')
    expect(redact('short tok stays', ['tok'])).toBe('short tok stays')
  })
})
