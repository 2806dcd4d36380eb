// Two clones, one task, claims arbitrated by the remote: one clone's agent claims, its lease runs out, the other
// clone's agent takes it over. Each task file holds its own clone's claim, so both sides changed `claim` (and
// `owner`). The remote's compare-and-swap already ordered the two claims — the later replaced the earlier — so
// `record sync` settles it that way, in either clone, with no decision raised and the task not blocked.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { type Checkout, cloneTeam, remoteHolder, team } from '../../testkit/coordination.js'
import { workspace } from '../../testkit/ws.js'

const FILE = '.dacli/projects/race/tasks/active/001-contested-1.md'
const at = (min: number) => new Date(Date.parse('2026-12-01T10:00:00Z') + min * 60_000)

test('a taken-over claim merges to the later claim and its owner in both clones; nothing to decide', async () => {
  const t = await team(await workspace(), { tasks: 1 })
  const [first, second] = await cloneTeam(t, 2, 2)
  const [b, c] = t.clones as [Checkout, Checkout]
  if (first === undefined || second === undefined) throw new Error('two agents')
  ;(
    await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1m', { as: first.token, now: at(0) })
  ).expectExit(0)
  const over = (
    await c.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h', '--json', {
      as: second.token,
      now: at(2),
    })
  ).expectExit(0).json
  expect(over.outcome).toBe('taken-over')
  const id = over.task.id as string
  expect(remoteHolder(t, id)).toBe(second.id)

  // b publishes its (stale) claim first; c, holding the later one, merges it: no decision, c's claim stays.
  ;(await b.dacli('record', 'sync', '--json', { now: at(3) })).expectExit(0)
  const synced = (await c.dacli('record', 'sync', '--json', { now: at(4) })).expectExit(0).json
  expect(synced.decisions ?? []).toEqual([])
  ;(await b.dacli('record', 'sync', '--json', { now: at(5) })).expectExit(0)

  // On disk, in both clones: the same file, active, owned by the second agent under its own claim.
  const [fb, fc] = [b, c].map((x) => fs.readFileSync(path.join(x.root, FILE), 'utf8'))
  expect(fb).toBe(fc)
  expect(fc).toMatch(new RegExp(`^owner: ${second.id}$`, 'm'))
  expect(fc).toMatch(new RegExp(`^claim: \\{by: ${second.id}, at: 2026-12-01T10:02:00Z, `, 'm'))
  for (const x of [b, c]) {
    expect((await x.dacli('threads', '--open', '--json')).expectExit(0).json.threads ?? []).toEqual([])
    expect((await x.dacli('task', 'show', 'race/1', '--json')).expectExit(0).json.status).toBe('active')
  }
})

test('a claim made apart (--local) against one the remote holds merges to the remote’s holder in both clones, with nothing to decide', async () => {
  const t = await team(await workspace(), { tasks: 1 })
  const [first, second] = await cloneTeam(t, 2, 2)
  const [b, c] = t.clones as [Checkout, Checkout]
  if (first === undefined || second === undefined) throw new Error('two agents')
  ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h', { as: first.token })).expectExit(0)
  // c has never looked at the remote (its remote is unreachable for it, say): a claim in this clone only is taken.
  const local = (await c.dacli('task', 'claim', 'race/1', '--local', '--json', { as: second.token })).expectExit(0).json
  const id = local.task.id as string
  expect(remoteHolder(t, id)).toBe(first.id)
  ;(await b.dacli('record', 'sync', '--json')).expectExit(0)
  const synced = (await c.dacli('record', 'sync', '--json')).expectExit(0).json
  expect(synced.decisions).toEqual([])
  ;(await b.dacli('record', 'sync', '--json')).expectExit(0)
  const [fb, fc] = [b, c].map((x) => fs.readFileSync(path.join(x.root, FILE), 'utf8'))
  expect(fb).toBe(fc)
  expect(fc).toMatch(new RegExp(`^owner: ${first.id}$`, 'm'))
  expect(fc).toMatch(new RegExp(`^claim: \\{by: ${first.id}, at: \\S+, expires: \\S+, remote: origin\\}$`, 'm'))
})

test('--local is refused (5, nothing changed) for a task the remote was seen holding for another identity', async () => {
  const t = await team(await workspace(), { tasks: 1 })
  const [first, second] = await cloneTeam(t, 2, 2)
  const [b, c] = t.clones as [Checkout, Checkout]
  if (first === undefined || second === undefined) throw new Error('two agents')
  ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', { as: first.token })).expectExit(0)
  // c's file still has the task open and unowned; the remote refuses c's claim, naming the holder.
  ;(await c.dacli('task', 'claim', 'race/1', '--remote', 'origin', { as: second.token })).expectExit(5)
  const open = FILE.replace('/active/', '/open/')
  const before = fs.readFileSync(path.join(c.root, open), 'utf8')
  const refused = (await c.dacli('task', 'claim', 'race/1', '--local', '--json', { as: second.token })).expectExit(5)
  expect(refused.error.details).toMatchObject({ owner: first.id, remote: 'origin' })
  expect(refused.error.message).toMatch(/--local claims in this clone only while the remote cannot be reached/)
  expect(fs.readFileSync(path.join(c.root, open), 'utf8')).toBe(before)
  expect(fs.existsSync(path.join(c.root, FILE))).toBe(false)
})
