import { afterEach, describe, expect, test } from 'vitest'
import { type GitHubWorkspace, githubWorkspace } from '../../testkit/ghworkspace.js'
import { expectValid } from '../../testkit/schemas.js'

let w: GitHubWorkspace
afterEach(async () => {
  await w.close()
})

async function scene(): Promise<void> {
  ;(
    await w.ws.dacli('task', 'add', 'Rotate the signing keys', '--project', 'alpha', '--priority', 'should')
  ).expectExit(0)
  ;(await w.ws.dacli('task', 'add', 'Write the runbook', '--project', 'alpha')).expectExit(0)
  w.gh.addIssue('acme/widgets', { title: 'Rotate the signing keys', body: 'Same as our task.' })
  w.gh.addIssue('acme/widgets', {
    title: 'Crash on empty input',
    body: '## Acceptance\n- [ ] no crash',
    labels: ['bug'],
  })
  w.gh.addIssue('acme/widgets', { title: 'Slow dashboard', body: '' })
}

const shape = (items: { action: string; title: string; changes: string[]; state: string; labels: string[] }[]) =>
  items.map(({ action, title, changes, state, labels }) => ({ action, title, changes, state, labels }))

describe('github sync', () => {
  test('a typo or a bad combination in either half: exit 2 with zero API calls and nothing written', async () => {
    w = await githubWorkspace()
    await scene()
    const before = w.ws.snapshot()
    w.gh.resetCalls()
    const cases: [string[], RegExp][] = [
      [['--dry-rn'], /unknown flags?: --dry-rn/],
      [['--dry-run', '--limt', '5'], /unknown flags?: --limt/],
      [['--dry-run', '--since', 'yesterday'], /--since must be a duration/],
      [['--dry-run', '--limit', '500'], /--limit must be in 1\.\.200/],
      [['--include-acceptance'], /shapes a preview: add --dry-run/],
      [[], /--json needs --dry-run/],
    ]
    for (const [extra, message] of cases) {
      const r = (await w.run('github', 'sync', 'alpha', ...extra, '--json')).expectExit(2)
      expect(r.error.message).toMatch(message)
    }
    ;(await w.run('github', 'sync', 'alpha', 'nope-task', '--dry-run', '--json')).expectExit(4)
    expect(w.gh.calls).toEqual([])
    expect(w.ws.snapshot()).toEqual(before)
  })

  test('the preview (inbound plan + digested outbound preview) is what the real sync then does', async () => {
    w = await githubWorkspace()
    await scene()
    const before = w.ws.snapshot()
    const p = (await w.run('github', 'sync', 'alpha', '--dry-run', '--json', '--include-acceptance')).expectExit(0)
    expectValid(p.json)
    const { inbound, outbound } = p.json
    expect(inbound.schema).toBe('github-adoption-plan/v1')
    expect(inbound.counts).toEqual({ create: 2, link: 1, already_mapped: 0, refused: 0, skipped: 0 })
    expect(inbound.create[0].acceptance).toEqual(['no crash'])
    expect(outbound.schema).toBe('github-push-preview/v1')
    // After the pull: the linked task has a priority to label; the two adopted ones already say what their tasks
    // say (an open issue without a status label reads as status:open), so they cost no write; one task is new.
    expect(outbound.counts).toEqual({ create: 1, update: 1, close: 0, unchanged: 2 })
    expect(outbound.items.filter((i: { task_id: string | null }) => i.task_id === null)).toHaveLength(2)
    expect(outbound.output_digest).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(w.gh.writes()).toEqual([])
    expect(w.ws.snapshot()).toEqual(before)
    const twice = (await w.run('github', 'sync', 'alpha', '--dry-run', '--json')).json
    expect(twice.outbound.output_digest).toBe(outbound.output_digest)

    const r = (await w.run('github', 'sync', 'alpha')).expectExit(0)
    expect(r.stdout).toMatch(/^pull: 2 created, 1 linked, 0 already mapped, 0 skipped \(of 3 issues\)/)
    expect(r.stdout).toMatch(/push: 1 created, 1 updated, 0 closed, 2 unchanged, 0 adopted, 0 failed \(of 4 tasks\)/)
    const after = (await w.run('github', 'push', 'alpha', '--dry-run', '--json')).json
    expect(after.counts).toEqual({ create: 0, update: 0, close: 0, unchanged: 4 })
    expect(shape(after.items)).toEqual(shape(outbound.items).map((i) => ({ ...i, action: 'unchanged', changes: [] })))
    expect(w.gh.repo('acme/widgets').issues[1]?.labels).toEqual(['bug'])
    expect(w.gh.repo('acme/widgets').issues[0]?.labels).toEqual(['priority:should', 'status:open'])

    // The applied sync's documents (never printed: --json needs --dry-run) match their schemas.
    const settledRun = await w.data('github', 'sync', 'alpha')
    const docs = settledRun.data as { pull: unknown; push: { counts: unknown } }
    expectValid(docs.pull)
    expectValid(docs.push)
    expect(docs.push.counts).toEqual({ create: 0, update: 0, close: 0, unchanged: 4 })

    // A re-run finds everything in place: nothing written anywhere.
    const settled = w.ws.snapshot()
    w.gh.resetCalls()
    const again = (await w.run('github', 'sync', 'alpha')).expectExit(0)
    expect(again.stdout).toMatch(/pull: 0 created, 0 linked, 4 already mapped/)
    expect(w.gh.writes()).toEqual([])
    expect(w.ws.snapshot()).toEqual(settled)
    const settledDigest = (await w.run('github', 'sync', 'alpha', '--dry-run', '--json')).json.outbound.output_digest
    ;(await w.ws.dacli('task', 'add', 'One more thing', '--project', 'alpha')).expectExit(0)
    const changed = (await w.run('github', 'sync', 'alpha', '--dry-run', '--json')).json.outbound
    expect(changed.output_digest).not.toBe(settledDigest)
    expect(changed.counts.create).toBe(1)
  })

  test('a blocking item stops the whole sync before either half writes', async () => {
    w = await githubWorkspace()
    await scene()
    w.gh.addIssue('acme/widgets', { title: 'Write a runbook for on-call', body: '' })
    const before = w.ws.snapshot()
    const r = (await w.run('github', 'sync', 'alpha')).expectExit(3)
    expect(r.stderr).toMatch(/#4 "Write a runbook for on-call": possible duplicate/)
    expect(w.gh.writes()).toEqual([])
    expect(w.ws.snapshot()).toEqual(before)
  })

  test('a push half with failed items: the pull half stands, exit 1, the failures in the document', async () => {
    w = await githubWorkspace()
    await scene()
    // Every create fails before GitHub acts; updates and reads go through.
    w.gh.fail({ method: 'POST', times: Number.POSITIVE_INFINITY, status: 500 })
    const r = await w.data('github', 'sync', 'alpha')
    expect(r.exitCode).toBe(1)
    const docs = r.data as { pull: { counts: unknown }; push: { outcomes: unknown; items: { outcome: string }[] } }
    expectValid(docs.push)
    expect(docs.pull.counts).toMatchObject({ created: 2, linked: 1 })
    expect(docs.push.outcomes).toMatchObject({ updated: 1, unchanged: 2, failed: 1 })
    expect(w.gh.repo('acme/widgets').issues).toHaveLength(3)
    w.gh.clearFaults()
    expect((await w.data('github', 'sync', 'alpha')).exitCode).toBe(0)
    expect(w.gh.repo('acme/widgets').issues).toHaveLength(4)
  })
})
