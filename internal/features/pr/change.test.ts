// pr wait, pr open and pr land against the loopback fake GitHub backed by a real bare repository.

import { afterEach, describe, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { expectValid } from '../../testkit/schemas.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

describe('pr open', () => {
  test('pushes the branch and opens a pull request carrying the marker; again → reused, no second write', async () => {
    w = await deliveryWorkspace()
    const { ref, branch, sha } = await w.worked('Write the shim')
    const r = (await w.run('pr', 'open', ref, '--json')).expectExit(0)
    expectValid(r.json)
    expect(r.json).toMatchObject({
      action: 'opened',
      pushed: 'pushed',
      pr: { head: branch, base: 'main', head_sha: sha },
    })
    expect(git(w.origin, 'rev-parse', branch).trim()).toBe(sha)
    const id = (await w.ws.dacli('task', 'show', ref, '--json')).json.id
    const pull = w.gh.pull(REPO, r.json.pr.number)
    expect(pull.body).toContain(`<!-- dacli:${id} ws:`)
    expect(pull.body).toContain('- [ ] it works')
    const file = (await w.ws.dacli('task', 'show', ref, '--json')).json.path as string
    expect(w.ws.file(file)).toContain(`pr-opened #${r.json.pr.number} ${r.json.pr.url}`)
    w.gh.resetCalls()
    const again = (await w.run('pr', 'open', ref, '--json')).expectExit(0)
    expect(again.json).toMatchObject({ action: 'reused', pushed: 'up-to-date', pr: { number: r.json.pr.number } })
    expect(w.gh.writes()).toEqual([])
    expect(w.gh.repo(REPO).pr.pulls).toHaveLength(1)
  })

  test('a task without a branch or a pull request is 2 with no write', async () => {
    w = await deliveryWorkspace()
    const ref = await w.task('No branch')
    const r = (await w.run('pr', 'open', ref, '--json')).expectExit(2)
    expect(r.error.message).toContain('has no branch')
    expect(w.gh.writes()).toEqual([])
  })
})

describe('pr wait', () => {
  test('across a state change: checks_pending → ready, one line per change under --json, exit 0', async () => {
    w = await deliveryWorkspace()
    const { ref, branch } = await w.worked('Wait for me')
    // The human answer says what comes next: waiting for the pull request to be ready.
    expect((await w.run('pr', 'open', ref)).expectExit(0).stdout).toContain(`next: dacli pr wait ${ref} --until ready`)
    w.gh.resetCalls()
    w.gh.setChecks(REPO, branch, [{ name: 'ci', status: 'in_progress', conclusion: null }])
    // The checks finish once dacli has seen them pending twice.
    const timer = setInterval(() => {
      if (w.gh.calls.filter((c) => c.path.endsWith('/check-runs')).length >= 2)
        w.gh.setChecks(REPO, branch, [{ name: 'ci', status: 'completed', conclusion: 'success' }])
    }, 5)
    const r = (await w.run('pr', 'wait', ref, '--interval', '30ms', '--timeout', '20s', '--json')).expectExit(0)
    clearInterval(timer)
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines.map((l) => l.schema)).toEqual(['pr-diagnosis/v1', 'pr-diagnosis/v1', 'pr-wait/v1'])
    expect(lines.map((l) => l.code)).toEqual(['checks_pending', 'ready', 'ready'])
    for (const l of lines) expectValid(l)
    expect(lines[2]).toMatchObject({ outcome: 'reached', until: 'ready' })
    expect(w.gh.writes()).toEqual([])
  })

  test('timeout → 1; closed → 5; --until merged reached after a merge', async () => {
    w = await deliveryWorkspace()
    const { ref } = await w.worked('Slow work')
    const opened = (await w.run('pr', 'open', ref, '--draft', '--json')).expectExit(0).json
    const t = (await w.run('pr', 'wait', ref, '--interval', '10ms', '--timeout', '80ms', '--json')).expectExit(1)
    const last = JSON.parse(t.stdout.trimEnd().split('\n').pop() as string)
    expect(last).toMatchObject({ schema: 'pr-wait/v1', outcome: 'timeout', code: 'draft' })
    const human = (await w.run('pr', 'wait', ref, '--interval', '10ms', '--timeout', '30ms')).expectExit(1)
    expect(human.stdout).toContain('timed out waiting for ready')

    w.gh.pull(REPO, opened.pr.number).state = 'closed'
    const dead = (await w.run('pr', 'wait', ref, '--interval', '10ms', '--timeout', '5s', '--json')).expectExit(5)
    expect(JSON.parse(dead.stdout.trimEnd().split('\n').pop() as string).outcome).toBe('unreachable')

    const p = w.gh.pull(REPO, opened.pr.number)
    p.state = 'closed'
    p.merged = true
    p.merged_at = new Date().toISOString()
    ;(await w.run('pr', 'wait', ref, '--until', 'merged', '--interval', '10ms', '--json')).expectExit(0)
  })

  test('bad flags are 2 before any request', async () => {
    w = await deliveryWorkspace()
    const ref = await w.task('x')
    expect((await w.run('pr', 'wait', ref, '--until', 'shipped')).code).toBe(2)
    expect((await w.run('pr', 'wait', ref, '--timeout', 'soon')).code).toBe(2)
    expect((await w.run('pr', 'land', ref, '--method', 'octopus')).code).toBe(2)
    expect(w.gh.calls).toEqual([])
  })
})

describe('pr land', () => {
  test('refused (3, the diagnosis in details) unless ready; nothing merged', async () => {
    w = await deliveryWorkspace()
    const { ref, branch } = await w.worked('Not yet')
    ;(await w.run('pr', 'open', ref)).expectExit(0)
    w.gh.setChecks(REPO, branch, [{ name: 'ci', status: 'completed', conclusion: 'failure' }])
    ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
    const before = w.ws.snapshot()
    w.gh.resetCalls()
    const r = (await w.run('pr', 'land', ref, '--json')).expectExit(3)
    expect(r.error.details.policy).toBe('not_ready')
    expect(r.error.details.diagnosis).toMatchObject({ code: 'checks_failed', checks: { failed: ['ci'] } })
    expect(w.gh.writes()).toEqual([])
    expect(w.ws.snapshot()).toEqual(before)
  })

  test('ready on GitHub but the task cannot close (a criterion unchecked): refused (3) before the merge', async () => {
    w = await deliveryWorkspace()
    const { ref } = await w.worked('Unchecked')
    ;(await w.run('pr', 'open', ref)).expectExit(0)
    const main = git(w.origin, 'rev-parse', 'main').trim()
    w.gh.resetCalls()
    const r = (await w.run('pr', 'land', ref, '--json')).expectExit(3)
    expect(r.error.details.policy).toBe('acceptance')
    expect(w.gh.writes()).toEqual([])
    expect(git(w.origin, 'rev-parse', 'main').trim()).toBe(main)
    expect((await w.ws.dacli('task', 'show', ref, '--json')).json.status).not.toBe('done')
  })

  test('ready: merges on GitHub for real, fetches, closes the task logging landed <merge sha>', async () => {
    w = await deliveryWorkspace()
    const { ref, branch } = await w.worked('Land me')
    ;(await w.run('pr', 'open', ref)).expectExit(0)
    ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
    w.gh.resetCalls()
    const r = (await w.run('pr', 'land', ref, '--method', 'squash', '--json')).expectExit(0)
    expectValid(r.json)
    const sha = git(w.origin, 'rev-parse', 'main').trim()
    expect(r.json).toMatchObject({
      action: 'merged',
      merge: { method: 'squash', sha },
      task_status: 'done',
      landed: sha,
    })
    expect(git(w.origin, 'log', '-1', '--format=%s', 'main').trim()).toBe(`Land me (#${r.json.pr.number})`)
    const shown = (await w.ws.dacli('task', 'show', ref, '--json')).json
    expect(shown.status).toBe('done')
    expect(
      shown.log.some((l: { verb: string; details: string }) => l.verb === 'landed' && l.details.startsWith(sha)),
    ).toBe(true)
    expect(w.gh.writes().map((c) => c.method)).toEqual(['PUT'])
    expect(branch).toMatch(/^dacli\//)
    // Delivery progress: landed, through pr_open; what is never observed from the files is null, never 0.
    for (const cmd of ['metrics', 'overview']) {
      const d = (await w.ws.dacli(cmd, '--json')).expectExit(0).json
      expectValid(d)
      const alpha = d.delivery.find((p: { project: string }) => p.project === 'alpha')
      expect(alpha.states).toEqual({ open: 0, claimed: 0, pr_open: 0, ready: null, landed: 1, released: null })
      expect(alpha.lead_time.pr_open_to_landed.samples).toBe(1)
      expect(alpha.lead_time.open_to_claimed).toEqual({ median_seconds: null, samples: 0 })
    }
    // Again: already merged, already done — nothing merged twice.
    w.gh.resetCalls()
    const again = (await w.run('pr', 'land', ref, '--json')).expectExit(0)
    expect(again.json.merge).toBeNull()
    expect(w.gh.writes()).toEqual([])
    // The human answer points at what the landed work left behind.
    expect((await w.run('pr', 'land', ref)).expectExit(0).stdout).toContain('next: dacli cleanup')
  })

  test('a conflict is refused (3); a head that moved after the diagnosis is 5; nothing merged', async () => {
    w = await deliveryWorkspace()
    const { ref, dir, branch } = await w.worked('Moving head')
    const opened = (await w.run('pr', 'open', ref, '--json')).expectExit(0).json
    ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
    const main = git(w.origin, 'rev-parse', 'main').trim()
    w.gh.pull(REPO, opened.pr.number).mergeable = false
    const conflict = (await w.run('pr', 'land', ref, '--json')).expectExit(3)
    expect(conflict.error.details.diagnosis.code).toBe('merge_conflict')
    delete w.gh.pull(REPO, opened.pr.number).mergeable
    // Someone pushes to the branch between the diagnosis and the merge: the merge's lease on the head fails.
    w.gh.fail({ method: 'PUT', path: /\/merge$/, status: 409, message: 'Head branch was modified' })
    w.commit(dir, 'late.txt', 'late\n')
    w.push(dir, branch)
    const moved = (await w.run('pr', 'land', ref, '--json')).expectExit(5)
    expect(moved.error.message).toContain('nothing was merged')
    expect(git(w.origin, 'rev-parse', 'main').trim()).toBe(main)
    expect((await w.ws.dacli('task', 'show', ref, '--json')).json.status).not.toBe('done')
  })
})
