// A remote whose claim refs a hook refuses, or that a person (or a hostile agent) wrote by hand: each refusal has
// its exit code (contract.md: 5 only when another writer holds or changed the claim), and a ref is a claim only of
// its own task with a real expiry. Each test here failed before the fixes.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { type Checkout, cloneTeam, remoteHolder, type Team, team } from '../../testkit/coordination.js'
import { git, snapshotOf, workspace } from '../../testkit/ws.js'

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'

async function twoClones(tasks = 3): Promise<{ t: Team; b: Checkout; c: Checkout; ids: string[]; bare: string }> {
  const t = await team(await workspace(), { tasks })
  await cloneTeam(t, 2, 0)
  const ids = (await t.a.dacli('task', 'list', '--project', 'race', '--json')).json.tasks.map(
    (x: { id: string }) => x.id,
  )
  return { t, b: t.clones[0] as Checkout, c: t.clones[1] as Checkout, ids, bare: path.join(t.root, 'team.git') }
}

/** A hand-made claim commit on the bare remote at refs/dacli/claims/<ref>, with this message. */
function handClaim(bare: string, refTask: string, message: string): string {
  const commit = git(bare, 'commit-tree', EMPTY_TREE, '-m', message).trim()
  git(bare, 'update-ref', `refs/dacli/claims/${refTask}`, commit)
  return commit
}

describe('remote claims the remote refuses or a hand wrote', () => {
  test('a remote that refuses the push (a hook, not a lease) is exit 1, not 5 "kept changing"', {
    timeout: 30_000,
  }, async () => {
    const { b, bare } = await twoClones()
    const hook = path.join(bare, 'hooks', 'pre-receive')
    fs.writeFileSync(hook, '#!/bin/sh\necho "refs/dacli is read-only here" >&2\nexit 1\n')
    fs.chmodSync(hook, 0o755)
    const before = snapshotOf(b.root)
    const r = await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--json')
    expect(snapshotOf(b.root)).toEqual(before)
    // contract.md §1: 5 is "another writer holds or changed the thing"; nobody did. The push failed: 1.
    expect({ code: r.code, message: r.error.message }).toMatchObject({ code: 1 })
  })

  test('a remote whose hook refuses deletions: release is exit 1 with nothing changed, not 5', {
    timeout: 30_000,
  }, async () => {
    const { b, bare } = await twoClones()
    ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin')).expectExit(0)
    const hook = path.join(bare, 'hooks', 'pre-receive')
    fs.writeFileSync(
      hook,
      '#!/bin/sh\nwhile read old new ref; do case "$new" in 0000000000000000000000000000000000000000) echo "no deletions" >&2; exit 1;; esac; done\nexit 0\n',
    )
    fs.chmodSync(hook, 0o755)
    const before = snapshotOf(b.root)
    const r = await b.dacli('task', 'release', 'race/1', '--json')
    expect(snapshotOf(b.root)).toEqual(before)
    expect({ code: r.code, message: r.error.message }).toMatchObject({ code: 1 })
  })

  test('a claim ref whose message names another task is not a claim (task claim agrees with claims list)', {
    timeout: 30_000,
  }, async () => {
    const { b, ids, bare } = await twoClones()
    // refs/dacli/claims/<task 1> holds a message about task 2, by an identity nobody knows, live for years.
    const commit = handClaim(
      bare,
      ids[0] as string,
      `task: ${ids[1]}\nby: a-mallory\nat: 2026-01-01T00:00:00Z\nexpires: 2099-01-01T00:00:00Z\nworkspace: "/x"\nhost: "h"\n`,
    )
    const list = (await b.dacli('claims', 'list', '--json')).expectExit(0).json
    expect(list.unreadable).toEqual([{ task: ids[0], commit }])
    const r = (await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--json')).expectExit(5)
    // claims list calls it unreadable; task claim reports a-mallory as the holder of race/1.
    expect(r.error.details.commit).toBe(commit)
    expect(r.error.details.owner).toBeUndefined()
  })

  test('after meeting that mismatched ref, next still offers race/2 (nobody claimed it)', {
    timeout: 30_000,
  }, async () => {
    const { b, ids, bare } = await twoClones()
    handClaim(
      bare,
      ids[0] as string,
      `task: ${ids[1]}\nby: a-mallory\nat: 2026-01-01T00:00:00Z\nexpires: 2099-01-01T00:00:00Z\nworkspace: "/x"\nhost: "h"\n`,
    )
    ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--json')).expectExit(5)
    const next = (await b.dacli('next', '--parallel', '5', '--json')).expectExit(0).json
    expect(next.ready.map((r: { ref: string }) => r.ref)).toContain('race/002-contested-2')
  })

  test('a garbled expiry (2026-13-45T99:99:99Z) is not a claim that never expires', { timeout: 30_000 }, async () => {
    const { b, ids, bare } = await twoClones()
    const commit = handClaim(
      bare,
      ids[0] as string,
      `task: ${ids[0]}\nby: a-mallory\nat: 2026-01-01T00:00:00Z\nexpires: 2026-13-45T99:99:99Z\nworkspace: "/x"\nhost: "h"\n`,
    )
    const list = (await b.dacli('claims', 'list', '--json')).expectExit(0).json
    // Not a live claim forever (its expiry is no time): a ref that is not a claim, listed as unreadable.
    expect(list.unreadable).toEqual([{ task: ids[0], commit }])
  })
  test('renew is under a lease on this clone’s claim: one that vanished from the remote is not made again (5)', {
    timeout: 30_000,
  }, async () => {
    const { t, b, c, ids } = await twoClones()
    const at = new Date('2026-12-01T10:00:00Z')
    ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h', { now: at })).expectExit(0)
    // b's lease runs out; c takes over, then c releases: the ref is gone.
    const late = new Date('2026-12-01T11:05:00Z')
    ;(await c.dacli('task', 'claim', 'race/1', '--remote', 'origin', { now: late })).expectExit(0)
    ;(await c.dacli('task', 'release', 'race/1', { now: late })).expectExit(0)
    expect(remoteHolder(t, ids[0] as string)).toBeNull()
    const before = snapshotOf(b.root)
    const r = (await b.dacli('task', 'renew', 'race/1', '--lease', '1h', '--json', { now: late })).expectExit(5)
    expect(r.error.details).toMatchObject({ task: ids[0], remote: 'origin' })
    expect(remoteHolder(t, ids[0] as string)).toBeNull()
    expect(snapshotOf(b.root)).toEqual(before)
    // b's own live claim is renewed as before.
    ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h', { now: late })).expectExit(0)
    ;(await b.dacli('task', 'renew', 'race/1', '--lease', '2h', { now: late })).expectExit(0)
    expect(remoteHolder(t, ids[0] as string)).not.toBeNull()
  })
  test('the remote is the arbiter: an owner in a file older than the remote does not refuse a claim it would grant', {
    timeout: 30_000,
  }, async () => {
    const { t, b, c, ids } = await twoClones()
    const x = (await b.dacli('agent', 'spawn', '--grant', 'rw', '--json')).expectExit(0).json
    ;(await b.dacli('record')).expectExit(0)
    ;(await b.dacli('record', 'push')).expectExit(0)
    ;(await c.dacli('record', 'pull')).expectExit(0)
    ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '4h', { as: x.token })).expectExit(0)
    ;(await b.dacli('record')).expectExit(0)
    ;(await b.dacli('record', 'push')).expectExit(0)
    ;(await c.dacli('record', 'pull')).expectExit(0)
    // x lets go; the remote has no claim any more (b has not pushed its record since): c's file still names x.
    ;(await b.dacli('task', 'release', 'race/1', { as: x.token })).expectExit(0)
    expect(remoteHolder(t, ids[0] as string)).toBeNull()
    const r = (await c.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--json')).expectExit(0).json
    expect({ outcome: r.outcome, from: r.details.previous_owner }).toEqual({ outcome: 'taken-over', from: x.id })
    expect(remoteHolder(t, ids[0] as string)).not.toBeNull()
    const file = c.file('.dacli/projects/race/tasks/active/001-contested-1.md')
    expect(file).toMatch(new RegExp(`taken-over.*from ${x.id} \\(no claim on the remote\\)`))
    // While the remote holds a live claim, the file's word stands refused by the remote (5, with the remote named).
    const d = (await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--json', { as: x.token })).expectExit(5)
    expect(d.error.details.remote).toBe('origin')
  })
})
