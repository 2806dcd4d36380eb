// Claims arbitrated by the remote, raced by real processes in real clones over
// file:// and smart HTTP. Small sizes here; `npm run stress`
// runs 50 rounds of each.

import { afterEach, describe, expect, test } from 'vitest'
import { type Checkout, cloneTeam, remoteClaimRace, takeoverRace, team } from '../../testkit/coordination.js'
import { type GitHttpServer, gitHttpServer } from '../../testkit/githttp.js'
import { snapshotOf, workspace } from '../../testkit/ws.js'

let server: GitHttpServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('4 clones × 4 processes race task claim --remote on one task', () => {
  test('over file://: exactly one exit 0 per round, the rest 5; the remote names the winner', {
    timeout: 300_000,
  }, async () => {
    const f = await remoteClaimRace(await workspace(), {
      clones: 4,
      procs: 4,
      rounds: 2,
      url: (root) => `file://${root}/team.git`,
    })
    expect(f.other_exits).toBe('none')
    expect(f.rounds_with_other_than_one_winner).toBe(0)
    expect(f.rounds_where_the_remote_disagrees).toBe(0)
  })

  test('over smart HTTP (git http-backend behind a loopback server): the same', { timeout: 300_000 }, async () => {
    const f = await remoteClaimRace(await workspace(), {
      clones: 4,
      procs: 4,
      rounds: 2,
      url: async (root) => {
        server = await gitHttpServer(root)
        return server.url('team.git')
      },
    })
    expect(f.transport).toBe('smart HTTP')
    expect(f.other_exits).toBe('none')
    expect(f.rounds_with_other_than_one_winner).toBe(0)
    expect(f.rounds_where_the_remote_disagrees).toBe(0)
  })
})

test('an expired lease taken over by two clones at once: one winner (taken-over), the other 5', {
  timeout: 120_000,
}, async () => {
  const f = await takeoverRace(await workspace(), 2)
  expect(f.rounds_with_other_than_one_winner).toBe(0)
})

test('over smart HTTP, the server stopped mid-run: exit 1, nothing changed in the clone', {
  timeout: 120_000,
}, async () => {
  const t = await team(await workspace(), {
    tasks: 2,
    url: async (root) => {
      server = await gitHttpServer(root)
      return server.url('team.git')
    },
  })
  await cloneTeam(t, 1, 0)
  const c = t.clones[0] as Checkout
  ;(await c.dacli('task', 'claim', 'race/1', '--remote', 'origin')).expectExit(0)
  await server?.close()
  const before = snapshotOf(c.root)
  const r = (await c.dacli('task', 'claim', 'race/2', '--remote', 'origin', '--json')).expectExit(1)
  expect(r.error.message).toContain('on the remote origin')
  expect((await c.dacli('task', 'release', 'race/1', '--json')).expectExit(1).error.kind).toBe('failure')
  expect(snapshotOf(c.root)).toEqual(before)
})
