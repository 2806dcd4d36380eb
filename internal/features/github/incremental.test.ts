// `github pull` asks GitHub only for what changed since its last listing (GitHub's `since`, from the mark kept in
// `.dacli/cache/github/`): a second pull with nothing changed is one request, whatever the repository's size.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { type GitHubWorkspace, githubWorkspace } from '../../testkit/ghworkspace.js'

let w: GitHubWorkspace
afterEach(async () => {
  await w?.close()
})

const issueLists = () => w.gh.calls.filter((c) => c.method === 'GET' && c.path === '/repos/acme/widgets/issues')

test('a second pull with nothing changed makes one request; what changed since is seen; no cache, every issue', async () => {
  w = await githubWorkspace()
  // Issues last changed an hour ago (the mark is a minute before the listing began: what changed within that minute
  // is listed again, which costs nothing more than the one page it fits in).
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString()
  for (let n = 1; n <= 250; n++) {
    w.gh.addIssue('acme/widgets', { title: `Ticket ${n}`, body: 'Reported.', created_at: hourAgo, updated_at: hourAgo })
  }
  const plan = async () => (await w.run('github', 'pull', 'alpha', '--dry-run', '--json')).expectExit(0).json
  w.gh.resetCalls()
  const first = await plan()
  expect(first.counts.create).toBe(250)
  expect(issueLists()).toHaveLength(3) // every issue, 100 a page
  expect(issueLists()[0]?.query.since).toBeUndefined()
  const file = path.join(w.ws.root, '.dacli', 'cache', 'github', 'acme', 'widgets.json')
  const sealed = fs.readFileSync(file, 'utf8')
  const [seal, body] = [sealed.slice(0, sealed.indexOf('\n') + 1), sealed.slice(sealed.indexOf('\n') + 1)]
  const kept = JSON.parse(body)
  expect(kept.issues).toHaveLength(250)

  // Nothing changed: one request, listing from the mark; the same plan.
  w.gh.resetCalls()
  expect(await plan()).toEqual(first)
  expect(w.gh.calls).toHaveLength(1)
  expect(issueLists()[0]?.query.since).toBe(kept.mark)

  // An issue closed and one opened on GitHub since: both seen, still one request.
  Object.assign(w.gh.repo('acme/widgets').issues[4]!, { state: 'closed', updated_at: new Date().toISOString() })
  w.gh.addIssue('acme/widgets', { title: 'Ticket 251', body: 'New.' })
  w.gh.resetCalls()
  const after = await plan()
  expect(w.gh.calls).toHaveLength(1)
  expect(after.counts).toMatchObject({ create: 250, skipped: 1 })

  // The real pull applies the same plan; the next pull, with nothing changed, is one request again.
  ;(await w.run('github', 'pull', 'alpha')).expectExit(0)
  w.gh.resetCalls()
  expect((await plan()).counts).toMatchObject({ create: 0, already_mapped: 250 })
  expect(w.gh.calls).toHaveLength(1)

  // A cache that is not one (torn, of another repository, edited by hand under the seal this clone's dacli wrote, or
  // well formed but not sealed) is a miss: every issue is listed again, and nothing planted in it is planned.
  const forged = {
    ...kept,
    issues: kept.issues.map((i: { number: number }) => ({ ...i, title: `FORGED ${i.number}` })),
  }
  for (const bad of [
    '{"format":1',
    JSON.stringify({ ...kept, repo: 'acme/other' }),
    seal + JSON.stringify(forged),
    JSON.stringify(forged),
  ]) {
    fs.writeFileSync(file, bad)
    w.gh.resetCalls()
    const again = await plan()
    expect(again.counts).toMatchObject({ already_mapped: 250 })
    expect(JSON.stringify(again)).not.toContain('FORGED')
    expect(issueLists()).toHaveLength(3)
    expect(issueLists()[0]?.query.since).toBeUndefined()
  }
})

test('an issue deleted on GitHub stays held by the incremental listing; --full lists every issue and drops it', async () => {
  w = await githubWorkspace()
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString()
  for (let n = 1; n <= 150; n++) {
    w.gh.addIssue('acme/widgets', { title: `Ticket ${n}`, body: 'Reported.', created_at: hourAgo, updated_at: hourAgo })
  }
  const plan = async (...extra: string[]) =>
    (await w.run('github', 'pull', 'alpha', '--dry-run', '--json', ...extra)).expectExit(0).json
  expect((await plan()).counts.create).toBe(150)
  const file = path.join(w.ws.root, '.dacli', 'cache', 'github', 'acme', 'widgets.json')
  // The cache's body, after its seal's line (store/cachekey.ts).
  const numbers = () =>
    JSON.parse(fs.readFileSync(file, 'utf8').replace(/^.*\n/, '')).issues.map((i: { number: number }) => i.number)

  // Deleted on GitHub (no `since` listing reports it): the incremental pull still holds it, in one request.
  const issues = w.gh.repo('acme/widgets').issues
  issues.splice(
    issues.findIndex((i) => i.number === 7),
    1,
  )
  w.gh.resetCalls()
  expect((await plan()).counts.create).toBe(150)
  expect(w.gh.calls).toHaveLength(1)
  expect(numbers()).toContain(7)

  // --full lists every issue again (no `since`), plans without it, and the cache on disk no longer holds it.
  w.gh.resetCalls()
  const full = await plan('--full')
  expect(full.counts.create).toBe(149)
  expect(issueLists()).toHaveLength(2)
  expect(issueLists().every((c) => c.query.since === undefined)).toBe(true)
  expect(numbers()).toHaveLength(149)
  expect(numbers()).not.toContain(7)

  // And the pull after it is incremental again: one request, the same plan.
  w.gh.resetCalls()
  expect((await plan()).counts.create).toBe(149)
  expect(w.gh.calls).toHaveLength(1)
  expect(issueLists()[0]?.query.since).toBeDefined()
})
