// reconcile and cleanup on real git repositories (a bare origin behind the fake GitHub's acme/widgets): every
// planted disagreement found, --apply-safe applies only the reviewed plan (a changed world → 5, nothing applied),
// cleanup then restore gives back every removed ref and worktree; previews send no write request.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { expectValid } from '../../testkit/schemas.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

const GHOST = 't-01ARZ3NDEKTSV4RRFFQ69G5FAV'

const idOf = async (ref: string) => (await w.ws.dacli('task', 'show', ref, '--json')).json.id as string
const remoteRef = (ref: string) => git(w.origin, 'for-each-ref', '--format=%(objectname)', ref).trim()

describe('reconcile', () => {
  test('finds each planted disagreement; --apply-safe applies only the reviewed safe fixes', async () => {
    w = await deliveryWorkspace()
    const root = w.ws.root
    // done, not landed
    const a = await w.worked('Done but not landed')
    ;(await w.ws.dacli('task', 'check', a.ref, '--all')).expectExit(0)
    ;(await w.ws.dacli('task', 'done', a.ref, '--allow-unlanded')).expectExit(0)
    // landed (merged into main by git), still open, criteria checked: safe
    const b = await w.worked('Landed but open')
    git(root, 'merge', '-q', '--no-ff', '-m', `Merge branch '${b.branch}'`, b.branch)
    git(root, 'push', '-q', 'origin', 'main')
    ;(await w.ws.dacli('task', 'check', b.ref, '--all')).expectExit(0)
    // a pull request merged on GitHub for an open task whose merge this clone does not have: not safe
    const c = await w.worked('Merged on GitHub')
    w.push(c.dir, c.branch)
    const pc = w.gh.addPull(REPO, { title: 'Merged on GitHub', head: c.branch })
    Object.assign(pc, {
      state: 'closed',
      merged: true,
      merged_at: new Date().toISOString(),
      merge_commit_sha: 'f'.repeat(40),
    })
    // a branch and a worktree without a task
    git(root, 'branch', 'dacli/alpha-099-ghost')
    git(root, 'worktree', 'add', '-q', '-b', 'other/ghost', path.join(root, '.dacli', 'worktrees', 'alpha-098-ghost'))
    // a claim ref on origin for a done task (safe) and one for a task this clone does not have
    const head = git(root, 'rev-parse', 'HEAD').trim()
    git(root, 'push', '-q', 'origin', `${head}:refs/dacli/claims/${await idOf(a.ref)}`)
    git(root, 'push', '-q', 'origin', `${head}:refs/dacli/claims/${GHOST}`)
    // an open pull request carrying this workspace's marker for a task it does not have
    const wsId = /^id: (\w+)$/m.exec(w.ws.file('.dacli/config.yml'))?.[1]
    git(root, 'push', '-q', 'origin', 'HEAD:refs/heads/feature/ghost')
    w.gh.addPull(REPO, { title: 'Ghost', head: 'feature/ghost', body: `<!-- dacli:${GHOST} ws:${wsId} -->` })
    w.gh.resetCalls()

    const r = (await w.run('reconcile', '--json')).expectExit(0)
    expectValid(r.json)
    const by = (cls: string) => r.json.findings.filter((f: { class: string }) => f.class === cls)
    expect(by('done_not_landed').map((f: { subject: string }) => f.subject)).toEqual([a.ref])
    expect(by('landed_not_done')).toMatchObject([{ subject: b.ref, safe: true }])
    expect(by('pr_merged_task_open')).toMatchObject([{ subject: c.ref, safe: false }])
    expect(by('branch_without_task')).toMatchObject([{ subject: 'dacli/alpha-099-ghost' }])
    expect(by('worktree_without_task')).toMatchObject([{ subject: '.dacli/worktrees/alpha-098-ghost' }])
    expect(by('claim_on_closed_task')).toMatchObject([{ subject: a.ref, safe: true }])
    expect(by('remote_claim_without_task')).toMatchObject([{ subject: `refs/dacli/claims/${GHOST}`, safe: false }])
    expect(by('pr_without_task')).toHaveLength(1)
    expect(r.json.dry_run).toBe(true)
    expect(w.gh.writes()).toEqual([])

    // The world changes after the review: the plan id no longer matches → 5, nothing applied.
    git(root, 'branch', 'dacli/alpha-097-another')
    const before = w.ws.snapshot()
    const stale = (await w.run('reconcile', '--apply-safe', r.json.plan_id, '--json')).expectExit(5)
    expect(stale.error.details.reviewed).toBe(r.json.plan_id)
    expect(w.ws.snapshot()).toEqual(before)
    expect(remoteRef(`refs/dacli/claims/${await idOf(a.ref)}`)).not.toBe('')

    // Review again, apply that plan: only the safe findings.
    const again = (await w.run('reconcile', '--json')).expectExit(0).json
    const applied = (await w.run('reconcile', '--apply-safe', again.plan_id, '--json')).expectExit(0)
    expectValid(applied.json)
    expect(
      applied.json.applied.map((x: { class: string; outcome: string }) => `${x.class}:${x.outcome}`).sort(),
    ).toEqual(['claim_on_closed_task:applied', 'landed_not_done:applied'])
    expect((await w.ws.dacli('task', 'show', b.ref, '--json')).json.status).toBe('done')
    expect(remoteRef(`refs/dacli/claims/${await idOf(a.ref)}`)).toBe('')
    expect(remoteRef(`refs/dacli/claims/${GHOST}`)).not.toBe('')
    expect((await w.ws.dacli('task', 'show', c.ref, '--json')).json.status).not.toBe('done')
  })

  test('a bad project is 4; a read-only identity cannot apply (3)', async () => {
    w = await deliveryWorkspace()
    expect((await w.run('reconcile', '--project', 'nope', '--json')).code).toBe(4)
    const ro = await w.ws.agent('ro')
    const r = (await w.run('reconcile', '--apply-safe', 'rp-0', '--json', { as: ro.token })).expectExit(3)
    expect(r.error.details.policy).toBe('grant')
  })
})

describe('cleanup', () => {
  test('lists what finished work left; apply writes the artifact first; restore gives every ref and worktree back', async () => {
    w = await deliveryWorkspace()
    const root = w.ws.root
    const t = await w.worked('Finished work')
    w.push(t.dir, t.branch)
    git(root, 'merge', '-q', '--no-ff', '-m', `Merge branch '${t.branch}'`, t.branch)
    git(root, 'push', '-q', 'origin', 'main')
    ;(await w.ws.dacli('task', 'check', t.ref, '--all')).expectExit(0)
    ;(await w.ws.dacli('task', 'done', t.ref)).expectExit(0)
    const head = git(root, 'rev-parse', 'HEAD').trim()
    git(root, 'push', '-q', 'origin', `${head}:refs/dacli/claims/${await idOf(t.ref)}`)
    const open = await w.worked('Unfinished work') // its branch and worktree stay
    const tip = git(root, 'rev-parse', t.branch).trim()
    w.gh.resetCalls()

    const p = (await w.run('cleanup', '--json')).expectExit(0)
    expectValid(p.json)
    expect(p.json.candidates.map((c: { kind: string; subject: string }) => `${c.kind} ${c.subject}`)).toEqual([
      `finished_worktree ${path.relative(root, t.dir)}`,
      `merged_branch refs/heads/${t.branch}`,
      `merged_remote_branch refs/heads/${t.branch}`,
      `stale_claim_ref refs/dacli/claims/${await idOf(t.ref)}`,
    ])
    expect(w.gh.calls).toEqual([])

    const applied = (await w.run('cleanup', '--apply-safe', p.json.plan_id, '--json')).expectExit(0)
    expectValid(applied.json)
    expect(applied.json.outcomes.every((o: { outcome: string }) => o.outcome === 'removed')).toBe(true)
    expect(fs.existsSync(t.dir)).toBe(false)
    expect(git(root, 'branch', '--list', t.branch).trim()).toBe('')
    expect(remoteRef(`refs/heads/${t.branch}`)).toBe('')
    expect(fs.existsSync(open.dir)).toBe(true)
    const art = JSON.parse(w.ws.file(`${applied.json.artifact}/restore.json`))
    expect(art.candidates).toHaveLength(4)

    const restored = (await w.run('cleanup', '--restore', path.basename(applied.json.artifact), '--json')).expectExit(0)
    expectValid(restored.json)
    expect(restored.json.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual([
      'restored',
      'restored',
      'restored',
      'restored',
    ])
    expect(git(root, 'rev-parse', t.branch).trim()).toBe(tip)
    expect(remoteRef(`refs/heads/${t.branch}`)).toBe(tip)
    expect(remoteRef(`refs/dacli/claims/${await idOf(t.ref)}`)).toBe(head)
    expect(fs.existsSync(path.join(t.dir, `${t.branch.replace(/\W/g, '_')}.txt`))).toBe(true)
  })

  test('a stale plan id is 5 with nothing removed, one no preview prints is 2; --apply-safe with --restore is 2; an unknown artifact is 4', async () => {
    w = await deliveryWorkspace()
    const before = w.ws.snapshot()
    expect((await w.run('cleanup', '--apply-safe', 'cp-0000000000000000', '--json')).code).toBe(5)
    for (const bogus of ['cp-0000', 'rp-0000000000000000', 'bogus']) {
      const r = (await w.run('cleanup', '--apply-safe', bogus, '--json')).expectExit(2)
      expect(r.error.message).toContain(`"${bogus}" is not a plan id of cleanup`)
    }
    expect(w.ws.snapshot()).toEqual(before)
    expect((await w.run('cleanup', '--apply-safe', 'x', '--restore', 'y', '--json')).code).toBe(2)
    expect((await w.run('cleanup', '--restore', 'cp-nothing', '--json')).code).toBe(4)
  })
})
