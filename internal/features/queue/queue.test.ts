// Queues: the file on disk (hand-editable), next (ready, not held back), advance (done or failed, logged), refusals
// of hand-edited files with bad lines (file and line named), rm.

import { describe, expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { type Workspace, workspace } from '../../testkit/ws.js'

const FILE = '.dacli/queues/release.md'

async function setup(): Promise<Workspace> {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  for (const t of ['Schema change', 'Backfill', 'Switch reads', 'Drop old column'])
    await ws.ok('task', 'add', t, '--project', 'ledger', '--accept', 'ok', '--force')
  await ws.ok('task', 'depend', 'ledger/3', '--add', 'ledger/2')
  return ws
}

describe('queue add, show, list', () => {
  test('writes a hand-editable file in order; a task waiting already is not added twice; show and list read it', async () => {
    const ws = await setup()
    const made = (await ws.ok('queue', 'add', 'release', 'ledger/3', 'ledger/1', '--title', 'Release 1.2', '--json'))
      .json
    expectValid(made)
    expect(made).toMatchObject({
      action: 'add',
      slug: 'release',
      title: 'Release 1.2',
      head: 'ledger/003-switch-reads',
    })
    expect(made.added).toEqual(['ledger/003-switch-reads', 'ledger/001-schema-change'])
    const text = ws.file(FILE)
    expect(text).toMatch(
      /^---\nkind: queue\ncreated: \S+\ncreated_by: a-root\n---\n\n# Release 1\.2\n\n## Tasks\n\n- \[ \] ledger\/003-switch-reads\n- \[ \] ledger\/001-schema-change\n\n## Log\n\n- \S+ a-root added ledger\/003-switch-reads ledger\/001-schema-change\n$/,
    )
    const again = (await ws.ok('queue', 'add', 'release', 'ledger/1', 'ledger/4', '--json')).json
    expect(again.added).toEqual(['ledger/004-drop-old-column'])
    expect(again.items.map((i: { n: number; ref: string }) => [i.n, i.ref])).toEqual([
      [1, 'ledger/003-switch-reads'],
      [2, 'ledger/001-schema-change'],
      [3, 'ledger/004-drop-old-column'],
    ])
    const shown = (await ws.ok('queue', 'show', 'release', '--json')).json
    expectValid(shown)
    expect(shown.counts).toEqual({ waiting: 3, done: 0, failed: 0 })
    const list = (await ws.ok('queue', 'list', '--json')).json
    expectValid(list)
    expect(list.queues).toEqual([
      {
        slug: 'release',
        title: 'Release 1.2',
        total: 3,
        waiting: 3,
        done: 0,
        failed: 0,
        head: 'ledger/003-switch-reads',
      },
    ])
    const before = ws.snapshot()
    ;(await ws.dacli('queue', 'add', 'release', 'ledger/99', '--json')).expectExit(4)
    ;(await ws.dacli('queue', 'add', '../escape', 'ledger/1', '--json')).expectExit(2)
    ;(await ws.dacli('queue', 'show', 'nope', '--json')).expectExit(4)
    expect(ws.snapshot()).toEqual(before)
  })
})

describe('queue next and advance', () => {
  test('next passes over what is not ready or is held back; advance closes turns, logged', async () => {
    const ws = await setup()
    const alice = await ws.agent('rw', 'alice')
    await ws.ok('task', 'edit', 'ledger/1', '--touches', 'db/**')
    await ws.ok('task', 'edit', 'ledger/4', '--touches', 'db/migrations/**')
    await ws.ok('queue', 'add', 'release', 'ledger/3', 'ledger/4', 'ledger/2')
    await ws.ok('task', 'claim', 'ledger/1', { as: alice.token })
    const next = (await ws.ok('queue', 'next', 'release', '--json')).json
    expectValid(next)
    expect(next.task).toMatchObject({
      ref: 'ledger/002-backfill',
      position: 3,
      command: 'dacli task claim ledger/002-backfill',
    })
    expect(next.skipped).toEqual([
      {
        ref: 'ledger/003-switch-reads',
        position: 1,
        why: expect.stringMatching(/^it waits: FS on ledger\/002-backfill/),
      },
      { ref: 'ledger/004-drop-old-column', position: 2, why: 'held back: overlaps ledger/001-schema-change on db/**' },
    ])
    const adv = (await ws.ok('queue', 'advance', 'release', '--fail', 'blocked by the backfill', '--json')).json
    expectValid(adv)
    expect(adv.advanced).toEqual({ ref: 'ledger/003-switch-reads', turn: 'failed', reason: 'blocked by the backfill' })
    expect(ws.file(FILE)).toContain(
      '\n- [-] ledger/003-switch-reads — blocked by the backfill\n- [ ] ledger/004-drop-old-column\n',
    )
    expect(ws.file(FILE)).toMatch(/a-root failed ledger\/003-switch-reads: blocked by the backfill\n$/)
    await ws.ok('queue', 'advance', 'release')
    expect(ws.file(FILE)).toContain('\n- [x] ledger/004-drop-old-column\n- [ ] ledger/002-backfill\n')
    await ws.ok('queue', 'advance', 'release')
    const none = (await ws.ok('queue', 'next', 'release', '--json')).json
    expect(none).toMatchObject({ task: null, explanation: 'queue release has no task waiting its turn' })
    const before = ws.snapshot()
    expect((await ws.dacli('queue', 'advance', 'release', '--json')).expectExit(5).error.message).toMatch(
      /nothing to advance/,
    )
    expect(ws.snapshot()).toEqual(before)
  })

  test('a hand-edited file: plain "- ref" lines are items; a bad ref is dangling; a bad line is refused with the file and line', async () => {
    const ws = await setup()
    ws.write(FILE, '# Hand made\n\n## Tasks\n\n- ledger/2\n- [x] ledger/1\n')
    const doc = (await ws.ok('queue', 'show', 'release', '--json')).json
    expect(doc.items.map((i: { turn: string }) => i.turn)).toEqual(['waiting', 'done'])
    expect((await ws.ok('queue', 'next', 'release', '--json')).json.task.ref).toBe('ledger/002-backfill')
    ws.write(FILE, '# Hand made\n\n## Tasks\n\n- ledger/2\n- ledger/77\n')
    const r = (await ws.ok('queue', 'show', 'release', '--json')).json
    expect(r.items[1]).toMatchObject({ ref: 'ledger/77', id: null, dangling: 'no task matches "ledger/77"' })
    ws.write(FILE, '# Hand made\n\n## Tasks\n\nledger/2\n')
    expect((await ws.dacli('queue', 'next', 'release', '--json')).expectExit(1).error.message).toMatch(
      /release\.md:5: "ledger\/2" is not a queue item/,
    )
    const list = (await ws.ok('queue', 'list', '--json')).json
    expect(list.skipped[0]).toMatchObject({ slug: 'release' })
    const before = ws.snapshot()
    ;(await ws.dacli('queue', 'advance', 'release')).expectExit(1)
    expect(ws.snapshot()).toEqual(before)
  })

  test('a control character in a hand-written title or failure reason is refused with the file and line', async () => {
    const ws = await setup()
    for (const [text, line, what] of [
      ['# Hand \u001b]0;pwn\u0007 made\n\n## Tasks\n\n- ledger/2\n', 1, 'the title holds the control character ESC'],
      [
        '# Hand made\n\n## Tasks\n\n- [-] ledger/2 — broke \u001b[2J\n',
        5,
        'the reason holds the control character ESC',
      ],
    ] as const) {
      ws.write(FILE, text)
      const before = ws.snapshot()
      const r = (await ws.dacli('queue', 'show', 'release', '--json')).expectExit(1)
      expect(r.error.message).toContain(`.dacli/queues/release.md:${line}: ${what}`)
      expect((await ws.ok('queue', 'list', '--json')).json.skipped[0]).toMatchObject({ slug: 'release' })
      ;(await ws.dacli('queue', 'advance', 'release')).expectExit(1)
      expect(ws.snapshot()).toEqual(before)
    }
  })

  test('rm: refused while tasks wait (3) unless --force', async () => {
    const ws = await setup()
    await ws.ok('queue', 'add', 'release', 'ledger/1')
    expect((await ws.dacli('queue', 'rm', 'release', '--json')).expectExit(3).error.details).toMatchObject({
      queue: 'release',
      waiting: 1,
    })
    const gone = (await ws.ok('queue', 'rm', 'release', '--force', '--json')).json
    expectValid(gone)
    expect(() => ws.file(FILE)).toThrow()
  })
})
