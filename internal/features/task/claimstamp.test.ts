import { beforeEach, describe, expect, test } from 'vitest'
import { type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
let bob: { id: string; token: string }
let path: string

beforeEach(async () => {
  ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Write the shim', '--project', 'ledger', '--accept', 'covers batch')
  await ws.ok('task', 'claim', '1', '--lease', '1h')
  bob = await ws.agent('rw', 'bob')
  path = (await ws.ok('task', 'show', '1', '--json')).json.path
})

const handEdit = (field: 'at' | 'expires', value: string) =>
  ws.write(path, ws.file(path).replace(new RegExp(`${field}: [^,}]+`), `${field}: ${value}`))

describe('a hand-edited claim time that names no moment', () => {
  test('an expires that is no time is an invalid field (exit 1), never a claim that cannot expire', async () => {
    handEdit('expires', 'soon')
    const before = ws.snapshot()
    const r = (await ws.dacli('task', 'claim', '1', '--json', { as: bob.token })).expectExit(1)
    expect(r.error.message).toMatch(/claim\.expires/)
    expect(ws.snapshot()).toEqual(before)
    const doctor = (await ws.ok('doctor', '--json')).json
    expect(doctor.findings.map((f: { code: string }) => f.code)).toContain('invalid-field')
  })

  test('an impossible date is refused the same way; a real time with an offset still reads', async () => {
    handEdit('expires', '2026-13-45T99:00:00Z')
    ;(await ws.dacli('task', 'show', '1', '--json')).expectExit(1)
    // With an offset too: named as the field it is, never a bare "Invalid time value".
    for (const bad of ['2026-13-45T99:00:00+01:00', '2026-12-01T10:00:00+25:00']) {
      handEdit('expires', bad)
      expect((await ws.dacli('task', 'show', '1', '--json')).expectExit(1).error.message).toMatch(/claim\.expires/)
    }
    handEdit('at', 'yesterday')
    handEdit('expires', '2000-01-01T00:00:00Z')
    ;(await ws.dacli('task', 'show', '1', '--json')).expectExit(1)
    handEdit('at', '1999-12-31T23:00:00+01:00')
    const taken = (await ws.dacli('task', 'claim', '1', '--json', { as: bob.token })).expectExit(0).json
    expect(taken.outcome).toBe('taken-over')
  })
})

test('claiming again a task whose own claim expired takes it again under a new lease: never "unchanged" on a dead claim', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Write the shim', '--project', 'ledger', '--accept', 'covers batch')
  const bob = await ws.agent('rw', 'bob')
  const t0 = new Date('2026-12-01T10:00:00Z')
  ;(await ws.dacli('task', 'claim', '1', '--lease', '1h', { now: t0 })).expectExit(0)
  // Still live: the repeat is the idempotent one, nothing written.
  const live = (await ws.dacli('task', 'claim', '1', '--json', { now: new Date('2026-12-01T10:30:00Z') })).expectExit(0)
  expect(live.json.outcome).toBe('unchanged')
  // Expired: the repeat takes it again, under the workspace's lease (claim_lease: 2h).
  const later = new Date('2026-12-01T12:00:00Z')
  const again = (await ws.dacli('task', 'claim', '1', '--json', { now: later })).expectExit(0)
  expect(again.json.outcome).toBe('changed')
  expect(again.json.task.claim.expired).not.toBe(true)
  const file = ws.file(again.json.task.path)
  expect(file).toContain('\nclaim: {by: a-root, at: 2026-12-01T10:00:00Z, expires: 2026-12-01T14:00:00Z}\n')
  expect(file).toMatch(/\n- 2026-12-01T12:00:00Z a-root renewed\s*\n/)
  // Another identity can no longer take it over.
  ;(await ws.dacli('task', 'claim', '1', '--json', { as: bob.token, now: later })).expectExit(5)
})
