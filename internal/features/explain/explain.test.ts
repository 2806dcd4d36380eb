// explain on real workspaces: dependencies and the plan, a
// question, a claim made on a remote and seen from another clone, a branch not
// landed (real commits and merges), and bad input.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { type Checkout, cloneTeam, team } from '../../testkit/coordination.js'
import { expectValid } from '../../testkit/schemas.js'
import { git, type RunOpts, snapshotOf, type Workspace, workspace } from '../../testkit/ws.js'

const NOW = new Date('2026-12-01T10:00:00Z')
const AT = '2026-12-01T10:00:00Z'

async function explain(ws: { dacli: Workspace['dacli'] }, ref: string, ...more: (string | RunOpts)[]) {
  const opts = (typeof more.at(-1) === 'object' ? more.pop() : {}) as RunOpts
  const r = (await ws.dacli('explain', ref, ...(more as string[]), '--json', { now: NOW, ...opts })).expectExit(0)
  expectValid(r.json)
  return r.json
}

/** Every part carries its source and when it was read. */
function expectSourced(doc: Record<string, any>, at = AT) {
  for (const k of [
    'task',
    'status',
    'readiness',
    'schedule',
    'claim',
    'questions',
    'criteria',
    'landing',
    'next_action',
  ]) {
    expect(typeof doc[k].source, k).toBe('string')
    expect(doc[k].source.length, k).toBeGreaterThan(0)
    if (k !== 'claim') expect(doc[k].observed_at, k).toBe(at)
  }
  expect(doc.observed_at).toBe(at)
}

async function ledger(): Promise<Workspace> {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
  const add = async (title: string, ...more: string[]) =>
    (await ws.dacli('task', 'add', title, '--project', 'ledger', '--force', ...more)).expectExit(0)
  await add(
    'Write the shim',
    '--accept',
    'shim exists',
    '--accept',
    'tests pass',
    '--estimate',
    '1,2,3',
    '--priority',
    'must',
  )
  await add('Audit writes', '--accept', 'audited', '--estimate', '2,2,2', '--depends-on', 'ledger/1')
  await add('Tune batch', '--accept', 'tuned', '--estimate', '1,1,1', '--depends-on', 'ledger/1:SS')
  await add('Write docs', '--accept', 'docs', '--estimate', '1,1,1', '--priority', 'must')
  return ws
}

describe('explain: the plan', () => {
  test('ready with its rank and slack; waiting names each unmet dependency with type and status', async () => {
    const ws = await ledger()
    // Ready: 1 and 4 (both must, both unsized-free): 1 is critical (slack 0), 4 has slack 4 - 1 = 3.
    const one = await explain(ws, 'ledger/1')
    expectSourced(one)
    expect(one.task).toMatchObject({ ref: 'ledger/001-write-the-shim', priority: 'must', owner: null })
    expect(one.task.source).toBe('.dacli/projects/ledger/tasks/open/001-write-the-shim.md')
    expect(one.readiness).toMatchObject({ ready: true, reason: 'ready', unmet: [] })
    expect(one.schedule).toMatchObject({ rank: 1, ready_count: 2, why_unranked: null, slack: 0, critical: true })
    expect(one.next_action).toMatchObject({
      command: 'dacli task claim ledger/001-write-the-shim',
      who: 'agent',
      why: 'it is ready: #1 of 2 in dacli next',
    })
    const docs = await explain(ws, 'ledger/4')
    expect(docs.schedule).toMatchObject({ rank: 2, slack: 3, critical: false })
    // The same order `next` gives.
    const next = (await ws.dacli('next', '--json', { now: NOW })).json
    expect(next.ready.map((r: { ref: string }) => r.ref)).toEqual([
      'ledger/001-write-the-shim',
      'ledger/004-write-docs',
    ])

    const two = await explain(ws, 'ledger/2')
    expect(two.readiness).toMatchObject({ ready: false, reason: 'waiting' })
    expect(two.readiness.unmet).toEqual([
      {
        id: one.task.id,
        ref: 'ledger/001-write-the-shim',
        title: 'Write the shim',
        type: 'FS',
        status: 'open',
        needs: 'done',
        source: '.dacli/projects/ledger/tasks/open/001-write-the-shim.md',
      },
    ])
    expect(two.schedule).toMatchObject({
      rank: null,
      why_unranked: 'a dependency holds its start',
      slack: 0,
      critical: true,
    })
    expect(two.next_action).toMatchObject({ command: 'dacli explain ledger/001-write-the-shim', who: 'agent' })
    expect(two.next_action.why).toBe('it waits on ledger/001-write-the-shim (FS: must be done; it is open)')

    // Claimed, 1 is active: the SS successor may start, the FS one still waits (on an active task now).
    ;(await ws.dacli('task', 'claim', 'ledger/1', '--lease', '2h', { now: NOW })).expectExit(0)
    const three = await explain(ws, 'ledger/3', { now: new Date('2026-12-01T10:30:00Z') })
    expect(three.readiness).toMatchObject({ ready: true, unmet: [] })
    expect((await explain(ws, 'ledger/2')).readiness.unmet[0]).toMatchObject({ status: 'active', type: 'FS' })
    const active = await explain(ws, 'ledger/1', { now: new Date('2026-12-01T10:30:00Z') })
    expect(active.claim).toMatchObject({
      held: true,
      by: 'a-root',
      expires: '2026-12-01T12:00:00Z',
      lease_left_seconds: 5400,
      expired: false,
      where: 'local',
      remote: null,
      other_clone: null,
    })
    expect(active.claim.source).toBe('.dacli/projects/ledger/tasks/active/001-write-the-shim.md (claim)')
    expect(active.schedule).toMatchObject({ rank: null, why_unranked: 'it is active: next offers only open tasks' })
    expect(active.criteria).toMatchObject({
      total: 2,
      checked: 0,
      unchecked: [
        { n: 1, text: 'shim exists' },
        { n: 2, text: 'tests pass' },
      ],
    })
    expect(active.next_action.command).toBe(
      'dacli task check ledger/001-write-the-shim --n 1 --verify "<command that proves it>"',
    )
    // One criterion proven by a command, one attested: counted apart.
    expect(active.next_action.why).toBe('2 of 2 acceptance criteria are unchecked (next: 1. shim exists)')
    ;(await ws.dacli('task', 'check', 'ledger/1', '--n', '1', '--verify', 'true')).expectExit(0)
    // One left: the count and the verb agree with it.
    expect((await explain(ws, 'ledger/1')).next_action.why).toBe(
      '1 of 2 acceptance criteria is unchecked (next: 2. tests pass)',
    )
    ;(await ws.dacli('task', 'check', 'ledger/1', '--n', '2')).expectExit(0)
    const checked = await explain(ws, 'ledger/1')
    expect(checked.criteria).toMatchObject({ total: 2, checked: 2, verified: 1, attested: 1, unchecked: [] })
    expect(checked.landing).toMatchObject({ branch: null, landed: null })
    expect(checked.next_action.command).toBe('dacli task done ledger/001-write-the-shim')
    // An expired lease: anyone may take it over.
    const late = await explain(ws, 'ledger/1', { now: new Date('2026-12-01T13:00:00Z') })
    expect(late.claim).toMatchObject({ held: false, expired: true, lease_left_seconds: -3600 })
    expect(late.next_action.command).toBe('dacli task claim ledger/001-write-the-shim')
  })

  test('an open question: blocked by it, listed, the next action is a person’s answer; answered, back to work', async () => {
    const ws = await ledger()
    ;(await ws.dacli('task', 'claim', 'ledger/1', { now: NOW })).expectExit(0)
    const q = (await ws.dacli('ask', 'Half-even or half-up?', '--about', 'ledger/1', '--need', 'a rule', '--json')).json
    const blocked = await explain(ws, 'ledger/1')
    expect(blocked.status).toMatchObject({
      value: 'blocked',
      blocked_by: q.id,
      blocked_by_kind: 'question',
      reason: null,
    })
    expect(blocked.questions.open).toEqual([
      {
        id: q.id,
        question: 'Half-even or half-up?',
        need: 'a rule',
        asked_by: 'a-root',
        asked_at: q.asked_at,
        blocks: true,
        source: q.path,
      },
    ])
    expect(blocked.next_action).toMatchObject({ command: `dacli answer ${q.id} "<answer>"`, who: 'person' })
    // Nothing offered by next while it waits (and nothing ranks it).
    expect(blocked.schedule.rank).toBeNull()
    ;(await ws.dacli('answer', q.id, 'half-even')).expectExit(0)
    const after = await explain(ws, 'ledger/1')
    expect(after.status).toMatchObject({ value: 'active', blocked_by: null })
    expect(after.questions).toMatchObject({ open: [], answered: 1, dismissed: 0 })
    // Blocked by a task, with a reason: the reason is the log's, the next action looks at the blocker.
    ;(await ws.dacli('task', 'block', 'ledger/4', '--by', 'ledger/1', '--why', 'needs the shim')).expectExit(0)
    const four = await explain(ws, 'ledger/4')
    expect(four.status).toMatchObject({
      value: 'blocked',
      blocked_by_kind: 'task',
      blocked_by_ref: 'ledger/001-write-the-shim',
      reason: 'needs the shim',
    })
    expect(four.next_action.command).toBe('dacli explain ledger/001-write-the-shim')
  })

  test('a wont task is out of the plan: nobody moves it; --into on a task without a branch is a note, not an error', async () => {
    const ws = await ledger()
    ;(await ws.dacli('task', 'edit', 'ledger/4', '--priority', 'wont')).expectExit(0)
    const wont = await explain(ws, 'ledger/4')
    expect(wont.readiness).toMatchObject({ ready: false, reason: 'wont' })
    expect(wont.schedule).toMatchObject({
      rank: null,
      why_unranked: 'its priority is wont: it is out of the plan',
      slack: null,
    })
    expect(wont.next_action).toMatchObject({ command: null, who: 'nobody' })
    // A dependency that names no task (written by hand) holds the start for good: remove it.
    const file = '.dacli/projects/ledger/tasks/open/002-audit-writes.md'
    const ghost = 't-01ZZZZZZZZZZZZZZZZZZZZZZZZ'
    ws.write(file, ws.file(file).replace(/on: t-[0-9A-Z]{26}/, `on: ${ghost}`))
    const dangling = await explain(ws, 'ledger/2')
    expect(dangling.readiness.unmet).toEqual([
      expect.objectContaining({ id: null, ref: ghost, status: null, type: 'FS', needs: 'done' }),
    ])
    expect(dangling.next_action).toMatchObject({
      command: `dacli task depend ledger/002-audit-writes --remove ${ghost}`,
      who: 'agent',
    })
    const r = (await ws.dacli('explain', 'ledger/1', '--into', 'main', '--json')).expectExit(0)
    expect(r.json.landing).toMatchObject({ branch: null, landed: null })
    expect(r.stderr).toContain('--into is ignored: ledger/001-write-the-shim has no branch')
  })

  test('people read one line per part and the next action', async () => {
    const ws = await ledger()
    ;(await ws.dacli('task', 'claim', 'ledger/1', '--lease', '2h', { now: NOW })).expectExit(0)
    const r = (await ws.dacli('explain', 'ledger/2', { now: new Date('2026-12-01T10:30:00Z') })).expectExit(0)
    expect(r.stdout.split('\n')).toEqual([
      'ledger/2  Audit writes',
      'status:    open',
      'ready:     no — waits on FS on ledger/1: must be done (it is active)',
      'in next:   not offered (a dependency holds its start) · slack 0.0 · on the critical path',
      'claim:     nobody',
      'questions: none',
      'criteria:  0 of 1 checked (0 verified, 0 attested); next: 1. audited',
      'landing:   no branch',
      '',
      'next (for an agent): dacli explain ledger/001-write-the-shim',
      '  it waits on ledger/001-write-the-shim (FS: must be done; it is active)',
      'read at 2026-12-01T10:30:00Z; --json names where each part was read',
      '',
    ])
    const one = (await ws.dacli('explain', 'ledger/1', { now: new Date('2026-12-01T10:30:00Z') })).stdout
    expect(one).toContain('claim:     a-root, 1h30m of lease left, in this clone\n')
  })
})

describe('explain: landing', () => {
  test('a worktree branch not on trunk: the missing commits, a person merges; merged, it may close; closed unlanded, the log’s branch is checked again', async () => {
    const ws = await ledger()
    ;(await ws.dacli('task', 'claim', 'ledger/1', { now: NOW })).expectExit(0)
    ;(await ws.dacli('worktree', 'add', 'ledger/1')).expectExit(0)
    const t = (await ws.dacli('task', 'show', 'ledger/1', '--json')).json
    const dir = path.join(ws.root, t.worktree.path)
    fs.writeFileSync(path.join(dir, 'shim.txt'), 'shim\n')
    git(dir, 'add', 'shim.txt')
    git(dir, 'commit', '-q', '-m', 'Add the shim')
    const sha = git(dir, 'rev-parse', 'HEAD').trim()
    for (const n of ['1', '2']) (await ws.dacli('task', 'check', 'ledger/1', '--n', n)).expectExit(0)
    const before = await explain(ws, 'ledger/1')
    expect(before.landing).toMatchObject({
      branch: t.worktree.branch,
      branch_source: 'worktree',
      trunk: 'main',
      landed: false,
      missing: [{ sha, subject: 'Add the shim' }],
      merged_as: null,
      logged: null,
      unknown_reason: null,
    })
    expect(before.landing.source).toBe(`git cherry main ${t.worktree.branch}`)
    expect(before.landing.trunk_commit).toBe(git(ws.root, 'rev-parse', 'main').trim())
    expect(before.next_action).toMatchObject({
      command: `git switch main && git merge ${t.worktree.branch}`,
      who: 'person',
      why: `it cannot close until it lands: 1 commit of ${t.worktree.branch} is not on main`,
    })
    // The same check task done makes: it refuses now.
    expect((await ws.dacli('task', 'done', 'ledger/1', '--json')).expectExit(3).error.details.policy).toBe('unlanded')
    // Against another trunk that has it: landed there.
    git(ws.root, 'branch', 'release', sha)
    expect((await explain(ws, 'ledger/1', '--into', 'release')).landing).toMatchObject({
      trunk: 'release',
      landed: true,
    })
    expect((await explain(ws, 'ledger/1', '--into', 'release')).next_action.command).toBe(
      'dacli task done ledger/001-write-the-shim --into release',
    )
    // Closed with --allow-unlanded: explain reads the branch from the log and checks it again.
    ;(await ws.dacli('task', 'done', 'ledger/1', '--allow-unlanded')).expectExit(0)
    ;(await ws.dacli('worktree', 'remove', 'ledger/1', '--force')).expectExit(0)
    const closed = await explain(ws, 'ledger/1')
    expect(closed.status.value).toBe('done')
    expect(closed.landing).toMatchObject({ branch: t.worktree.branch, branch_source: 'log', landed: false })
    expect(closed.landing.logged).toMatchObject({ verb: 'unlanded' })
    expect(closed.next_action).toMatchObject({
      who: 'person',
      command: `git switch main && git merge ${t.worktree.branch}`,
    })
    git(ws.root, 'merge', '-q', '--no-edit', t.worktree.branch)
    const merged = await explain(ws, 'ledger/1')
    expect(merged.landing).toMatchObject({ landed: true, missing: [] })
    expect(merged.next_action).toMatchObject({ command: null, who: 'nobody', why: 'it is done and landed' })
  })

  test('outside git the landing cannot be told, and says why; bad input is refused and nothing is written', async () => {
    const bare = await workspace({ git: false })
    ;(await bare.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
    ;(await bare.dacli('task', 'add', 'Shim', '--project', 'ledger', '--accept', 'x')).expectExit(0)
    const d = await explain(bare, 'ledger/1', '--branch', 'feature')
    expect(d.landing).toMatchObject({ branch: 'feature', branch_source: 'flag', landed: null })
    expect(d.landing.unknown_reason).toContain('not inside a git repository')

    const ws = await ledger()
    const snap = snapshotOf(ws.root)
    const cases: [string[], number][] = [
      [['explain', 'ledger/99'], 4],
      [['explain', 'ledger/1', '--branch', 'no-such-branch'], 4],
      [['explain', 'ledger/1', '--branch', 'main', '--into', 'no-such-trunk'], 4],
      [['explain', 'ledger/1', '--branch', '--bad'], 2],
      [['explain'], 2],
      [['explain', 'ledger/1', '--remote', 'x'], 2],
    ]
    for (const [argv, code] of cases) {
      const r = (await ws.dacli(...argv, '--json')).expectExit(code)
      expect(r.stdout).toBe('')
      expectValid(r.error)
    }
    expect(snapshotOf(ws.root)).toEqual(snap)
  })
})

describe('explain: a claim made on a remote', () => {
  test('the holder’s clone sees its remote claim; another clone sees it as last fetched (or fetched with --fetch)', async () => {
    const t = await team(await workspace(), { tasks: 2 })
    await cloneTeam(t, 2, 0)
    const [b, c] = t.clones as [Checkout, Checkout]
    ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h', { now: NOW })).expectExit(0)
    const mine = await explain(b, 'race/1', { now: new Date('2026-12-01T10:15:00Z') })
    expect(mine.claim).toMatchObject({
      held: true,
      by: 'a-root',
      lease_left_seconds: 2700,
      where: 'remote',
      remote: 'origin',
      other_clone: null,
    })
    expect(mine.claim.source).toContain(`refs/dacli/claims/${mine.task.id} on origin`)
    // c has never fetched: its copy is open and nobody holds it, as far as it knows.
    const blind = await explain(c, 'race/1')
    expect(blind.claim).toMatchObject({ held: false, by: null })
    expect(blind.schedule.rank).toBe(1)
    // With --fetch, the remote's claim: another clone's, observed when fetched; next leaves it out.
    const seen = await explain(c, 'race/1', '--fetch', { now: new Date('2026-12-01T10:20:00Z') })
    expect(seen.claim).toMatchObject({
      held: true,
      by: 'a-root',
      where: 'remote',
      remote: 'origin',
      expires: '2026-12-01T11:00:00Z',
      lease_left_seconds: 2400,
      other_clone: { workspace: path.join(b.root, '.dacli') },
      observed_at: '2026-12-01T10:20:00Z',
    })
    expect(seen.claim.source).toBe(
      `.dacli/cache/remote-claims.json (refs/dacli/claims/${seen.task.id} on origin, as last fetched)`,
    )
    expect(seen.schedule).toMatchObject({
      rank: null,
      why_unranked: 'another clone holds a live claim on it (the remote’s claims as last fetched)',
    })
    expect(seen.next_action).toMatchObject({ command: 'dacli next', who: 'agent' })
    // Later, without --fetch: the same claim, still dated when it was fetched.
    const later = await explain(c, 'race/1', { now: new Date('2026-12-01T10:40:00Z') })
    expect(later.claim).toMatchObject({ observed_at: '2026-12-01T10:20:00Z', lease_left_seconds: 1200 })
    expect(later.observed_at).toBe('2026-12-01T10:40:00Z')
  })
})
