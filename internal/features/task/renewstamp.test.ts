// `claim.at` is when the claim was taken: renewing it (task renew, or task claim --lease on one's own claim)
// moves only `expires`, in the task file and in the claim commit on the remote.

import * as path from 'node:path'
import { expect, test } from 'vitest'
import { team } from '../../testkit/coordination.js'
import { git, workspace } from '../../testkit/ws.js'

const T0 = new Date('2026-12-01T10:00:00Z')
const LATER = new Date('2026-12-01T10:30:00Z')

test('task renew and a re-claim with --lease keep claim.at and move only expires', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Write the shim', '--project', 'ledger', '--accept', 'covers batch')
  await ws.ok('task', 'claim', '1', '--lease', '1h', { now: T0 })
  const path1 = (await ws.ok('task', 'show', '1', '--json')).json.path
  const renewed = (await ws.ok('task', 'renew', '1', '--lease', '2h', '--json', { now: LATER })).json
  expect(renewed.task.claim).toMatchObject({ at: '2026-12-01T10:00:00Z', expires: '2026-12-01T12:30:00Z' })
  expect(ws.file(path1)).toContain('claim: {by: a-root, at: 2026-12-01T10:00:00Z, expires: 2026-12-01T12:30:00Z}')
  const again = (await ws.ok('task', 'claim', '1', '--lease', '3h', '--json', { now: LATER })).json
  expect(again.task.claim).toMatchObject({ at: '2026-12-01T10:00:00Z', expires: '2026-12-01T13:30:00Z' })
})

test('task renew on a remote keeps the claim commit’s at', async () => {
  const t = await team(await workspace(), { tasks: 1 })
  const a = t.a
  await a.ok('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h', { now: T0 })
  const id = (await a.ok('task', 'show', 'race/1', '--json')).json.id
  await a.ok('task', 'renew', 'race/1', '--remote', 'origin', '--lease', '2h', { now: LATER })
  const msg = git(path.join(t.root, 'team.git'), 'log', '-1', '--format=%B', `refs/dacli/claims/${id}`)
  expect(msg).toContain('at: 2026-12-01T10:00:00Z')
  expect(msg).toContain('expires: 2026-12-01T12:30:00Z')
  expect((await a.ok('task', 'show', 'race/1', '--json')).json.claim.at).toBe('2026-12-01T10:00:00Z')
})

test('task claim --lease of a claim this clone holds on the remote keeps at in the claim commit and the file', async () => {
  const t = await team(await workspace(), { tasks: 1 })
  const a = t.a
  await a.ok('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h', { now: T0 })
  const shown = (await a.ok('task', 'show', 'race/1', '--json')).json
  const again = (await a.ok('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '2h', '--json', { now: LATER }))
    .json
  expect(again.task.claim).toMatchObject({ at: '2026-12-01T10:00:00Z', expires: '2026-12-01T12:30:00Z' })
  const msg = git(path.join(t.root, 'team.git'), 'log', '-1', '--format=%B', `refs/dacli/claims/${shown.id}`)
  expect(msg).toContain('at: 2026-12-01T10:00:00Z')
  expect(msg).toContain('expires: 2026-12-01T12:30:00Z')
  expect(a.file(shown.path)).toContain(
    'claim: {by: a-root, at: 2026-12-01T10:00:00Z, expires: 2026-12-01T12:30:00Z, remote: origin}',
  )
})

test('a claim the remote already holds for this clone writes the file the at of the claim commit', async () => {
  const t = await team(await workspace(), { tasks: 1 })
  const a = t.a
  await a.ok('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h', { now: T0 })
  // Released here only: the claim ref on the remote is still this clone's.
  await a.ok('task', 'release', 'race/1', '--local', { now: T0 })
  const claimed = (await a.ok('task', 'claim', 'race/1', '--remote', 'origin', '--json', { now: LATER })).json
  const msg = git(path.join(t.root, 'team.git'), 'log', '-1', '--format=%B', `refs/dacli/claims/${claimed.task.id}`)
  expect(msg).toContain('at: 2026-12-01T10:00:00Z')
  expect(claimed.task.claim.at).toBe('2026-12-01T10:00:00Z')
  expect(a.file(claimed.task.path)).toContain('claim: {by: a-root, at: 2026-12-01T10:00:00Z,')
})
