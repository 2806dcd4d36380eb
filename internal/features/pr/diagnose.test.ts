// pr diagnose against the loopback fake GitHub backed by a real bare repository: every code reached by a
// scenario, the three ways a pull request is found, and no write request.

import { afterEach, describe, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { expectValid } from '../../testkit/schemas.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

async function diag(ref: string) {
  const r = (await w.run('pr', 'diagnose', ref, '--json')).expectExit(0)
  expectValid(r.json)
  return r.json
}

/** A task with a worktree branch carrying one commit, pushed, and a pull request for it. */
async function withPull(title: string, opts: { draft?: boolean; file?: string; text?: string } = {}) {
  const ref = await w.task(title)
  const { dir, branch } = await w.worktree(ref)
  w.commit(dir, opts.file ?? `${branch.replace(/\W/g, '_')}.txt`, opts.text ?? `${title}\n`)
  w.push(dir, branch)
  const p = w.gh.addPull(REPO, { title, head: branch, ...(opts.draft ? { draft: true } : {}) })
  return { ref, dir, branch, number: p.number }
}

describe('pr diagnose', () => {
  test('no_pr, then ready once a pull request exists; reads only', async () => {
    w = await deliveryWorkspace()
    const ref = await w.task('Write the shim')
    const none = await diag(ref)
    expect(none).toMatchObject({ code: 'no_pr', pr: null, found_by: null, repository: REPO })
    expect(none.next_actions).toEqual([`dacli pr open ${ref}`])
    const { ref: r2, number } = await withPull('Audit the writes')
    const ready = await diag(r2)
    expect(ready).toMatchObject({ code: 'ready', found_by: 'branch', pr: { number, state: 'open', mergeable: true } })
    // `pr land` closes the task and refuses while a criterion is open: checking it comes first.
    expect(ready.next_actions).toEqual([
      `dacli task check ${r2} --n 1 --verify "<command that proves it>"`,
      `dacli pr land ${r2}`,
    ])
    expect(w.gh.writes()).toEqual([])
    ;(await w.ws.dacli('task', 'check', r2, '--all')).expectExit(0)
    expect((await diag(r2)).next_actions).toEqual([`dacli pr land ${r2}`])
    const human = (await w.run('pr', 'diagnose', r2)).expectExit(0)
    expect(human.stdout).toContain('ready')
  })

  test('draft, merge_conflict, stale_base', async () => {
    w = await deliveryWorkspace()
    const d = await withPull('Draft work', { draft: true })
    expect((await diag(d.ref)).code).toBe('draft')

    // main changes the same file the branch changes: a real conflict.
    const c = await withPull('Conflicting work', { file: 'README.md', text: 'branch text\n' })
    w.commit(w.ws.root, 'README.md', 'main text\n', 'Main moves on')
    git(w.ws.root, 'push', '-q', 'origin', 'main')
    const conflict = await diag(c.ref)
    expect(conflict.code).toBe('merge_conflict')
    expect(conflict.evidence[0]).toMatchObject({ kind: 'conflict', name: c.branch })

    // A branch behind main where protection requires it up to date: stale_base naming main's commits.
    w.gh.repo(REPO).pr.requireUpToDate = true
    const s = await withPull('Behind work')
    w.commit(w.ws.root, 'other.txt', 'x\n', 'Main adds other')
    git(w.ws.root, 'push', '-q', 'origin', 'main')
    const stale = await diag(s.ref)
    expect(stale.code).toBe('stale_base')
    expect(stale.evidence.map((e: { detail: string }) => e.detail).join('\n')).toContain('Main adds other')
  })

  test('checks_pending, checks_failed naming the checks, changes_requested, approval_pending', async () => {
    w = await deliveryWorkspace()
    const p = await withPull('Checked work')
    w.gh.setChecks(REPO, p.branch, [
      { name: 'build', status: 'completed', conclusion: 'success' },
      { name: 'test', status: 'in_progress', conclusion: null },
    ])
    const pending = await diag(p.ref)
    expect(pending.code).toBe('checks_pending')
    expect(pending.checks).toEqual({ passed: ['build'], pending: ['test'], failed: [] })
    expect(pending.evidence.map((e: { kind: string }) => e.kind)).toEqual(['check_pending'])
    // One failed while another still runs: pending (the spec's order), and the failure is evidence too.
    w.gh.setChecks(REPO, p.branch, [
      { name: 'build', status: 'completed', conclusion: 'failure' },
      { name: 'test', status: 'in_progress', conclusion: null },
    ])
    const both = await diag(p.ref)
    expect(both.code).toBe('checks_pending')
    expect(both.evidence).toEqual([
      { kind: 'check_pending', name: 'test', detail: 'test has not finished' },
      { kind: 'check_failed', name: 'build', detail: 'build failed' },
    ])
    expect(both.next_actions[0]).toBe(`fix what build reports, then push to ${p.branch}`)
    w.gh.setChecks(REPO, p.branch, [
      { name: 'build', status: 'completed', conclusion: 'success' },
      { name: 'test', status: 'completed', conclusion: 'failure' },
    ])
    w.gh.setStatuses(REPO, p.branch, [{ context: 'lint', state: 'error' }])
    const failed = await diag(p.ref)
    expect(failed.code).toBe('checks_failed')
    expect(failed.checks.failed).toEqual(['test', 'lint'])
    expect(failed.evidence.map((e: { name: string }) => e.name)).toEqual(['test', 'lint'])

    w.gh.setChecks(REPO, p.branch, [{ name: 'test', status: 'completed', conclusion: 'success' }])
    w.gh.setStatuses(REPO, p.branch, [])
    w.gh.review(REPO, p.number, 'bob', 'CHANGES_REQUESTED')
    const changes = await diag(p.ref)
    expect(changes.code).toBe('changes_requested')
    expect(changes.reviews.changes_requested).toEqual(['bob'])

    w.gh.review(REPO, p.number, 'bob', 'DISMISSED')
    w.gh.repo(REPO).pr.requiredReviews = 1
    w.gh.pull(REPO, p.number).requested_reviewers = ['carol']
    const approval = await diag(p.ref)
    expect(approval.code).toBe('approval_pending')
    expect(approval.evidence).toEqual([
      { kind: 'reviewer_requested', name: 'carol', detail: 'review requested from carol' },
    ])

    w.gh.review(REPO, p.number, 'carol', 'APPROVED')
    const ready = await diag(p.ref)
    expect(ready.code).toBe('ready')
    expect(ready.reviews.approved).toEqual(['carol'])
    expect(w.gh.writes()).toEqual([])
  })

  test('found by a link in the task and by the marker in a body; merged and closed', async () => {
    w = await deliveryWorkspace()
    const ref = await w.task('Linked work')
    git(w.ws.root, 'branch', 'feature/linked')
    git(w.ws.root, 'push', '-q', 'origin', 'feature/linked')
    const linked = w.gh.addPull(REPO, { title: 'Linked work', head: 'feature/linked' })
    ;(await w.ws.dacli('task', 'edit', ref, '--context', `See ${w.gh.url}/${REPO}/pull/${linked.number}`)).expectExit(0)
    const byLink = await diag(ref)
    expect(byLink).toMatchObject({ found_by: 'link', pr: { number: linked.number }, code: 'ready' })

    const ref2 = await w.task('Marked work')
    const id = (await w.ws.dacli('task', 'show', ref2, '--json')).json.id
    git(w.ws.root, 'branch', 'feature/marked')
    git(w.ws.root, 'push', '-q', 'origin', 'feature/marked')
    const marked = w.gh.addPull(REPO, {
      title: 'Marked',
      head: 'feature/marked',
      body: `text\n<!-- dacli:${id} ws:X -->`,
    })
    marked.state = 'closed'
    const closed = await diag(ref2)
    expect(closed).toMatchObject({ found_by: 'marker', code: 'closed' })
    marked.state = 'closed'
    marked.merged = true
    marked.merged_at = new Date().toISOString()
    const merged = await diag(ref2)
    expect(merged.code).toBe('merged')
    expect(merged.next_actions).toEqual([`dacli task done ${ref2}`])
  })

  test('a task that does not exist is 4; an unlinked project with no GitHub origin is 2', async () => {
    w = await deliveryWorkspace()
    expect((await w.run('pr', 'diagnose', 'alpha/99', '--json')).code).toBe(4)
    ;(await w.ws.dacli('project', 'add', 'Beta', '--slug', 'beta')).expectExit(0)
    ;(await w.ws.dacli('task', 'add', 'x', '--project', 'beta', '--accept', 'y')).expectExit(0)
    const r = (await w.run('pr', 'diagnose', 'beta/1', '--json')).expectExit(2)
    expect(r.error.message).toContain('not linked')
    expect(w.gh.calls).toEqual([])
  })
})
