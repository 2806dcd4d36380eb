import { describe, expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

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
