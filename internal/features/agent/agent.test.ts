import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { workspace } from '../../testkit/ws.js'

/** A lead (rw, under root), a mid it spawned and a worker the mid spawned, the worker holding p/1. */
async function workerUnderLead() {
  const ws = await workspace()
  const lead = await ws.agent('rw', 'lead')
  const mid = (await ws.dacli('agent', 'spawn', '--grant', 'rw', '--json', { as: lead.token })).expectExit(0).json
  const worker = (await ws.dacli('agent', 'spawn', '--grant', 'rw', '--json', { as: mid.token })).expectExit(0).json
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Build the thing', '--project', 'p', '--accept', 'x')).expectExit(0)
  ;(await ws.dacli('task', 'claim', 'p/1', { as: worker.token })).expectExit(0)
  return { ws, lead, worker }
}

describe('identities', () => {
  test('unset DACLI_AGENT is a-root rw; set but empty → 3; unknown token → 3', async () => {
    const ws = await workspace()
    expect((await ws.dacli('whoami', '--json')).expectExit(0).json).toMatchObject({
      schema: 'identity/v1',
      id: 'a-root',
      grant: 'rw',
      role: 'root',
    })
    const empty = (await ws.dacli('whoami', '--json', { as: '' })).expectExit(3)
    expect(empty.error.message).toMatch(/set but empty/)
    const bad = (await ws.dacli('task', 'list', '--json', { as: 'f'.repeat(48) })).expectExit(3)
    expect(bad.error.message).toMatch(/not recognized/)
  })

  test('spawn prints the token once (stdout alone in human mode) and stores only its hash', async () => {
    const ws = await workspace()
    const h = (await ws.dacli('agent', 'spawn', '--role', 'Implementer')).expectExit(0)
    const token = h.stdout.trim()
    expect(token).toMatch(/^[0-9a-f]{48}$/)
    expect(h.stderr).toMatch(/spawned a-implementer-[0-9a-z]{6}/)
    const who = (await ws.dacli('whoami', '--json', { as: token })).expectExit(0).json
    expect(who).toMatchObject({ grant: 'ro', role: 'Implementer', parent: 'a-root' })
    const file = ws.file(`.dacli/agents/${who.id}.md`)
    expect(file).not.toContain(token)
    expect(file).toMatch(/token_hash: sha256:[0-9a-f]{64}/)
    const j = (await ws.dacli('agent', 'spawn', '--grant', 'rw', '--json')).expectExit(0).json
    expect(j).toMatchObject({ schema: 'agent-token/v1', grant: 'rw', parent: 'a-root', role: null })
    expect(j.token).toHaveLength(48)
  })

  test('a child never exceeds its parent; a read-only identity cannot spawn at all', async () => {
    const ws = await workspace()
    const rw = await ws.agent('rw', 'lead')
    const ro = await ws.agent('ro', 'reader')
    const child = (await ws.dacli('agent', 'spawn', '--grant', 'rw', '--json', { as: rw.token })).expectExit(0).json
    expect(child.parent).toBe(rw.id)
    expect((await ws.dacli('agent', 'spawn', '--json', { as: ro.token })).expectExit(3).error.details.policy).toBe(
      'grant',
    )
  })

  test('list, show, retire: a retired token stops resolving (3); history stays', async () => {
    const ws = await workspace()
    const a = await ws.agent('rw', 'worker')
    const list = (await ws.dacli('agent', 'list', '--json')).expectExit(0).json
    expect(list.agents.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining(['a-root', a.id]))
    const show = (await ws.dacli('agent', 'show', a.id, '--json')).expectExit(0).json
    expect(show).toMatchObject({ schema: 'agent/v1', id: a.id, lineage: ['a-root'], retired: false })
    expect((await ws.dacli('agent', 'show', 'a-root', '--json')).json.children).toContain(a.id)
    const r = (await ws.dacli('agent', 'retire', a.id, '--json')).expectExit(0).json
    expect(r).toMatchObject({ retired: true, changed: true })
    expect((await ws.dacli('agent', 'retire', a.id, '--json')).expectExit(0).json.changed).toBe(false)
    expect((await ws.dacli('whoami', '--json', { as: a.token })).expectExit(3).error.message).toMatch(/retired/)
    expect((await ws.dacli('agent', 'list', '--json')).json.agents.map((x: { id: string }) => x.id)).not.toContain(a.id)
    expect((await ws.dacli('agent', 'list', '--all', '--json')).json.agents.map((x: { id: string }) => x.id)).toContain(
      a.id,
    )
    expect((await ws.dacli('agent', 'retire', 'a-root', '--json')).code).toBe(3)
    expect((await ws.dacli('agent', 'show', 'a-nope', '--json')).code).toBe(4)
    expect((await ws.dacli('agent', 'show', '../x', '--json')).code).toBe(2)
  })

  test('retiring an identity that owns unfinished work is refused (3, listing it) unless --release, which logs it', async () => {
    const ws = await workspace()
    const a = await ws.agent('rw', 'worker')
    ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    for (const t of ['Claimed work', 'Blocked work', 'Finished work'])
      (await ws.dacli('task', 'add', t, '--project', 'p', '--accept', 'x', '--force')).expectExit(0)
    for (const n of ['1', '2', '3']) (await ws.dacli('task', 'claim', n, { as: a.token })).expectExit(0)
    ;(await ws.dacli('task', 'block', '2', { as: a.token })).expectExit(0)
    ;(await ws.dacli('accept', '3', { as: a.token })).expectExit(0)
    const before = ws.snapshot()
    const r = (await ws.dacli('agent', 'retire', a.id, '--json')).expectExit(3)
    expect(r.error.details.policy).toBe('retire-owner')
    expect(r.error.details.tasks.map((t: { ref: string; status: string }) => `${t.ref} ${t.status}`)).toEqual([
      'p/001-claimed-work active',
      'p/002-blocked-work blocked',
    ])
    expect(r.error.message).toMatch(/owns 2 unfinished tasks \(p\/001-claimed-work, p\/002-blocked-work\)/)
    expect(r.error.next_actions[0]).toBe(`dacli agent retire ${a.id} --release (hands them back to the pool, logged)`)
    expect(ws.snapshot()).toEqual(before)
    expect((await ws.dacli('whoami', { as: a.token })).code).toBe(0)
    const done = (await ws.dacli('agent', 'retire', a.id, '--release', '--json')).expectExit(0).json
    expectValid(done)
    expect(done).toMatchObject({ retired: true, changed: true })
    expect(done.released.map((t: { ref: string; status: string }) => `${t.ref} ${t.status}`)).toEqual([
      'p/001-claimed-work open',
      'p/002-blocked-work blocked',
    ])
    for (const n of ['1', '2']) {
      const t = (await ws.dacli('task', 'show', n, '--json')).json
      expect(t).toMatchObject({ owner: null, claim: null })
      expect(t.log.at(-1)).toMatchObject({
        verb: 'released',
        actor: 'a-root',
        details: `owner ${a.id} retired by a-root`,
      })
    }
    // The finished task keeps its owner: history, not work in hand.
    expect((await ws.dacli('task', 'show', '3', '--json')).json.owner).toBe(a.id)
    expect((await ws.dacli('whoami', { as: a.token })).code).toBe(3)
  })

  test('retiring an ancestor of an owner is refused too (its token stops resolving); --release frees the work', async () => {
    const { ws, lead, worker } = await workerUnderLead()
    const before = ws.snapshot()
    const r = (await ws.dacli('agent', 'retire', lead.id, '--json')).expectExit(3)
    expect(r.error.details).toMatchObject({
      policy: 'retire-owner',
      tasks: [{ ref: 'p/001-build-the-thing', status: 'active', owner: worker.id }],
    })
    expect(r.error.message).toContain(`${lead.id} and the identities under it own 1 unfinished task`)
    expect(ws.snapshot()).toEqual(before)
    const done = (await ws.dacli('agent', 'retire', lead.id, '--release', '--json')).expectExit(0).json
    expect(done.released).toMatchObject([{ ref: 'p/001-build-the-thing', status: 'open' }])
    const t = (await ws.dacli('task', 'show', 'p/1', '--json')).json
    expect(t).toMatchObject({ owner: null, claim: null, status: 'open' })
    expect(t.log.at(-1).details).toBe(`owner ${worker.id}'s ancestor ${lead.id} retired by a-root`)
    expect(ws.file(t.path)).not.toMatch(/^owner:/m)
  })

  test('a live claim of an identity whose ancestor is retired can be taken over, and doctor says so', async () => {
    const { ws, lead, worker } = await workerUnderLead()
    const file = (await ws.dacli('task', 'show', 'p/1', '--json')).json.path
    const claimed = ws.file(file)
    ;(await ws.dacli('agent', 'retire', lead.id, '--release', { as: lead.token })).expectExit(0)
    // The worker's live claim comes back, as a file merged from another clone that never saw the release would.
    fs.rmSync(path.join(ws.root, (await ws.dacli('task', 'show', 'p/1', '--json')).json.path))
    fs.writeFileSync(path.join(ws.root, file), claimed)
    expect((await ws.dacli('whoami', { as: worker.token })).code).toBe(3)
    const doc = (await ws.dacli('doctor', '--json')).expectExit(0).json
    expect(doc.findings.find((f: { code: string }) => f.code === 'orphaned-task')).toMatchObject({
      subject: 'p/001-build-the-thing',
      message: `owned by ${worker.id}, whose ancestor ${lead.id} is retired`,
      hint: 'another identity can take it over with dacli task claim p/001-build-the-thing',
    })
    ;(await ws.dacli('task', 'claim', 'p/1', '--json')).expectExit(0)
    expect((await ws.dacli('task', 'show', 'p/1', '--json')).json.owner).toBe('a-root')
  })

  test('an identity may retire only itself and its descendants', async () => {
    const ws = await workspace()
    const a = await ws.agent('rw', 'a')
    const b = await ws.agent('rw', 'b')
    expect(
      (await ws.dacli('agent', 'retire', b.id, '--json', { as: a.token })).expectExit(3).error.details.policy,
    ).toBe('retire-scope')
    const child = (await ws.dacli('agent', 'spawn', '--json', { as: a.token })).json
    ;(await ws.dacli('agent', 'retire', child.id, { as: a.token })).expectExit(0)
  })
})

describe('what agent list and agent show say', () => {
  test('agent show lists the events the identity wrote, newest first, with their task', async () => {
    const ws = await workspace()
    const rev = await ws.agent('ro', 'rev')
    ;(await ws.dacli('project', 'add', 'Core', '--slug', 'core')).expectExit(0)
    ;(await ws.dacli('task', 'add', 'Some work item', '--project', 'core', '--accept', 'x')).expectExit(0)
    const finding = (
      await ws.dacli('note', 'add', 'finding', 'Flaky', '--project', 'core', '--json', { as: rev.token })
    ).expectExit(0).json
    const claim = (await ws.dacli('task', 'claim', 'core/1', '--json', { as: rev.token })).expectExit(0).json
    const shown = (await ws.dacli('agent', 'show', rev.id, '--json')).expectExit(0).json
    expectValid(shown)
    expect(shown.events_total).toBe(2)
    expect(
      shown.events.map((e: { id: string; kind: string; about: string | null }) => [e.id, e.kind, e.about]),
    ).toEqual([
      [claim.event_id, 'claim', 'core/001-some-work-item'],
      [finding.event_id, 'finding', null],
    ])
    expect((await ws.dacli('agent', 'show', rev.id)).expectExit(0).stdout).toMatch(
      /Events \(2\)[\s\S]*claim\s+pending\s+core\/1/,
    )
    expect((await ws.dacli('agent', 'show', 'a-root', '--json')).json).toMatchObject({ events: [], events_total: 0 })
  })

  test('agent list says which agent file it could not read (skipped), as every listing does', async () => {
    const ws = await workspace()
    const rev = await ws.agent('ro', 'reviewer')
    const file = path.join(ws.root, '.dacli', 'agents', `${rev.id}.md`)
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^grant: ro$/m, 'grant: ro\ngrant: ro'))
    const r = (await ws.dacli('agent', 'list', '--all', '--json')).expectExit(0)
    expectValid(r.json)
    expect(r.json.agents.map((a: { id: string }) => a.id)).toEqual(['a-root'])
    expect(r.json.skipped).toMatchObject([{ path: `.dacli/agents/${rev.id}.md`, code: 'unparseable-object' }])
    expect(r.stderr).toContain(`.dacli/agents/${rev.id}.md`)
  })
})
