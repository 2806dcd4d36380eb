// Handing back a task whose pulled file carries another clone's live remote claim (the identity exists in every
// clone): task rm --force, task reopen of a blocked task and agent retire --release refuse it as task release does
// (exit 5, nothing changes here or on the remote), so the holder never loses its claim on the next sync.

import * as path from 'node:path'
import { expect, test } from 'vitest'
import { type Checkout, cloneTeam, team } from '../../testkit/coordination.js'
import { git, snapshotOf, workspace } from '../../testkit/ws.js'

const T1 = '.dacli/projects/race/tasks'

const noCache = (s: Map<string, string>) => [...s].filter(([k]) => !k.includes('cache'))

test('rm --force, reopen and retire --release of another clone’s live claim are 5: theirs survives', async () => {
  const t = await team(await workspace(), { tasks: 3 })
  await cloneTeam(t, 2, 0)
  const [b, c] = t.clones as [Checkout, Checkout]
  const bare = path.join(t.root, 'team.git')
  const ids = (await b.dacli('task', 'list', '--project', 'race', '--json')).json.tasks.map((x: { id: string }) => x.id)
  const agent = (await b.dacli('agent', 'spawn', '--grant', 'rw', '--json')).expectExit(0).json
  ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h')).expectExit(0)
  ;(await b.dacli('task', 'claim', 'race/2', '--remote', 'origin', '--lease', '1h')).expectExit(0)
  ;(await b.dacli('task', 'block', 'race/2', '--why', 'waiting')).expectExit(0)
  ;(await b.dacli('task', 'claim', 'race/3', '--remote', 'origin', '--lease', '1h', { as: agent.token })).expectExit(0)
  ;(await b.dacli('record', 'sync')).expectExit(0)
  ;(await c.dacli('record', 'sync')).expectExit(0)
  expect(c.file(`${T1}/active/001-contested-1.md`)).toContain('claim: {by: a-root')
  const heads = () => ids.map((id: string) => git(bare, 'rev-parse', `refs/dacli/claims/${id}`))
  const before = heads()
  const snap = snapshotOf(c.root)
  for (const args of [
    ['task', 'rm', 'race/1', '--force'],
    ['task', 'reopen', 'race/2', '--reason', 'unblocked by hand'],
    ['agent', 'retire', agent.id, '--release'],
  ]) {
    const refused = (await c.dacli(...args, '--json')).expectExit(5)
    expect(refused.error.details).toMatchObject({ remote: 'origin' })
    expect(refused.error.details.holder.workspace).toBe(path.join(b.root, '.dacli'))
    expect(noCache(snapshotOf(c.root))).toEqual(noCache(snap))
  }
  expect(heads()).toEqual(before)
  // Nothing for b to lose on its next sync: its tasks are still its own.
  ;(await c.dacli('record', 'sync')).expectExit(0)
  ;(await b.dacli('record', 'sync')).expectExit(0)
  expect(b.file(`${T1}/active/001-contested-1.md`)).toContain('claim: {by: a-root')
  expect((await b.dacli('task', 'show', 'race/2', '--json')).json).toMatchObject({ status: 'blocked' })
  expect((await b.dacli('task', 'show', 'race/3', '--json')).json).toMatchObject({ owner: agent.id })
})
