import { beforeEach, describe, expect, test } from 'vitest'
import { dacliJson } from '../../testkit/schemas.js'
import { type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
beforeEach(async () => {
  ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Do it', '--project', 'p', '--accept', 'x')).expectExit(0)
})

const j = (...args: Parameters<Workspace['dacli']>) => dacliJson(ws, ...args)

describe('notes', () => {
  test('a decision needs --rejected (3); it is written with chose/rejected/because', async () => {
    expect(
      (await j('note', 'add', 'decision', 'Use a shim', '--project', 'p')).expectExit(3).error.details.policy,
    ).toBe('decision-without-rejected')
    const r = (
      await j(
        'note',
        'add',
        'decision',
        'Use a shim',
        '--project',
        'p',
        '--rejected',
        'rewrite callers',
        '--because',
        'one seam',
        '--about',
        'p/1',
      )
    ).expectExit(0).json
    expect(r).toMatchObject({
      kind: 'decision',
      slug: 'use-a-shim',
      outcome: 'created',
      about: { ref: 'p/001-do-it' },
      sections: { chose: 'Use a shim', rejected: 'rewrite callers', because: 'one seam' },
    })
    expect(ws.file(r.path)).toContain('## Rejected\n\nrewrite callers')
  })

  test('a metric needs goal and question (3); bad kind is 2; a title collision gets a suffix', async () => {
    expect((await j('note', 'add', 'metric', 'Latency', '--project', 'p', '--goal', 'fast')).code).toBe(3)
    ;(
      await j('note', 'add', 'metric', 'Latency', '--project', 'p', '--goal', 'g', '--question', 'q', '--metric', 'p99')
    ).expectExit(0)
    expect((await j('note', 'add', 'idea', 'x', '--project', 'p')).expectExit(2).error.details.allowed).toContain(
      'finding',
    )
    const a = (await j('note', 'add', 'finding', 'Same title', '--project', 'p')).expectExit(0).json
    const b = (await j('note', 'add', 'finding', 'Same title', '--project', 'p', '--severity', 'major')).expectExit(
      0,
    ).json
    expect([a.slug, b.slug]).toEqual(['same-title', 'same-title-2'])
    expect((await j('note', 'add', 'ref', 'x', '--project', 'p', '--severity', 'major')).code).toBe(2)
  })

  test('a section the kind has no place for is refused (2), never dropped; nothing is written', async () => {
    const before = ws.snapshot()
    const cases: [string, string[], string][] = [
      ['finding', ['--because', 'fsync per write'], '--because applies to decisions, and the note is a finding'],
      ['ref', ['--chose', 'v2'], '--chose applies to decisions, and the note is a ref'],
      [
        'decision',
        ['--rejected', 'kafka', '--goal', 'throughput'],
        '--goal applies to metrics, and the note is a decision',
      ],
      [
        'metric',
        ['--goal', 'g', '--question', 'q', '--rejected', 'x'],
        '--rejected applies to decisions, and the note is a metric',
      ],
    ]
    for (const [kind, flags, message] of cases)
      expect((await j('note', 'add', kind, 'Typed text', '--project', 'p', ...flags)).expectExit(2).error.message).toBe(
        message,
      )
    expect(ws.snapshot()).toEqual(before)
  })

  test('list filters by kind and task; show resolves ids and project/slug; ambiguity is 2', async () => {
    const d = (await j('note', 'add', 'finding', 'Shared name', '--project', 'p', '--about', '1')).json
    ;(await ws.dacli('project', 'add', 'Q', '--slug', 'q')).expectExit(0)
    ;(await j('note', 'add', 'finding', 'Shared name', '--project', 'q')).expectExit(0)
    const l = (await j('note', 'list', '--about', 'p/1')).expectExit(0).json
    expect(l.notes.map((n: { id: string }) => n.id)).toEqual([d.id])
    expect((await j('note', 'list', '--kind', 'decision')).json.notes).toEqual([])
    expect((await j('note', 'show', d.id)).expectExit(0).json.id).toBe(d.id)
    expect((await j('note', 'show', 'p/shared-name')).expectExit(0).json.id).toBe(d.id)
    expect((await j('note', 'show', 'shared-name')).expectExit(2).error.details.candidates).toEqual([
      'p/shared-name',
      'q/shared-name',
    ])
    expect((await j('note', 'show', 'nope')).code).toBe(4)
  })

  test('a read-only identity’s finding becomes an event that sync turns into a note; other kinds are refused', async () => {
    const ro = await ws.agent('ro', 'reader')
    const r = (
      await j(
        'note',
        'add',
        'finding',
        'Batch bypasses ORM',
        '--project',
        'p',
        '--about',
        'p/1',
        '--severity',
        'major',
        { as: ro.token },
      )
    ).expectExit(0).json
    expect(r).toMatchObject({ outcome: 'proposed', id: null })
    expect((await j('note', 'add', 'decision', 'x', '--project', 'p', '--rejected', 'y', { as: ro.token })).code).toBe(
      3,
    )
    expect((await j('note', 'list')).json.notes).toEqual([])
    const s = (await j('sync')).expectExit(0).json
    expect(s.applied).toEqual([r.event_id])
    const notes = (await j('note', 'list')).json.notes
    expect(notes[0]).toMatchObject({
      title: 'Batch bypasses ORM',
      severity: 'major',
      created_by: ro.id,
      source_event: r.event_id,
    })
    expect((await j('sync')).json.applied).toEqual([])
  })
})

describe('glossary', () => {
  test('glossary reads, defines and replaces terms; --term writes need rw', async () => {
    expect((await j('glossary', 'p')).expectExit(0).json.terms).toEqual([])
    expect((await j('glossary', 'p', '--term', 'shim', '--def', 'the seam')).expectExit(0).json).toMatchObject({
      changed: true,
      terms: [{ term: 'shim', definition: 'the seam' }],
    })
    expect((await j('glossary', 'p', '--term', 'shim', '--def', 'the seam')).json.changed).toBe(false)
    expect((await j('glossary', 'p', '--term', 'Shim', '--def', 'the one seam')).json.terms).toEqual([
      { term: 'Shim', definition: 'the one seam' },
    ])
    expect((await j('glossary', 'p', '--term', 'x')).code).toBe(2)
    const ro = await ws.agent('ro', 'reader')
    expect((await j('glossary', 'p', { as: ro.token })).code).toBe(0)
    expect((await j('glossary', 'p', '--term', 'a', '--def', 'b', { as: ro.token })).code).toBe(3)
  })
})
