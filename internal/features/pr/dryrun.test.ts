// `pr open --dry-run` and `pr land --dry-run` against the loopback fake GitHub backed by a real bare repository:
// the same reads and refusals as the real run, and nothing written — no request but reads to GitHub, no ref moved
// on origin, the workspace's bytes as they were.

import { afterEach, describe, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { expectValid } from '../../testkit/schemas.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

/** The branch's commit on origin, or null when origin has no such branch. */
const onOrigin = (branch: string): string | null => {
  try {
    return git(w.origin, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`).trim()
  } catch {
    return null
  }
}

describe('pr open --dry-run', () => {
  test('a new pull request: says what it would push and send; nothing pushed, opened or logged', async () => {
    w = await deliveryWorkspace()
    const { ref, branch } = await w.worked('Preview me')
    const before = w.ws.snapshot()
    w.gh.resetCalls()
    const r = (await w.run('pr', 'open', ref, '--draft', '--dry-run', '--json')).expectExit(0)
    expectValid(r.json)
    const id = (await w.ws.dacli('task', 'show', ref, '--json')).json.id
    expect(r.json).toMatchObject({
      schema: 'pr-change-preview/v1',
      dry_run: true,
      action: 'open',
      push: 'pushed',
      pr: null,
      open: { head: branch, base: 'main', title: 'Preview me', draft: true },
      merge: null,
      logs_pr_opened: true,
      task: { ref, branch },
    })
    expect(r.json.open.body).toContain(`<!-- dacli:${id} ws:`)
    expect(w.gh.writes()).toEqual([])
    expect(w.gh.repo(REPO).pr.pulls).toHaveLength(0)
    expect(onOrigin(branch)).toBeNull()
    expect(w.ws.snapshot()).toEqual(before)
    // What it previewed is what the real run does.
    const real = (await w.run('pr', 'open', ref, '--draft', '--json')).expectExit(0)
    expect(real.json).toMatchObject({
      action: 'opened',
      pushed: 'pushed',
      pr: { head: branch, base: 'main', draft: true },
    })
    expect(w.gh.pull(REPO, real.json.pr.number).body).toBe(r.json.open.body)
  })

  test('the open pull request: reuse, with the commits made since to push (then up to date); log already notes it', async () => {
    w = await deliveryWorkspace()
    const { ref, dir, branch } = await w.worked('Reuse preview')
    const first = (await w.run('pr', 'open', ref, '--json')).expectExit(0)
    const pushedSha = onOrigin(branch)
    w.commit(dir, 'more.txt', 'more\n', 'More work')
    const before = w.ws.snapshot()
    w.gh.resetCalls()
    const r = (await w.run('pr', 'open', ref, '--dry-run', '--json')).expectExit(0)
    expectValid(r.json)
    expect(r.json).toMatchObject({
      action: 'reuse',
      push: 'pushed',
      pr: { number: first.json.pr.number },
      open: null,
      logs_pr_opened: false,
    })
    expect(w.gh.writes()).toEqual([])
    expect(onOrigin(branch)).toBe(pushedSha)
    expect(w.ws.snapshot()).toEqual(before)
    ;(await w.run('pr', 'open', ref)).expectExit(0)
    const again = (await w.run('pr', 'open', ref, '--dry-run')).expectExit(0)
    expect(again.stdout).toContain(`would reuse #${first.json.pr.number}`)
    expect(again.stdout).toContain('branch: up to date')
    expect(again.stdout).toContain('dry run: nothing was pushed, opened, merged or written')
  })

  test('the real run’s refusals: a task without a branch is 2, with no request but reads', async () => {
    w = await deliveryWorkspace()
    const ref = await w.task('No branch')
    w.gh.resetCalls()
    const r = (await w.run('pr', 'open', ref, '--dry-run', '--json')).expectExit(2)
    expect(r.error.message).toContain('has no branch')
    expect(w.gh.writes()).toEqual([])
  })
})

describe('pr land --dry-run', () => {
  test('ready: would merge at the diagnosed head; nothing merged, the task as it was; then the real run lands', async () => {
    w = await deliveryWorkspace()
    const { ref, branch, sha } = await w.worked('Land preview')
    ;(await w.run('pr', 'open', ref)).expectExit(0)
    ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
    const main = git(w.origin, 'rev-parse', 'main').trim()
    const before = w.ws.snapshot()
    w.gh.resetCalls()
    const r = (await w.run('pr', 'land', ref, '--method', 'squash', '--dry-run', '--json')).expectExit(0)
    expectValid(r.json)
    expect(r.json).toMatchObject({
      schema: 'pr-change-preview/v1',
      action: 'merge',
      push: null,
      pr: { head: branch, state: 'open', merged: false },
      merge: { method: 'squash', head_sha: sha },
      task_status: 'done',
      logs_pr_opened: false,
    })
    expect(w.gh.writes()).toEqual([])
    expect(git(w.origin, 'rev-parse', 'main').trim()).toBe(main)
    expect(w.ws.snapshot()).toEqual(before)
    ;(await w.run('pr', 'land', ref, '--method', 'squash')).expectExit(0)
    expect((await w.ws.dacli('task', 'show', ref, '--json')).json.status).toBe('done')
  })

  test('another identity’s task: the close would be a proposal, so the task keeps its status', async () => {
    w = await deliveryWorkspace()
    const { ref } = await w.worked('Not mine')
    ;(await w.run('pr', 'open', ref)).expectExit(0)
    ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
    ;(await w.ws.dacli('task', 'claim', ref)).expectExit(0)
    const bob = await w.ws.agent('rw', 'bob')
    w.gh.resetCalls()
    const r = (await w.run('pr', 'land', ref, '--dry-run', '--json', { as: bob.token })).expectExit(0)
    expect(r.json).toMatchObject({ action: 'merge', task_status: 'active' })
    expect(w.gh.writes()).toEqual([])
  })

  test('not ready: the same refusal (3, not_ready) as the real run; a criterion unchecked: 3 acceptance', async () => {
    w = await deliveryWorkspace()
    const { ref, branch } = await w.worked('Not ready preview')
    ;(await w.run('pr', 'open', ref)).expectExit(0)
    w.gh.resetCalls()
    const unchecked = (await w.run('pr', 'land', ref, '--dry-run', '--json')).expectExit(3)
    expect(unchecked.error.details.policy).toBe('acceptance')
    w.gh.setChecks(REPO, branch, [{ name: 'ci', status: 'completed', conclusion: 'failure' }])
    ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
    const r = (await w.run('pr', 'land', ref, '--dry-run', '--json')).expectExit(3)
    expect(r.error.details.policy).toBe('not_ready')
    expect(r.error.details.diagnosis).toMatchObject({ code: 'checks_failed' })
    expect(w.gh.writes()).toEqual([])
  })

  test('merged already (by hand on GitHub): would close the task; nothing written', async () => {
    w = await deliveryWorkspace()
    const { ref } = await w.worked('Merged by hand')
    const opened = (await w.run('pr', 'open', ref, '--json')).expectExit(0)
    ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
    // Merged by hand: its head's commit is on origin's main (a fast-forward), as GitHub would record it.
    git(w.origin, 'update-ref', 'refs/heads/main', opened.json.pr.head_sha)
    Object.assign(w.gh.pull(REPO, opened.json.pr.number), {
      state: 'closed',
      merged: true,
      merged_at: new Date().toISOString(),
      merge_commit_sha: opened.json.pr.head_sha,
    })
    const before = w.ws.snapshot()
    w.gh.resetCalls()
    const r = (await w.run('pr', 'land', ref, '--dry-run', '--json')).expectExit(0)
    expect(r.json).toMatchObject({ action: 'close', merge: null, pr: { merged: true }, task_status: 'done' })
    expect(w.gh.writes()).toEqual([])
    expect(w.ws.snapshot()).toEqual(before)
  })

  test('merged on GitHub but its work on no trunk here: 3 unlanded, as the real run; the same task done: nothing to do', async () => {
    w = await deliveryWorkspace()
    const { ref } = await w.worked('Marked merged')
    const opened = (await w.run('pr', 'open', ref, '--json')).expectExit(0)
    ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
    // GitHub says merged, with no merge commit, and origin's main does not hold the branch's commit.
    Object.assign(w.gh.pull(REPO, opened.json.pr.number), { state: 'closed', merged: true, merge_commit_sha: null })
    const before = w.ws.snapshot()
    const dry = (await w.run('pr', 'land', ref, '--dry-run', '--json')).expectExit(3).error
    expect(dry.details.policy).toBe('unlanded')
    const real = (await w.run('pr', 'land', ref, '--json')).expectExit(3).error
    expect(real.details.policy).toBe('unlanded')
    expect(w.ws.snapshot()).toEqual(before)
    ;(await w.ws.dacli('task', 'done', ref, '--allow-unlanded')).expectExit(0)
    const done = (await w.run('pr', 'land', ref, '--dry-run')).expectExit(0)
    expect(done.stdout).toContain(`is merged and ${ref} is done: nothing to do`)
  })
})
