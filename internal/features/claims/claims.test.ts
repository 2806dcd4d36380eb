// Claims arbitrated by a git remote: what each lifecycle command
// does to refs/dacli/claims/<task-id>, what the task file says, and the offline
// readers (claims list, next, overview, doctor). Real clones of a bare remote.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { type Checkout, cloneTeam, remoteHolder, type Team, team } from '../../testkit/coordination.js'
import { expectValid } from '../../testkit/schemas.js'
import { git, snapshotOf, workspace } from '../../testkit/ws.js'

const T1 = '.dacli/projects/race/tasks'

async function twoClones(tasks = 3): Promise<{ t: Team; b: Checkout; c: Checkout; ids: string[] }> {
  const t = await team(await workspace(), { tasks })
  await cloneTeam(t, 2, 0)
  const ids = (await t.a.dacli('task', 'list', '--project', 'race', '--json')).json.tasks.map(
    (x: { id: string }) => x.id,
  )
  return { t, b: t.clones[0] as Checkout, c: t.clones[1] as Checkout, ids }
}

/** `claims: {remote: origin}` in each checkout's config.yml. */
function claimsOnOrigin(...checkouts: Checkout[]): void {
  for (const x of checkouts) {
    const cfg = path.join(x.root, '.dacli', 'config.yml')
    fs.writeFileSync(cfg, `${fs.readFileSync(cfg, 'utf8')}claims: {remote: origin}\n`)
  }
}

const remoteRefs = (t: Team) =>
  git(path.join(t.root, 'team.git'), 'for-each-ref', '--format=%(refname)', 'refs/dacli/claims/')
    .split('\n')
    .filter(Boolean)

describe('task claim --remote', () => {
  test('the claim ref, its YAML message, the local claim; the loser exits 5 with holder, lease and remote', async () => {
    const { t, b, c, ids } = await twoClones()
    const now = new Date('2026-12-01T10:00:00Z')
    const won = (
      await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h', '--json', { now })
    ).expectExit(0).json
    expectValid(won)
    expect(won.task.claim).toEqual({
      by: 'a-root',
      at: '2026-12-01T10:00:00Z',
      expires: '2026-12-01T11:00:00Z',
      remote: 'origin',
      expired: false,
    })
    expect(won.details).toMatchObject({ remote: 'origin' })
    const file = b.file(`${T1}/active/001-contested-1.md`)
    expect(file).toContain(
      '\nclaim: {by: a-root, at: 2026-12-01T10:00:00Z, expires: 2026-12-01T11:00:00Z, remote: origin}\n',
    )
    expect(file).toMatch(/a-root claimed lease 3600s on origin\n/)
    const bare = path.join(t.root, 'team.git')
    const msg = git(bare, 'log', '-1', '--format=%B', `refs/dacli/claims/${ids[0]}`)
    expect(msg.trim()).toBe(
      [
        `task: ${ids[0]}`,
        'by: a-root',
        'at: 2026-12-01T10:00:00Z',
        'expires: 2026-12-01T11:00:00Z',
        `workspace: ${JSON.stringify(path.join(b.root, '.dacli'))}`,
        `host: ${JSON.stringify((await import('node:os')).hostname())}`,
        `clone: ${fs.readFileSync(path.join(b.root, '.git', 'dacli-clone-id'), 'utf8').trim()}`,
      ].join('\n'),
    )
    expect(git(bare, 'log', '-1', '--format=%T %P %cn', `refs/dacli/claims/${ids[0]}`).trim()).toBe(
      '4b825dc642cb6eb9a060e54bf8d69288fbee4904  dacli',
    )
    // c is another clone: its copy of the task is open and unowned, but the remote says no.
    const before = snapshotOf(c.root)
    const lost = (await c.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--json', { now })).expectExit(5)
    expect(lost.error.details).toMatchObject({
      owner: 'a-root',
      claimed_at: '2026-12-01T10:00:00Z',
      expires: '2026-12-01T11:00:00Z',
      remote: 'origin',
      holder: { by: 'a-root', workspace: path.join(b.root, '.dacli') },
    })
    expect(lost.error.message).toContain('race/001-contested-1 is claimed on origin by a-root')
    expect([...snapshotOf(c.root)].filter(([k]) => !k.includes('cache'))).toEqual(
      [...before].filter(([k]) => !k.includes('cache')),
    )
    expect((await c.dacli('task', 'show', 'race/1', '--json')).json.owner).toBeNull()
    // Again from b while the lease holds: unchanged, no new commit on the remote.
    const head = git(bare, 'rev-parse', `refs/dacli/claims/${ids[0]}`)
    const again = await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--json', { now })
    expect(again.expectExit(0).json.outcome).toBe('unchanged')
    expect(git(bare, 'rev-parse', `refs/dacli/claims/${ids[0]}`)).toBe(head)
    // After the lease ran out, b's repeat takes it again on the remote (a new claim commit), so c still loses.
    const later = new Date('2026-12-01T12:00:00Z')
    const renewed = await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--json', { now: later })
    expect(renewed.expectExit(0).json.outcome).toBe('changed')
    expect(git(bare, 'rev-parse', `refs/dacli/claims/${ids[0]}`)).not.toBe(head)
    ;(await c.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--json', { now: later })).expectExit(5)
  })

  test('renew replaces the claim under a lease; release, done and accept delete the ref', async () => {
    const { t, b, ids } = await twoClones()
    const bare = path.join(t.root, 'team.git')
    const at = new Date('2026-12-01T10:00:00Z')
    for (const n of ['1', '2', '3'])
      (await b.dacli('task', 'claim', `race/${n}`, '--remote', 'origin', { now: at })).expectExit(0)
    expect(remoteRefs(t)).toHaveLength(3)
    const first = git(bare, 'rev-parse', `refs/dacli/claims/${ids[0]}`)
    const later = new Date('2026-12-01T10:30:00Z')
    const renewed = (await b.dacli('task', 'renew', 'race/1', '--lease', '2h', '--json', { now: later })).expectExit(
      0,
    ).json
    expect(renewed.task.claim).toMatchObject({ expires: '2026-12-01T12:30:00Z', remote: 'origin' })
    expect(git(bare, 'rev-parse', `refs/dacli/claims/${ids[0]}`)).not.toBe(first)
    expect(git(bare, 'log', '-1', '--format=%B', `refs/dacli/claims/${ids[0]}`)).toContain(
      'expires: 2026-12-01T12:30:00Z',
    )
    // The claim remembers its remote: release needs no --remote.
    const released = (await b.dacli('task', 'release', 'race/1', '--json')).expectExit(0).json
    expect(released.details.remote_claim).toEqual({ remote: 'origin', outcome: 'dropped', holder: null })
    expect(remoteRefs(t)).not.toContain(`refs/dacli/claims/${ids[0]}`)
    ;(await b.dacli('task', 'check', 'race/2', '--all')).expectExit(0)
    const done = (await b.dacli('task', 'done', 'race/2', '--json')).expectExit(0).json
    expect(done.details.remote_claim.outcome).toBe('dropped')
    const accepted = (await b.dacli('accept', 'race/3', '--json')).expectExit(0).json
    expect(accepted.accepted).toBe(1)
    expect(remoteRefs(t)).toEqual([])
  })

  test('an expired claim is taken over under a lease on it (taken-over); a live one is not', async () => {
    const { t, b, c, ids } = await twoClones()
    const at = new Date('2026-12-01T10:00:00Z')
    ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h', { now: at })).expectExit(0)
    const early = new Date('2026-12-01T10:59:00Z')
    ;(await c.dacli('task', 'claim', 'race/1', '--remote', 'origin', { now: early })).expectExit(5)
    const late = new Date('2026-12-01T11:00:01Z')
    const r = (await c.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--json', { now: late })).expectExit(
      0,
    ).json
    expect(r.outcome).toBe('taken-over')
    expect(r.details.previous_owner).toBe('a-root')
    expect(r.task.log.at(-1)).toMatchObject({ verb: 'taken-over', details: 'from a-root (lease expired) on origin' })
    const msg = git(path.join(t.root, 'team.git'), 'log', '-1', '--format=%B', `refs/dacli/claims/${ids[0]}`)
    expect(msg).toContain(`workspace: ${JSON.stringify(path.join(c.root, '.dacli'))}`)
    // b's renewal now meets c's live claim: 5, and b's file is left as it was.
    const before = b.file(`${T1}/active/001-contested-1.md`)
    const refused = (await b.dacli('task', 'renew', 'race/1', '--lease', '1h', '--json', { now: late })).expectExit(5)
    expect(refused.error.details.holder.workspace).toBe(path.join(c.root, '.dacli'))
    expect(b.file(`${T1}/active/001-contested-1.md`)).toBe(before)
    // b's release leaves c's claim alone and says so.
    const released = (await b.dacli('task', 'release', 'race/1', '--json', { now: late })).expectExit(0).json
    expect(released.details.remote_claim).toMatchObject({ outcome: 'held', holder: { by: 'a-root' } })
    expect(remoteHolder(t, ids[0] as string)).toBe('a-root')
    // Closing it in b while c holds it live is a conflict.
    ;(await b.dacli('task', 'check', 'race/1', '--all')).expectExit(0)
    expect(
      (await b.dacli('task', 'done', 'race/1', '--remote', 'origin', '--json', { now: late })).expectExit(5).error
        .details.remote,
    ).toBe('origin')
  })

  test('claims: {remote: origin} in config.yml; --local opts out (claimed-local); doctor and next see both', async () => {
    const { t, b, c, ids } = await twoClones()
    claimsOnOrigin(b, c)
    ;(await b.dacli('task', 'claim', 'race/1')).expectExit(0)
    expect(remoteHolder(t, ids[0] as string)).toBe('a-root')
    const local = (await b.dacli('task', 'claim', 'race/2', '--local', '--json')).expectExit(0).json
    expect(local.task.claim.remote).toBeNull()
    expect(local.task.log.at(-1).verb).toBe('claimed-local')
    expect(remoteRefs(t)).toHaveLength(1)
    expect(
      (await b.dacli('task', 'claim', 'race/3', '--local', '--remote', 'origin', '--json')).expectExit(2).error.details
        .conflicting_flags,
    ).toEqual(['--remote', '--local'])
    // c learns the remote's claims: next and overview leave race/1 out; doctor in b flags the local-only claim.
    const list = (await c.dacli('claims', 'list', '--json')).expectExit(0).json
    expectValid(list)
    expect(list.claims).toEqual([
      expect.objectContaining({ task: ids[0], ref: 'race/001-contested-1', status: 'open', by: 'a-root', mine: false }),
    ])
    const next = (await c.dacli('next', '--parallel', '5', '--json')).expectExit(0)
    expect(next.json.ready.map((r: { ref: string }) => r.ref)).not.toContain('race/001-contested-1')
    expect(next.stderr).toContain('left out 1 open task claimed in another clone')
    const overview = (await c.dacli('overview', '--json')).expectExit(0).json
    expect(overview.ready_now.map((r: { ref: string }) => r.ref)).not.toContain('race/001-contested-1')
    const doctor = (await b.dacli('doctor', '--json')).expectExit(0).json
    expect(doctor.findings).toContainEqual(
      expect.objectContaining({ code: 'unpublished-claim', subject: 'race/002-contested-2', severity: 'warning' }),
    )
    // Publishing it: the owner claims it again.
    const published = (await b.dacli('task', 'claim', 'race/2', '--json')).expectExit(0).json
    expect(published.details.published).toBe('origin')
    expect(remoteHolder(t, ids[1] as string)).toBe('a-root')
    // next --fetch refreshes first.
    ;(await b.dacli('task', 'claim', 'race/3')).expectExit(0)
    expect((await c.dacli('next', '--json')).json.ready.map((r: { ref: string }) => r.ref)).toContain(
      'race/003-contested-3',
    )
    expect((await c.dacli('next', '--fetch', '--json')).json.ready).toEqual([])
  })

  test('doctor reports a remote claim for a task that is done here (stale-remote-claim)', async () => {
    const { b, c, ids } = await twoClones()
    ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin')).expectExit(0)
    ;(await c.dacli('task', 'check', 'race/1', '--all')).expectExit(0)
    ;(await c.dacli('task', 'done', 'race/1')).expectExit(0)
    ;(await c.dacli('claims', 'list')).expectExit(0)
    const doctor = (await c.dacli('doctor', '--json')).expectExit(0).json
    expect(doctor.findings).toContainEqual(
      expect.objectContaining({
        code: 'stale-remote-claim',
        subject: 'race/001-contested-1',
        hint: `check it is still there (dacli doctor --fetch); once nobody works on it: git push origin --delete refs/dacli/claims/${ids[0]}`,
      }),
    )
  })

  test('a claim ref that is not a dacli claim is listed as unreadable and never taken', async () => {
    const { t, b, ids } = await twoClones()
    const bare = path.join(t.root, 'team.git')
    const main = git(bare, 'rev-parse', 'main').trim()
    git(bare, 'update-ref', `refs/dacli/claims/${ids[0]}`, main)
    const list = (await b.dacli('claims', 'list', '--json')).expectExit(0).json
    expect(list.unreadable).toEqual([{ task: ids[0], commit: main }])
    const r = (await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--json')).expectExit(5)
    expect(r.error.details.commit).toBe(main)
    expect((await b.dacli('claims', 'list', '--remote=-x', '--json')).expectExit(2).error.kind).toBe('usage')
  })
})

describe('the same identity in two clones (a-root exists in every clone)', () => {
  test('a claim the pulled task file calls yours is asked of the remote: another clone’s live claim is 5', async () => {
    const { t, b, c, ids } = await twoClones()
    const bare = path.join(t.root, 'team.git')
    const at = new Date('2026-12-01T10:00:00Z')
    ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h', { now: at })).expectExit(0)
    // b's record reaches c: c's copy of the task now says owner a-root, claim on origin.
    ;(await b.dacli('record')).expectExit(0)
    ;(await b.dacli('record', 'push')).expectExit(0)
    ;(await c.dacli('record', 'pull')).expectExit(0)
    const file = `${T1}/active/001-contested-1.md`
    expect(c.file(file)).toContain('claim: {by: a-root')
    const head = git(bare, 'rev-parse', `refs/dacli/claims/${ids[0]}`)
    const before = snapshotOf(c.root)
    const lost = (
      await c.dacli('task', 'claim', 'race/1', '--json', { now: new Date('2026-12-01T10:10:00Z') })
    ).expectExit(5)
    expect(lost.error.details.holder.workspace).toBe(path.join(b.root, '.dacli'))
    expect(snapshotOf(c.root)).toEqual(before)
    expect(git(bare, 'rev-parse', `refs/dacli/claims/${ids[0]}`)).toBe(head)
    // In b, where the claim was made, claiming again is still unchanged and pushes nothing.
    const again = (
      await b.dacli('task', 'claim', 'race/1', '--json', { now: new Date('2026-12-01T10:10:00Z') })
    ).expectExit(0).json
    expect(again.outcome).toBe('unchanged')
    expect(git(bare, 'rev-parse', `refs/dacli/claims/${ids[0]}`)).toBe(head)
    // Once b's lease has expired, c takes it over on the remote (and says from whom).
    const late = new Date('2026-12-01T11:00:01Z')
    const taken = (await c.dacli('task', 'claim', 'race/1', '--json', { now: late })).expectExit(0).json
    expect(taken.outcome).toBe('taken-over')
    expect(taken.task.log.at(-1)).toMatchObject({
      verb: 'taken-over',
      details: 'from a-root (lease expired) on origin',
    })
    expect(git(bare, 'log', '-1', '--format=%B', `refs/dacli/claims/${ids[0]}`)).toContain(
      `workspace: ${JSON.stringify(path.join(c.root, '.dacli'))}`,
    )
    // b's file still calls it b's; the remote says otherwise: 5, b's file untouched.
    const bBefore = b.file(file)
    ;(await b.dacli('task', 'claim', 'race/1', '--json', { now: late })).expectExit(5)
    expect(b.file(file)).toBe(bBefore)
  })

  test('releasing the claim a pulled task file carries, which another clone holds live, is 5: theirs survives', async () => {
    const { t, b, c, ids } = await twoClones()
    const bare = path.join(t.root, 'team.git')
    ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h')).expectExit(0)
    ;(await b.dacli('record', 'sync')).expectExit(0)
    ;(await c.dacli('record', 'sync')).expectExit(0)
    const file = `${T1}/active/001-contested-1.md`
    expect(c.file(file)).toContain('claim: {by: a-root')
    const head = git(bare, 'rev-parse', `refs/dacli/claims/${ids[0]}`)
    const before = snapshotOf(c.root)
    const refused = (await c.dacli('task', 'release', 'race/1', '--json')).expectExit(5)
    expect(refused.error.details).toMatchObject({ owner: 'a-root', remote: 'origin' })
    expect(refused.error.details.holder.workspace).toBe(path.join(b.root, '.dacli'))
    expect([...snapshotOf(c.root)].filter(([k]) => !k.includes('cache'))).toEqual(
      [...before].filter(([k]) => !k.includes('cache')),
    )
    expect(git(bare, 'rev-parse', `refs/dacli/claims/${ids[0]}`)).toBe(head)
    // c's doctor knows the claim its file carries is the remote's: nothing unpublished.
    ;(await c.dacli('claims', 'list')).expectExit(0)
    const doctor = (await c.dacli('doctor', '--json')).expectExit(0).json
    expect(doctor.findings.filter((f: { code: string }) => f.code === 'unpublished-claim')).toEqual([])
    // Nothing for b to lose on its next sync: its task is still its own.
    ;(await c.dacli('record', 'sync')).expectExit(0)
    ;(await b.dacli('record', 'sync')).expectExit(0)
    expect(b.file(file)).toContain('claim: {by: a-root')
    expect((await b.dacli('task', 'release', 'race/1', '--json')).expectExit(0).json.details.remote_claim.outcome).toBe(
      'dropped',
    )
  })
})

describe('closing a task with claims: {remote} in config.yml', () => {
  test('done and accept ask the remote even when this clone never claimed the task', async () => {
    const { t, b, c, ids } = await twoClones()
    claimsOnOrigin(b, c)
    ;(await b.dacli('task', 'claim', 'race/1')).expectExit(0)
    ;(await b.dacli('task', 'claim', 'race/2')).expectExit(0)
    ;(await c.dacli('task', 'check', 'race/1', '--all')).expectExit(0)
    const before = snapshotOf(c.root)
    const done = (await c.dacli('task', 'done', 'race/1', '--json')).expectExit(5).error
    expect(done.details).toMatchObject({ remote: 'origin', holder: { workspace: path.join(b.root, '.dacli') } })
    // The way forward is a command to run, the one that was refused with --local.
    expect(done.next_actions[1]).toMatch(/^dacli task done race\/001-\S+ --local \(closes it in this clone only/)
    const accepted = (await c.dacli('accept', 'race/2', '--json')).expectExit(5).error
    expect(accepted.details).toMatchObject({ remote: 'origin' })
    expect(accepted.next_actions[1]).toMatch(/^dacli accept race\/002-\S+ --local /)
    expect(snapshotOf(c.root)).toEqual(before)
    expect(remoteRefs(t)).toEqual([`refs/dacli/claims/${ids[0]}`, `refs/dacli/claims/${ids[1]}`].sort())
    // Nobody holds race/3: done goes through, and says the remote had no claim.
    ;(await c.dacli('task', 'check', 'race/3', '--all')).expectExit(0)
    const free = (await c.dacli('task', 'done', 'race/3', '--json')).expectExit(0).json
    expect(free.details.remote_claim).toEqual({ remote: 'origin', outcome: 'absent', holder: null })
    // Unreachable: fail closed (1, nothing changed); --local closes it in this clone only.
    ;(await b.dacli('task', 'release', 'race/1')).expectExit(0)
    fs.renameSync(path.join(t.root, 'team.git'), path.join(t.root, 'moved.git'))
    const still = snapshotOf(c.root)
    expect((await c.dacli('task', 'done', 'race/1', '--json')).expectExit(1).error.next_actions[1]).toContain('--local')
    expect(snapshotOf(c.root)).toEqual(still)
    expect((await c.dacli('task', 'done', 'race/1', '--local', '--json')).expectExit(0).json.task.status).toBe('done')
  })
})

describe('an unreachable remote', () => {
  test('a remote name git does not know (a typo in --remote or claims.remote) is 4, not "retry later"', async () => {
    const { b } = await twoClones()
    const before = snapshotOf(b.root)
    for (const argv of [
      ['task', 'claim', 'race/1', '--remote', 'orign'],
      ['claims', 'list', '--remote', 'orign'],
    ]) {
      const r = (await b.dacli(...argv, '--json')).expectExit(4).error
      expect(r.message).toContain('no git remote "orign"')
      expect(r.next_actions).toEqual(['git remote -v', 'git remote add orign <url>'])
      expect(snapshotOf(b.root)).toEqual(before)
    }
    const cfg = path.join(b.root, '.dacli', 'config.yml')
    fs.writeFileSync(cfg, `${fs.readFileSync(cfg, 'utf8')}claims: {remote: orign}\n`)
    const configured = snapshotOf(b.root)
    for (const argv of [
      ['task', 'claim', 'race/1'],
      ['next', '--fetch'],
    ]) {
      expect((await b.dacli(...argv, '--json')).expectExit(4).error.details).toEqual({ remote: 'orign' })
      expect(snapshotOf(b.root)).toEqual(configured)
    }
  })

  test('fails closed: exit 1, nothing changed here; --local still claims in this clone', async () => {
    const { t, b } = await twoClones()
    ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin')).expectExit(0)
    fs.renameSync(path.join(t.root, 'team.git'), path.join(t.root, 'moved.git'))
    const before = snapshotOf(b.root)
    for (const argv of [
      ['task', 'claim', 'race/2', '--remote', 'origin'],
      ['task', 'release', 'race/1'],
      ['task', 'renew', 'race/1', '--lease', '1h'],
      ['claims', 'list'],
      ['next', '--fetch'],
    ]) {
      const r = (await b.dacli(...argv, '--json')).expectExit(1)
      expect(r.error.message).toMatch(/on the remote origin/)
      expect(snapshotOf(b.root)).toEqual(before)
      // Only the lifecycle commands have --local; the readers offer what they do have.
      const offersLocal = r.error.next_actions.some((a: string) => a.includes('--local'))
      expect(offersLocal).toBe(argv[0] === 'task')
    }
    expect((await b.dacli('claims', 'list', '--json')).expectExit(1).error.next_actions).toContain(
      'git remote get-url origin',
    )
    expect((await b.dacli('next', '--fetch', '--json')).expectExit(1).error.next_actions).toContain(
      'dacli next (without --fetch: the claims as last fetched)',
    )
    const r = (await b.dacli('task', 'claim', 'race/2', '--remote', 'origin', '--json')).expectExit(1)
    expect(r.error.next_actions[1]).toContain('--local')
    const local = (await b.dacli('task', 'claim', 'race/2', '--local', '--json')).expectExit(0).json
    expect(local.task.log.at(-1).verb).toBe('claimed-local')
  })
})

describe('handing a task back drops its remote claim (issue 14, items 7 and 8)', () => {
  test('task reopen of a blocked task and agent retire --release delete the claim ref, so another clone can claim', async () => {
    const { t, b, c, ids } = await twoClones()
    const agent = await (async () => {
      const r = (await b.dacli('agent', 'spawn', '--grant', 'rw', '--json')).expectExit(0).json
      return { id: r.id as string, token: r.token as string }
    })()
    ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin')).expectExit(0)
    ;(await b.dacli('task', 'block', 'race/1', '--why', 'waiting')).expectExit(0)
    ;(await b.dacli('task', 'claim', 'race/2', '--remote', 'origin', { as: agent.token })).expectExit(0)
    expect(remoteRefs(t).sort()).toEqual([`refs/dacli/claims/${ids[0]}`, `refs/dacli/claims/${ids[1]}`].sort())
    const reopened = (await b.dacli('task', 'reopen', 'race/1', '--reason', 'unblocked by hand', '--json')).expectExit(
      0,
    ).json
    expect(reopened.task).toMatchObject({ owner: null, claim: null, status: 'open' })
    expect(reopened.details.remote_claim).toMatchObject({ remote: 'origin', outcome: 'dropped' })
    expect(reopened.task.log.at(-1).details).toBe('unblocked by hand (owner a-root released on origin)')
    ;(await b.dacli('agent', 'retire', agent.id, '--release')).expectExit(0)
    expect(remoteRefs(t)).toEqual([])
    // Another clone may claim both on the remote now.
    for (const ref of ['race/1', 'race/2']) (await c.dacli('task', 'claim', ref, '--remote', 'origin')).expectExit(0)
  })
})
