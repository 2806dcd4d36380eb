// Remote claims are visible and dated: task show, explain, overview (and the board's task data, which is task/v1)
// show the remote's holder and lease with the age of the fetch they come from; doctor states how old its view is,
// and `doctor --fetch` fetches first. Real clones of a bare remote.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { type Checkout, cloneTeam, team } from '../../testkit/coordination.js'
import { expectValid } from '../../testkit/schemas.js'
import { workspace } from '../../testkit/ws.js'

const T0 = new Date('2026-12-01T10:00:00Z')
const LATER = new Date('2026-12-01T10:45:00Z') // 45 minutes after the fetch

function claimsOnOrigin(...checkouts: Checkout[]): void {
  for (const x of checkouts) {
    const cfg = path.join(x.root, '.dacli', 'config.yml')
    fs.writeFileSync(cfg, `${fs.readFileSync(cfg, 'utf8')}claims: {remote: origin}\n`)
  }
}

describe('remote claims, dated', () => {
  test('task show, explain and overview show the remote holder and lease with the age of the fetch', async () => {
    const t = await team(await workspace(), { tasks: 2 })
    await cloneTeam(t, 2, 0)
    const [b, c] = t.clones as [Checkout, Checkout]
    claimsOnOrigin(c)
    ;(await c.dacli('task', 'claim', 'race/1', '--lease', '2h', { now: T0 })).expectExit(0)
    // b knows nothing of it until it fetches.
    const before = (await b.dacli('task', 'show', 'race/1', '--json', { now: LATER })).expectExit(0).json
    expect(before.remote_claim).toBe(null)
    ;(await b.dacli('claims', 'list', { now: T0 })).expectExit(0)

    const shown = (await b.dacli('task', 'show', 'race/1', '--json', { now: LATER })).expectExit(0).json
    expectValid(shown)
    expect(shown.owner).toBe(null) // b's own file: unowned
    expect(shown.remote_claim).toEqual({
      remote: 'origin',
      by: 'a-root',
      at: '2026-12-01T10:00:00Z',
      expires: '2026-12-01T12:00:00Z',
      expired: false,
      lease_left_seconds: 75 * 60,
      host: (await import('node:os')).hostname(),
      workspace: path.join(c.root, '.dacli'),
      this_clone: false,
      fetched_at: '2026-12-01T10:00:00Z',
      fetch_age_seconds: 45 * 60,
    })
    const human = (await b.dacli('task', 'show', 'race/1', { now: LATER })).expectExit(0).stdout
    expect(human).toMatch(/remote claim:\s+a-root on origin \(.*\) until 2026-12-01T12:00:00Z — as seen 45m ago/)

    const explained = (await b.dacli('explain', 'race/1', '--json', { now: LATER })).expectExit(0).json
    expectValid(explained)
    expect(explained.claim).toMatchObject({ by: 'a-root', where: 'remote', observed_at: '2026-12-01T10:00:00Z' })
    expect(explained.claim.remote_claim).toMatchObject({ this_clone: false, fetch_age_seconds: 45 * 60 })
    expect((await b.dacli('explain', 'race/1', { now: LATER })).stdout).toContain('the remote’s view is 45m old')

    const overview = (await b.dacli('overview', '--json', { now: LATER })).expectExit(0).json
    expectValid(overview)
    expect(overview.remote_claims).toMatchObject({
      remote: 'origin',
      fetched_at: '2026-12-01T10:00:00Z',
      fetch_age_seconds: 45 * 60,
      live: [{ ref: 'race/001-contested-1', by: 'a-root', this_clone: false, fetch_age_seconds: 45 * 60 }],
    })
    expect((await b.dacli('overview', { now: LATER })).stdout).toMatch(
      /1 live claim on origin \(1 from other clones\), fetched 45m ago/,
    )

    // The clone that holds it sees its own claim, dated by its own take.
    const own = (await c.dacli('task', 'show', 'race/1', '--json', { now: LATER })).expectExit(0).json
    expect(own.remote_claim).toMatchObject({ this_clone: true, fetched_at: '2026-12-01T10:00:00Z' })
  })

  test('doctor states how old its view is; doctor --fetch fetches before judging stale-remote-claim', async () => {
    const t = await team(await workspace(), { tasks: 2 })
    await cloneTeam(t, 2, 0)
    const [b, c] = t.clones as [Checkout, Checkout]
    claimsOnOrigin(c)
    ;(await c.dacli('task', 'claim', 'race/2', { now: T0 })).expectExit(0)
    ;(await b.dacli('claims', 'list', { now: T0 })).expectExit(0)
    // b closes its own copy; the remote still names the task, as b last saw it.
    ;(await b.dacli('task', 'check', 'race/2', '--all')).expectExit(0)
    ;(await b.dacli('task', 'done', 'race/2')).expectExit(0)
    const stale = (await b.dacli('doctor', '--json', { now: LATER })).expectExit(0).json
    expectValid(stale)
    expect(stale.remote_claims).toEqual({
      remote: 'origin',
      fetched_at: '2026-12-01T10:00:00Z',
      fetch_age_seconds: 45 * 60,
    })
    const finding = stale.findings.find((f: { code: string }) => f.code === 'stale-remote-claim')
    expect(finding.message).toContain('as fetched from origin 45m ago')
    expect((await b.dacli('doctor', { now: LATER })).stdout).toContain(
      'claims on origin as fetched 45m ago (dacli doctor --fetch refreshes)',
    )
    // c releases it; b's view is now wrong until it fetches. --fetch judges from a fresh view.
    ;(await c.dacli('task', 'release', 'race/2')).expectExit(0)
    const fresh = (await b.dacli('doctor', '--fetch', '--json', { now: LATER })).expectExit(0).json
    expectValid(fresh)
    expect(fresh.findings.map((f: { code: string }) => f.code)).not.toContain('stale-remote-claim')
    expect(fresh.remote_claims).toEqual({ remote: 'origin', fetched_at: '2026-12-01T10:45:00Z', fetch_age_seconds: 0 })
    // An unreachable remote fails closed: exit 1, nothing judged.
    const cfg = path.join(b.root, '.git', 'config')
    fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace(/url = .*/, `url = ${path.join(t.root, 'gone.git')}`))
    expect((await b.dacli('doctor', '--fetch', '--json')).code).toBe(1)
  })
})
