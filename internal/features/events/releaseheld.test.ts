// `sync` applying a read-only identity's proposed release in a clone whose task file carries the claim another
// clone made for it on the remote (it arrived by `record pull`): that claim is the other clone's to drop, so the
// proposal stays pending and the file as it was, as `task release` refuses there (5).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { type Checkout, cloneTeam, remoteHolder, team } from '../../testkit/coordination.js'
import { workspace } from '../../testkit/ws.js'

const ACTIVE = '.dacli/projects/race/tasks/active'

test('a proposed release of a claim another clone holds live is left pending there; the holder applies it', async () => {
  const t = await team(await workspace(), { tasks: 2 })
  const reader = await t.a.agent('ro', 'reader')
  await cloneTeam(t, 2, 0)
  const [b, c] = t.clones as [Checkout, Checkout]
  for (const x of [b, c]) {
    const cfg = path.join(x.root, '.dacli', 'config.yml')
    fs.writeFileSync(cfg, `${fs.readFileSync(cfg, 'utf8')}claims: {remote: origin}\n`)
  }
  const id = (await b.dacli('task', 'list', '--project', 'race', '--json')).json.tasks[0].id as string
  ;(await b.dacli('task', 'claim', 'race/1', { as: reader.token })).expectExit(0)
  expect((await b.dacli('sync', '--json')).expectExit(0).json.applied).toHaveLength(1)
  expect(remoteHolder(t, id)).toBe(reader.id)
  ;(await b.dacli('record', 'sync')).expectExit(0)
  ;(await c.dacli('record', 'sync')).expectExit(0)
  const file = `${ACTIVE}/001-contested-1.md`
  expect(c.file(file)).toContain(`claim: {by: ${reader.id}`)
  // In c the reader proposes to give it back; c's sync cannot drop b's claim ref, so it leaves the file alone.
  ;(await c.dacli('task', 'release', 'race/1', { as: reader.token })).expectExit(0)
  const before = c.file(file)
  const r = (await c.dacli('sync', '--json')).expectExit(0).json
  expect(r.applied).toEqual([])
  expect(r.pending).toHaveLength(1)
  expect(c.file(file)).toBe(before)
  expect(remoteHolder(t, id)).toBe(reader.id)
  // In b, where the claim was made, the same proposal drops the ref, then the file lets go.
  ;(await c.dacli('record', 'sync')).expectExit(0)
  ;(await b.dacli('record', 'sync')).expectExit(0)
  expect((await b.dacli('sync', '--json')).expectExit(0).json.applied).toHaveLength(1)
  expect(remoteHolder(t, id)).toBe(null)
  expect((await b.dacli('task', 'show', 'race/1', '--json')).json).toMatchObject({ owner: null, claim: null })
}, 60_000)
