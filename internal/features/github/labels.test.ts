// Labels and milestones round-trip through the fake GitHub (a real loopback HTTP server, the real Octokit client):
// push adds a task's labels to its issue and puts it in the task's milestone (created when missing); pull gives an
// adopted task the issue's labels and milestone; every dry run writes nothing, here or there.

import { afterEach, describe, expect, test } from 'vitest'
import { type GitHubWorkspace, githubWorkspace } from '../../testkit/ghworkspace.js'
import { expectValid } from '../../testkit/schemas.js'

let w: GitHubWorkspace
afterEach(async () => {
  await w.close()
})

describe('labels and milestones on GitHub', () => {
  test('push: the task’s labels join the issue’s, its milestone is created once and set; a dry run writes nothing', async () => {
    w = await githubWorkspace()
    await w.ws.ok(
      'task',
      'add',
      'Harden login',
      '--project',
      'alpha',
      '--accept',
      'ok',
      '--label',
      'security',
      '--milestone',
      'v2.0',
    )
    await w.ws.ok(
      'task',
      'add',
      'Audit sessions',
      '--project',
      'alpha',
      '--accept',
      'ok',
      '--label',
      'security',
      '--milestone',
      'v2.0',
    )
    const before = w.ws.snapshot()
    const preview = (await w.run('github', 'push', 'alpha', '--dry-run', '--json')).expectExit(0).json
    expectValid(preview)
    expect(preview.items[0]).toMatchObject({ action: 'create', labels: ['security', 'status:open'], milestone: 'v2.0' })
    expect(w.gh.writes()).toEqual([])
    expect(w.ws.snapshot()).toEqual(before)

    const pushed = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0).json
    expectValid(pushed)
    const repo = w.gh.repo('acme/widgets')
    expect(repo.milestones).toEqual([{ number: 1, title: 'v2.0', state: 'open' }])
    expect(repo.issues.map((i) => ({ labels: i.labels, milestone: i.milestone }))).toEqual([
      { labels: ['security', 'status:open'], milestone: 1 },
      { labels: ['security', 'status:open'], milestone: 1 },
    ])
    expect(w.gh.writes().filter((c) => c.path.endsWith('/milestones'))).toHaveLength(1)

    // A label added and the milestone moved: one update each, the human's own label kept.
    ;(repo.issues[0] as { labels: string[] }).labels.push('needs-review')
    await w.ws.ok('task', 'edit', 'alpha/1', '--label', 'backend', '--milestone', 'v2.1')
    w.gh.resetCalls()
    const dry = (await w.run('github', 'push', 'alpha', '--dry-run', '--json')).expectExit(0).json
    expect(dry.items[0]).toMatchObject({
      action: 'update',
      changes: ['labels', 'milestone'],
      labels: ['backend', 'needs-review', 'security', 'status:open'],
      milestone: 'v2.1',
    })
    expect(dry.items[1]).toMatchObject({ action: 'unchanged' })
    expect(w.gh.writes()).toEqual([])
    ;(await w.run('github', 'push', 'alpha')).expectExit(0)
    expect(repo.milestones.map((m) => m.title)).toEqual(['v2.0', 'v2.1'])
    expect(repo.issues[0]).toMatchObject({
      labels: ['backend', 'needs-review', 'security', 'status:open'],
      milestone: 2,
    })
    w.gh.resetCalls()
    const again = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0).json
    expect(again.items.map((i: { outcome: string }) => i.outcome)).toEqual(['unchanged', 'unchanged'])
    expect(w.gh.writes()).toEqual([])
  })

  test('pull: an adopted task takes the issue’s labels (not status:/priority:) and milestone; the dry run shows them', async () => {
    w = await githubWorkspace()
    const repo = w.gh.repo('acme/widgets')
    repo.milestones.push({ number: 7, title: 'Q3 launch', state: 'open' })
    w.gh.addIssue('acme/widgets', {
      title: 'Checkout times out',
      labels: ['bug', 'status:open', 'priority:must'],
      milestone: 7,
    })
    w.gh.addIssue('acme/widgets', { title: 'Plain issue' })
    const before = w.ws.snapshot()
    const plan = (await w.run('github', 'pull', 'alpha', '--dry-run', '--json')).expectExit(0).json
    expectValid(plan)
    expect(plan.create.map((i: { labels: string[]; milestone: string | null }) => [i.labels, i.milestone])).toEqual([
      [['bug'], 'Q3 launch'],
      [[], null],
    ])
    expect(w.ws.snapshot()).toEqual(before)
    ;(await w.run('github', 'pull', 'alpha')).expectExit(0)
    const file = w.ws.file('.dacli/projects/alpha/tasks/open/001-checkout-times-out.md')
    expect(file).toContain('\nlabels:\n  - bug\nmilestone: "Q3 launch"\ngithub: {issue: 1')
    const shown = (await w.ws.ok('task', 'show', 'alpha/1', '--json')).json
    expect(shown).toMatchObject({ labels: ['bug'], milestone: 'Q3 launch' })
    expect((await w.ws.ok('milestone', 'list', '--json')).json.milestones[0]).toMatchObject({
      name: 'Q3 launch',
      total: 1,
    })
    // Pushing back changes nothing: the labels and milestone came from the issue.
    w.gh.resetCalls()
    const push = (await w.run('github', 'push', 'alpha', '--dry-run', '--json')).expectExit(0).json
    expect(push.items[0]).toMatchObject({ action: 'unchanged', milestone: 'Q3 launch' })
  })
})
