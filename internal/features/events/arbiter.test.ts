// `sync` applies a read-only identity's proposed claim through the remote that arbitrates claims, as `task claim`
// does: the claim ref first (compare-and-swap), the file after. Two clones of a real bare remote, `claims.remote`
// set in both: sync can no longer make a second holder.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { type Checkout, cloneTeam, remoteHolder, team } from '../../testkit/coordination.js'
import { expectValid } from '../../testkit/schemas.js'
import { git, workspace } from '../../testkit/ws.js'

const OPEN = '.dacli/projects/race/tasks/open'
const ACTIVE = '.dacli/projects/race/tasks/active'

function claimsOnOrigin(...checkouts: Checkout[]): void {
  for (const x of checkouts) {
    const cfg = path.join(x.root, '.dacli', 'config.yml')
    fs.writeFileSync(cfg, `${fs.readFileSync(cfg, 'utf8')}claims: {remote: origin}\n`)
  }
}

describe('sync and the claim arbiter', () => {
  test('a proposed claim is applied only when the compare-and-swap wins; a lost one is refused and logged', async () => {
    const t = await team(await workspace(), { tasks: 3 })
    const reader = await t.a.agent('ro', 'reader')
    await cloneTeam(t, 2, 0)
    const [b, c] = t.clones as [Checkout, Checkout]
    claimsOnOrigin(b, c)
    const ids: string[] = (await b.dacli('task', 'list', '--project', 'race', '--json')).json.tasks.map(
      (x: { id: string }) => x.id,
    )

    // The reader proposes a claim of race/1 in b; meanwhile c claims it (through origin).
    const proposed = (await b.dacli('task', 'claim', 'race/1', '--json', { as: reader.token })).expectExit(0).json
    expect(proposed.outcome).toBe('proposed')
    ;(await c.dacli('task', 'claim', 'race/1')).expectExit(0)
    expect(remoteHolder(t, ids[0] as string)).toBe('a-root')
    // b's sync would have made the reader a second holder; now the remote refuses and the proposal is lost.
    const lost = (await b.dacli('sync', '--json')).expectExit(0).json
    expectValid(lost)
    expect(lost.applied).toEqual([])
    expect(lost.lost).toEqual([
      {
        event_id: proposed.event_id,
        task: ids[0],
        by: reader.id,
        remote: 'origin',
        reason: expect.stringContaining('a-root'),
      },
    ])
    const file = b.file(`${OPEN}/001-contested-1.md`)
    expect(file).not.toMatch(/^owner:/m)
    expect(file).toMatch(new RegExp(`a-root claim-lost proposed by ${reader.id} in event ${proposed.event_id}: `))
    expect(remoteHolder(t, ids[0] as string)).toBe('a-root')
    const events = (await b.dacli('events', 'list', '--json')).json.events
    expect(events.find((e: { id: string }) => e.id === proposed.event_id)).toMatchObject({ state: 'dismissed' })
    // Settled: a second sync does nothing more.
    const again = (await b.dacli('sync', '--json')).expectExit(0).json
    expect(again).toMatchObject({ applied: [], lost: [], pending: [] })

    // A proposal nobody contests: the claim ref is taken for the reader first, then the file says so.
    const p2 = (await b.dacli('task', 'claim', 'race/2', '--json', { as: reader.token })).expectExit(0).json
    const won = (await b.dacli('sync', '--json')).expectExit(0).json
    expect(won).toMatchObject({ applied: [p2.event_id], lost: [] })
    expect(remoteHolder(t, ids[1] as string)).toBe(reader.id)
    expect(b.file(`${ACTIVE}/002-contested-2.md`)).toMatch(
      new RegExp(`\\nclaim: \\{by: ${reader.id}, at: [^}]*, remote: origin\\}\\n`),
    )
    // So the other clone cannot take it: exactly one holder.
    const refused = (await c.dacli('task', 'claim', 'race/2', '--json')).expectExit(5)
    expect(refused.error.details.holder).toMatchObject({ by: reader.id, workspace: path.join(b.root, '.dacli') })

    // The reader proposes to give it back: sync drops the ref under its lease before the file changes.
    ;(await b.dacli('task', 'release', 'race/2', { as: reader.token })).expectExit(0)
    expect((await b.dacli('sync', '--json')).expectExit(0).json.applied).toHaveLength(1)
    expect(remoteHolder(t, ids[1] as string)).toBe(null)
    ;(await c.dacli('task', 'claim', 'race/2')).expectExit(0)
    expect(remoteHolder(t, ids[1] as string)).toBe('a-root')
    // Removing a claimed task drops its claim ref first, so no claim outlives the task.
    const rm = (await c.dacli('task', 'rm', 'race/2', '--force', '--json')).expectExit(0).json
    expect(rm.details.remote_claim).toMatchObject({ remote: 'origin', outcome: 'dropped' })
    expect(remoteHolder(t, ids[1] as string)).toBe(null)
  })

  test('an unreachable remote leaves the proposal pending and the task as it was (fail closed)', async () => {
    const t = await team(await workspace(), { tasks: 1 })
    const reader = await t.a.agent('ro', 'reader')
    await cloneTeam(t, 1, 0)
    const [b] = t.clones as [Checkout]
    claimsOnOrigin(b)
    const p = (await b.dacli('task', 'claim', 'race/1', '--json', { as: reader.token })).expectExit(0).json
    git(b.root, 'remote', 'set-url', 'origin', path.join(t.root, 'gone.git'))
    const before = b.file(`${OPEN}/001-contested-1.md`)
    const r = (await b.dacli('sync', '--json')).expectExit(0).json
    expect(r).toMatchObject({ applied: [], lost: [] })
    expect(r.pending).toEqual([
      expect.objectContaining({
        event_id: p.event_id,
        never_applies: false,
        reason: expect.stringContaining('origin'),
      }),
    ])
    expect(b.file(`${OPEN}/001-contested-1.md`)).toBe(before)
  })
})
