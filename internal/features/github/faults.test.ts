// GitHub faults during a push: retried within the run,
// one item's failure never the push's, and a re-run that converges without a
// duplicate issue — against the loopback fake, with the real client.

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { seeded } from '../../testkit/fakefaults.js'
import {
  divergence,
  type GitHubWorkspace,
  githubWorkspace,
  mappingsOnDisk,
  seedTasks,
  settle,
} from '../../testkit/ghworkspace.js'
import { expectValid } from '../../testkit/schemas.js'
import { BIN, baseEnv } from '../../testkit/ws.js'

let w: GitHubWorkspace
afterEach(async () => {
  await w.close()
})

const REPO = 'acme/widgets'

/** Converged: every task maps to the one issue carrying its marker, no marker twice, and a push writes nothing. */
async function expectConverged(tasks: number): Promise<void> {
  expect(divergence(w, REPO, 'alpha')).toEqual({ tasks, duplicates: [], mismatched: [] })
  expect(await settle(w, 'alpha')).toMatchObject({ outcomes: { unchanged: tasks, failed: 0 }, writes: 0 })
}

describe('github push under GitHub faults', () => {
  test('a burst of 3 consecutive 502s on a create is absorbed in the run: exit 0, no duplicate', async () => {
    w = await githubWorkspace()
    seedTasks(w.ws, 'alpha', 4)
    w.gh.fail({ method: 'POST', nth: 2, times: 3, status: 502 })
    const r = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0)
    expectValid(r.json)
    expect(r.stderr).toBe('')
    expect(r.json.outcomes).toMatchObject({ created: 4, failed: 0 })
    expect(r.json.items[1]).toMatchObject({ outcome: 'created', attempts: 4, issue_number: 2, reason: null })
    expect(r.json.retry).toMatchObject({ max_attempts: 5, retried: 3, exhausted: false })
    // Each failed create was followed by a proof read before it was sent again.
    const seq = w.gh.calls.filter((c) => c.method === 'POST' || c.query.since !== undefined).map((c) => c.method)
    expect(seq).toEqual(['POST', 'POST', 'GET', 'POST', 'GET', 'POST', 'GET', 'POST', 'POST', 'POST'])
    await expectConverged(4)
  })

  test('a create that succeeded but answered 502 is adopted, not duplicated; so is one whose answer timed out', async () => {
    w = await githubWorkspace()
    seedTasks(w.ws, 'alpha', 5, { done: (seq) => seq === 3 })
    w.gh.fail({ method: 'POST', nth: 2, status: 502, afterApply: true })
    w.gh.fail({ method: 'POST', nth: 3, delayMs: 1_000, afterApply: true })
    const r = (
      await w.run('github', 'push', 'alpha', '--json', { env: { DACLI_GITHUB_TIMEOUT_MS: '200' } })
    ).expectExit(0)
    expect(r.json.items.map((i: { outcome: string }) => i.outcome)).toEqual([
      'created',
      'adopted',
      'adopted',
      'created',
      'created',
    ])
    // The done task's issue, adopted after a lost answer, is still closed.
    expect(w.gh.repo(REPO).issues[2]?.state).toBe('closed')
    expect(w.gh.writes().filter((c) => c.method === 'POST')).toHaveLength(5)
    await expectConverged(5)
  })

  test('a persistent outage: exit 1 with a partial result; after recovery the re-run creates exactly the missing issues', async () => {
    w = await githubWorkspace()
    seedTasks(w.ws, 'alpha', 12)
    // After the repository, the issues list and four creates, every call fails.
    w.gh.fail({ nth: 7, times: Number.POSITIVE_INFINITY, status: 502 })
    const r = (await w.run('github', 'push', 'alpha', '--json')).expectExit(1)
    // The contract's failure: nothing on stdout, the envelope on stderr with the result in its details.
    expect(r.stdout).toBe('')
    expect(r.error).toMatchObject({ schema: 'error/v1', kind: 'failure', exit_code: 1 })
    const doc = r.error.details.result
    expectValid(doc)
    expect(doc.outcomes).toMatchObject({ created: 4, failed: 8 })
    const failed = doc.items.filter((i: { outcome: string }) => i.outcome === 'failed')
    expect(failed.slice(0, 3).map((i: { reason: string }) => i.reason)).toEqual([
      expect.stringMatching(/GitHub answered 502 while creating an issue .*could not check whether it took effect/),
      expect.stringMatching(/502/),
      expect.stringMatching(/502/),
    ])
    expect(doc.stopped).toMatch(/^GitHub failed 3 items in a row/)
    expect(
      failed
        .slice(3)
        .every((i: { reason: string; attempts: number }) => i.reason.startsWith('not sent: ') && i.attempts === 0),
    ).toBe(true)
    // What was created is recorded on disk at once; nothing else is.
    expect([...mappingsOnDisk(w.ws.root, 'alpha').values()].filter((n) => n !== null)).toEqual([1, 2, 3, 4])
    expect(w.gh.repo(REPO).issues).toHaveLength(4)

    // Still down: the run stops before writing anything, saying so.
    const down = (await w.run('github', 'push', 'alpha', '--json')).expectExit(1)
    expect(down.error.message).toMatch(/GitHub answered 502 while reading the repository acme\/widgets/)
    expect(w.gh.repo(REPO).issues).toHaveLength(4)

    // Back for two creates, then down again: a person sees what happened and how to finish.
    w.gh.clearFaults()
    w.gh.fail({ nth: 5, times: Number.POSITIVE_INFINITY, status: 503 })
    const human = (await w.run('github', 'push', 'alpha')).expectExit(1)
    expect(human.stdout).toMatch(
      /push: 2 created, 0 updated, 0 closed, 4 unchanged, 0 adopted, 6 failed \(of 12 tasks\)/,
    )
    expect(human.stdout).toMatch(/stopped sending after a failure that would repeat: GitHub failed 3 items in a row/)
    expect(human.stdout).toMatch(/6 tasks not pushed\. Run `dacli github push alpha` again to finish/)
    expect(human.stderr).toMatch(/^push: 8 issues to write on acme\/widgets \(writes unpaced; quota \d+\/5000\)…$/m)

    w.gh.clearFaults()
    w.gh.resetCalls()
    const recovered = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0)
    expect(recovered.json.outcomes).toMatchObject({ created: 6, unchanged: 6, failed: 0 })
    expect(w.gh.writes().filter((c) => c.method === 'POST')).toHaveLength(6)
    await expectConverged(12)
  })

  test('kill -9 at random points during 20 pushes: the next push converges with no duplicate', {
    timeout: 240_000,
  }, async () => {
    w = await githubWorkspace()
    seedTasks(w.ws, 'alpha', 30)
    // Writes a few milliseconds apart, so a push takes long enough to be cut anywhere.
    const env = { ...baseEnv(), ...w.gh.env({ DACLI_GITHUB_WRITE_INTERVAL_MS: '4' }) }
    const random = seeded(20)
    const tasksDir = path.join(w.ws.root, '.dacli/projects/alpha/tasks')
    let seq = 31
    let cutMidPush = 0
    for (let trial = 1; trial <= 20; trial++) {
      seedTasks(w.ws, 'alpha', 2, { from: seq })
      seq += 2
      if (trial % 4 === 0) {
        const open = fs.readdirSync(path.join(tasksDir, 'open')).sort()
        const name = open[Math.floor(random() * open.length)] as string
        fs.mkdirSync(path.join(tasksDir, 'done'), { recursive: true })
        fs.renameSync(path.join(tasksDir, 'open', name), path.join(tasksDir, 'done', name))
      }
      const writesBefore = w.gh.writes().length
      const child = spawn(process.execPath, [BIN, 'github', 'push', 'alpha', '--json'], { cwd: w.ws.root, env })
      let exited = false
      const closed = once(child, 'close').then((x) => {
        exited = true
        return x
      })
      // Cut after 0–4 writes of this push (and a few random milliseconds more): before, between and during writes.
      const target = writesBefore + Math.floor(random() * 5)
      while (!exited && w.gh.writes().length < target) await new Promise((r) => setTimeout(r, 1))
      await new Promise((r) => setTimeout(r, random() * 15))
      child.kill('SIGKILL')
      const [code, signal] = (await closed) as [number | null, string | null]
      if (signal === 'SIGKILL' && w.gh.writes().length > writesBefore) cutMidPush++
      expect(code === 0 || signal === 'SIGKILL', `trial ${trial}: exit ${code}`).toBe(true)
    }
    // The kills landed in the middle of pushes, not only before or after them.
    expect(cutMidPush).toBeGreaterThanOrEqual(5)
    const r = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0)
    expect(r.json.outcomes.failed).toBe(0)
    await expectConverged(70)
  })
})
