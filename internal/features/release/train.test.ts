// release train against the loopback fake GitHub backed by a real bare repository: the plan by commit
// reachability, a dry run that writes nothing, one promotion pull request (reused, never duplicated), a merge.

import { afterEach, describe, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { expectValid } from '../../testkit/schemas.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

const train = (...more: string[]) =>
  w.run('release', 'train', '--project', 'alpha', '--source', 'main', '--target', 'release', ...more, '--json')

describe('release train', () => {
  test('dry run lists the landed tasks missing from target, writes nothing; apply opens one promotion; merge promotes', async () => {
    w = await deliveryWorkspace()
    git(w.ws.root, 'push', '-q', 'origin', 'main:refs/heads/release')
    const a = await w.landed('Ship the shim')
    await w.task('Not landed yet')
    w.gh.resetCalls()

    const dry = (await train('--dry-run')).expectExit(0)
    expectValid(dry.json)
    expect(dry.json.tasks.map((t: { ref: string }) => t.ref)).toEqual([a])
    expect(dry.json.tasks[0].pr).toMatchObject({ state: 'closed', merged: true })
    expect(dry.json).toMatchObject({ dry_run: true, blockers: [], promotion: { action: 'planned', pr: null } })
    expect(w.gh.writes()).toEqual([])

    const gated = (await train('--dry-run', '--required-check', 'ci', '--required-reviews', '1')).expectExit(0)
    expect(gated.json.required_checks).toEqual([{ name: 'ci', state: 'missing' }])
    expect(gated.json.blockers).toHaveLength(2)

    const opened = (await train('--apply')).expectExit(0)
    expect(opened.json.promotion).toMatchObject({ action: 'opened', pr: { state: 'open' } })
    const number = opened.json.promotion.pr.number
    expect(w.gh.pull(REPO, number).body).toContain('Ship the shim')
    const reused = (await train('--apply')).expectExit(0)
    expect(reused.json.promotion).toMatchObject({ action: 'reused', pr: { number } })
    expect(w.gh.repo(REPO).pr.pulls.filter((p) => p.base === 'release')).toHaveLength(1)

    w.gh.setChecks(REPO, 'main', [{ name: 'ci', status: 'completed', conclusion: 'success' }])
    const merged = (await train('--apply', '--merge', '--required-check', 'ci')).expectExit(0)
    expect(merged.json.merged).toBe(git(w.origin, 'rev-parse', 'release').trim())
    const after = (await train('--dry-run')).expectExit(0)
    expect(after.json.tasks).toEqual([])
  })

  test('usage: exactly one of --dry-run and --apply; --merge needs --apply; required flags; zero requests', async () => {
    w = await deliveryWorkspace()
    expect((await train()).code).toBe(2)
    expect((await train('--dry-run', '--apply')).code).toBe(2)
    expect((await train('--dry-run', '--merge')).code).toBe(2)
    expect((await w.run('release', 'train', '--project', 'alpha', '--dry-run')).code).toBe(2)
    expect(w.gh.calls).toEqual([])
  })
})

test('--merge lands the commit whose checks passed: a source that moved since is 5, nothing merged', async () => {
  w = await deliveryWorkspace()
  git(w.ws.root, 'push', '-q', 'origin', 'main:refs/heads/release')
  await w.landed('Ship the shim')
  w.gh.setChecks(REPO, 'main', [{ name: 'ci', status: 'completed', conclusion: 'success' }])
  // GitHub's main gains a commit nobody checked after this clone fetched it: the fake reads a copy one commit ahead.
  const ahead = `${w.origin}-ahead`
  git(w.ws.root, 'clone', '-q', '--bare', w.origin, ahead)
  const work = `${w.origin}-work`
  git(w.ws.root, 'clone', '-q', ahead, work)
  w.commit(work, 'untested.txt', 'untested\n')
  git(work, 'push', '-q', 'origin', 'main')
  w.gh.useGit(REPO, ahead)
  const release = git(ahead, 'rev-parse', 'release').trim()
  const r = (await train('--apply', '--merge', '--required-check', 'ci')).expectExit(5)
  expect(r.error.message).toContain('nothing merged')
  expect(git(ahead, 'rev-parse', 'release').trim()).toBe(release)
})
