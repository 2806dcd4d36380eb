import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
let ro: { id: string; token: string }
beforeEach(async () => {
  ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Do it', '--project', 'p', '--accept', 'x')).expectExit(0)
  ro = await ws.agent('ro', 'reader')
})

describe('events and sync', () => {
  test('sync applies a read-only identity’s proposals oldest first, once; what cannot apply stays pending with a reason', async () => {
    const claim = (await ws.dacli('task', 'claim', 'p/1', '--json', { as: ro.token })).json
    const done = (await ws.dacli('task', 'done', 'p/1', '--json', { as: ro.token })).json
    const list = (await ws.dacli('events', 'list', '--json')).json
    expect(list.events.map((e: { id: string }) => e.id)).toEqual([done.event_id, claim.event_id])
    const s = (await ws.dacli('sync', '--json')).expectExit(0).json
    expect(s.applied).toEqual([claim.event_id])
    expect(s.pending).toEqual([
      {
        event_id: done.event_id,
        reason: expect.stringMatching(/unmet acceptance criteri(on|a)/),
        never_applies: false,
        next: [],
      },
    ])
    const t = (await ws.dacli('task', 'show', 'p/1', '--json')).json
    expect(t).toMatchObject({ owner: ro.id, status: 'active' })
    ;(await ws.dacli('task', 'check', 'p/1', '--all')).expectExit(0)
    const s2 = (await ws.dacli('sync', '--json')).json
    expect(s2.applied).toEqual([done.event_id])
    expect((await ws.dacli('task', 'show', 'p/1', '--json')).json.status).toBe('done')
    expect((await ws.dacli('sync', '--json')).json).toMatchObject({ applied: [], pending: [] })
    expect((await ws.dacli('events', 'list', '--pending', '--json')).json.total).toBe(0)
  })

  test('a tampered event (checksum mismatch) is reported and never applied', async () => {
    const e = (await ws.dacli('task', 'claim', 'p/1', '--json', { as: ro.token })).json
    const file = (await ws.dacli('events', 'list', '--json')).json.events[0].path
    const p = path.join(ws.root, file)
    fs.writeFileSync(p, fs.readFileSync(p, 'utf8').replace(`created_by: ${ro.id}`, 'created_by: a-root'))
    const s = (await ws.dacli('sync', '--json')).expectExit(0).json
    expect(s.applied).toEqual([])
    expect(s.skipped[0]).toMatchObject({
      path: file,
      reason: expect.stringMatching(/checksum mismatch/),
      code: 'forged-event',
    })
    // doctor names it as what it is: an event edited after it was written.
    const d = (await ws.dacli('doctor', '--json')).json
    expect(d.findings.filter((f: { subject: string }) => f.subject === file)).toMatchObject([
      { code: 'forged-event', severity: 'error' },
    ])
    expect((await ws.dacli('task', 'show', 'p/1', '--json')).json.owner).toBeNull()
    const l = await ws.dacli('events', 'list')
    expect(l.stderr).toMatch(/checksum mismatch/)
    expect(e.event_id).toBeTruthy()
  })

  test('events list filters by task and limits, newest first, and announces truncation', async () => {
    ;(await ws.dacli('task', 'add', 'Other', '--project', 'p', '--accept', 'y')).expectExit(0)
    for (const ref of ['p/1', 'p/2', 'p/1']) (await ws.dacli('task', 'block', ref, { as: ro.token })).expectExit(0)
    const l = (await ws.dacli('events', 'list', '--about', 'p/1', '--limit', '1', '--json')).expectExit(0).json
    expect(l).toMatchObject({ total: 2, truncated: true })
    expect(l.events[0].about.ref).toBe('p/001-do-it')
    // People get the whole command for the next page, with the filters they gave.
    const human = (await ws.dacli('events', 'list', '--about', 'p/1', '--pending', '--limit', '1')).expectExit(0)
    expect(human.stdout).toContain('1 more: dacli events list --about p/1 --pending --limit 1 --cursor 1')
    expect((await ws.dacli('events', 'list', '--about', 'p/9', '--json')).code).toBe(4)
    expect((await ws.dacli('sync', '--json', { as: ro.token })).code).toBe(3)
  })
})
