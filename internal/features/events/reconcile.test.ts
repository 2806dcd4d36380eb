// events reconcile: each class reached by a planted event, the archive moves files (never deletes), and a plan id
// that no longer matches is 5 with nothing moved.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { type Workspace, workspace } from '../../testkit/ws.js'

async function planted(): Promise<{ ws: Workspace; ids: Record<string, string> }> {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  for (const t of ['One', 'Two', 'Three', 'Four'])
    await ws.ok('task', 'add', t, '--project', 'alpha', '--accept', 'ok', '--force')
  const ro = await ws.agent('ro')
  const ev = async (...argv: string[]) => (await ws.ok(...argv, '--json', { as: ro.token })).json.event_id as string
  const live = await ev('task', 'claim', 'alpha/1')
  const first = await ev('task', 'block', 'alpha/2', '--why', 'waiting')
  const second = await ev('task', 'block', 'alpha/2', '--why', 'still waiting')
  const orphan = await ev('task', 'claim', 'alpha/3')
  await ws.ok('task', 'rm', 'alpha/3', '--force')
  const done = await ev('task', 'block', 'alpha/4', '--why', 'x')
  await ws.ok('task', 'block', 'alpha/4', '--why', 'x')
  return { ws, ids: { live, first, second, orphan, done } }
}

const eventFile = (ws: Workspace, id: string) => {
  const found: string[] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name.startsWith(id)) found.push(p)
    }
  }
  walk(path.join(ws.root, '.dacli'))
  return found
}

describe('events reconcile', () => {
  test('applied, superseded, orphaned, unverifiable and live; archive moves the chosen classes', async () => {
    const { ws, ids } = await planted()
    // A forged event: another event's signature pasted in (the checksum does not cover the signature).
    const [live] = eventFile(ws, ids.live as string)
    const forgedId = ids.second as string
    const [forgedFile] = eventFile(ws, forgedId)
    const sigOf = (text: string) => /^signature: .*$/m.exec(text)?.[0] as string
    const text = fs.readFileSync(forgedFile as string, 'utf8')
    fs.writeFileSync(forgedFile as string, text.replace(sigOf(text), sigOf(fs.readFileSync(live as string, 'utf8'))))
    const r = (await ws.ok('events', 'reconcile', '--json')).json
    expectValid(r)
    const cls = Object.fromEntries(r.events.map((e: { id: string; class: string }) => [e.id, e.class]))
    expect(cls[ids.live as string]).toBe('live')
    expect(cls[ids.orphan as string]).toBe('orphaned')
    expect(cls[ids.done as string]).toBe('applied')
    expect(cls[forgedId]).toBe('unverifiable')
    expect(cls[ids.first as string]).toBe('superseded')
    expect(r.archive_classes).toEqual(['applied', 'orphaned', 'superseded'])

    const before = ws.snapshot()
    ;(await ws.dacli('events', 'reconcile', '--apply-safe', 'ep-0000000000000000', '--json')).expectExit(5)
    expect(ws.snapshot()).toEqual(before)

    const a = (await ws.ok('events', 'reconcile', '--apply-safe', r.plan_id, '--json')).json
    expectValid(a)
    expect(a.archived.map((x: { id: string }) => x.id).sort()).toEqual([ids.done, ids.first, ids.orphan].sort())
    for (const x of a.archived) expect(fs.existsSync(path.join(ws.root, x.to))).toBe(true)
    expect(fs.existsSync(live as string)).toBe(true)
    const after = (await ws.ok('events', 'reconcile', '--json')).json
    expect(after.events.map((e: { id: string }) => e.id).sort()).toEqual([ids.live, forgedId].sort())
    // Chosen classes: the unverifiable one too.
    const p2 = (await ws.ok('events', 'reconcile', '--archive', 'unverifiable', '--json')).json
    await ws.ok('events', 'reconcile', '--archive', 'unverifiable', '--apply-safe', p2.plan_id)
    expect(eventFile(ws, forgedId)[0]).toContain(`${path.sep}archive${path.sep}events${path.sep}`)
  })

  test('an event edited after it was written (its checksum broken) is unverifiable, and archived as one', async () => {
    const { ws, ids } = await planted()
    const edited = ids.live as string
    const [file] = eventFile(ws, edited)
    const text = fs.readFileSync(file as string, 'utf8')
    const changed = text.replace(/^created: (.*)$/m, 'created: 2026-01-01T00:00:00.000Z')
    expect(changed).not.toBe(text)
    fs.writeFileSync(file as string, changed)
    const r = (await ws.ok('events', 'reconcile', '--archive', 'unverifiable', '--json')).json
    expectValid(r)
    const one = r.events.find((e: { id: string }) => e.id === edited)
    expect(one).toMatchObject({ class: 'unverifiable', reason: expect.stringMatching(/checksum mismatch/) })
    await ws.ok('events', 'reconcile', '--archive', 'unverifiable', '--apply-safe', r.plan_id)
    const [moved] = eventFile(ws, edited)
    expect(moved).toContain(`${path.sep}archive${path.sep}events${path.sep}`)
    expect(fs.readFileSync(moved as string, 'utf8')).toBe(changed) // moved as it stands, never rewritten
    // Never applied on the way: the claim it proposed is not the task's.
    expect((await ws.ok('task', 'show', 'alpha/1', '--json')).json.owner).toBeNull()
  })

  test('an event that cannot be moved is reported in the document (exit 1), with the ones moved before it', async () => {
    const { ws, ids } = await planted()
    const r = (await ws.ok('events', 'reconcile', '--json')).json
    const now = new Date('2030-01-02T03:04:05Z')
    const day = path.join(ws.root, '.dacli', 'archive', 'events', '2030-01-02')
    // The last event to move finds a folder holding a file where its archived copy belongs.
    const last = [ids.done, ids.first, ids.orphan].sort().at(-1) as string
    const lastFile = eventFile(ws, last)[0] as string
    fs.mkdirSync(path.join(day, path.basename(lastFile)), { recursive: true })
    fs.writeFileSync(path.join(day, path.basename(lastFile), 'keep'), 'x')
    const a = await ws.dacli('events', 'reconcile', '--apply-safe', r.plan_id, '--json', { now })
    expect(a.code).toBe(1)
    const doc = a.json
    expectValid(doc)
    expect(doc.archived).toHaveLength(2)
    expect(doc.failed.map((f: { id: string }) => f.id)).toEqual([last])
    expect(fs.existsSync(lastFile)).toBe(true)
    for (const x of doc.archived) expect(fs.existsSync(path.join(ws.root, x.to))).toBe(true)
    // The dated folder's name taken by a file: nothing moves, each event is named.
    const { ws: ws2 } = await planted()
    const r2 = (await ws2.ok('events', 'reconcile', '--json')).json
    fs.mkdirSync(path.join(ws2.root, '.dacli', 'archive', 'events'), { recursive: true })
    fs.writeFileSync(path.join(ws2.root, '.dacli', 'archive', 'events', '2030-01-02'), 'x')
    const b = await ws2.dacli('events', 'reconcile', '--apply-safe', r2.plan_id, { now })
    expect(b.code).toBe(1)
    expect(b.stdout).toContain('not archived')
    expect(b.stderr).not.toContain('EEXIST: file already exists, mkdir')
  })

  test('a bad class is 2; a read-only identity cannot archive (3)', async () => {
    const ws = await workspace()
    expect((await ws.dacli('events', 'reconcile', '--archive', 'live')).code).toBe(2)
    const ro = await ws.agent('ro')
    expect((await ws.dacli('events', 'reconcile', '--apply-safe', 'ep-1', { as: ro.token })).code).toBe(3)
  })
})

describe('events reconcile --project', () => {
  test('the plan holds only that project’s events (an orphan belongs to none); its id differs, and it applies alone', async () => {
    const { ws, ids } = await planted()
    await ws.ok('project', 'add', 'Beta', '--slug', 'beta')
    await ws.ok('task', 'add', 'Other', '--project', 'beta', '--accept', 'ok')
    const ro = await ws.agent('ro')
    await ws.ok('task', 'block', 'beta/1', '--why', 'y', '--json', { as: ro.token })
    await ws.ok('task', 'block', 'beta/1', '--why', 'y')
    const all = (await ws.ok('events', 'reconcile', '--json')).json
    const beta = (await ws.ok('events', 'reconcile', '--project', 'beta', '--json')).json
    expectValid(beta)
    expect(beta.project).toBe('beta')
    expect(beta.events.map((e: { class: string; project: string }) => [e.class, e.project])).toEqual([
      ['applied', 'beta'],
    ])
    const alpha = (await ws.ok('events', 'reconcile', '--project', 'alpha', '--json')).json
    expect(alpha.events.map((e: { id: string }) => e.id)).not.toContain(ids.orphan)
    expect(all.events.find((e: { id: string }) => e.id === ids.orphan).project).toBeNull()
    expect(new Set([all.plan_id, alpha.plan_id, beta.plan_id]).size).toBe(3)
    // The whole journal's plan id is not beta's: refused (5), nothing moved.
    const before = ws.snapshot()
    expect(
      (await ws.dacli('events', 'reconcile', '--project', 'beta', '--apply-safe', all.plan_id, '--json')).code,
    ).toBe(5)
    expect(ws.snapshot()).toEqual(before)
    const applied = (await ws.ok('events', 'reconcile', '--project', 'beta', '--apply-safe', beta.plan_id, '--json'))
      .json
    expect(applied.archived).toHaveLength(1)
    expect((await ws.ok('events', 'reconcile', '--project', 'alpha', '--json')).json.plan_id).toBe(alpha.plan_id)
    expect((await ws.dacli('events', 'reconcile', '--project', 'nope', '--json')).code).toBe(4)
  })
})
