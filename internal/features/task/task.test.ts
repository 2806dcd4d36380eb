import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
beforeEach(async () => {
  ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
})

describe('task add', () => {
  test('writes the file of FORMAT.md and answers task/v1', async () => {
    const r = (
      await ws.dacli(
        'task',
        'add',
        'Add the ledger write shim',
        '--project',
        'ledger',
        '--priority',
        'must',
        '--estimate',
        '2,5,14',
        '--accept',
        'Shim covers the nightly batch path',
        '--accept',
        'Reconciliation suite green',
        '--so-that',
        'reconciliation stops diverging',
        '--context',
        'See the incident',
        '--json',
      )
    ).expectExit(0)
    const t = r.json
    expectValid(t)
    expect(t).toMatchObject({
      seq: 1,
      ref: 'ledger/001-add-the-ledger-write-shim',
      status: 'open',
      owner: null,
      priority: 'must',
      estimate: { optimistic: 2, probable: 5, pessimistic: 14, te: 6 },
      acceptance_total: 2,
      acceptance_done: 0,
      version: 1,
      sections: { so_that: 'reconciliation stops diverging', context: 'See the incident' },
      created_by: 'a-root',
      path: '.dacli/projects/ledger/tasks/open/001-add-the-ledger-write-shim.md',
    })
    expect(t.id).toMatch(/^t-[0-9A-Z]{26}$/)
    const text = ws.file(t.path)
    expect(text).toMatch(/^---\nid: t-/)
    expect(text).toContain('estimate: {optimistic: 2, probable: 5, pessimistic: 14}')
    expect(text).toContain('- [ ] Shim covers the nightly batch path')
    expect(text).toMatch(/## Log\n\n- \S+Z a-root created\n$/)
    expect(text).not.toMatch(/^owner:/m)
  })

  test('dependencies and parent are stored as ids and shown resolved with their status', async () => {
    const a = (await ws.dacli('task', 'add', 'Audit write paths', '--project', 'ledger', '--json')).expectExit(0).json
    const b = (
      await ws.dacli(
        'task',
        'add',
        'Build shim',
        '--project',
        'ledger',
        '--depends-on',
        '1:SS',
        '--parent',
        'ledger/audit-write-paths',
        '--json',
      )
    ).expectExit(0).json
    expect(b.depends_on).toEqual([{ on: a.id, ref: a.ref, title: 'Audit write paths', type: 'SS', status: 'open' }])
    expect(b.parent).toEqual({ id: a.id, ref: a.ref })
    expect(ws.file(b.path)).toContain(`  - {on: ${a.id}, type: SS}`)
  })

  test('sequence numbers are never reused, even when a file is broken or removed', async () => {
    ;(await ws.dacli('task', 'add', 'One', '--project', 'ledger')).expectExit(0)
    ws.write('.dacli/projects/ledger/tasks/open/002-broken.md', 'not a task')
    ws.write('.dacli/projects/ledger/tasks/removed/003-gone.md', '---\nid: t-x\nkind: task\n---\n')
    const r = (await ws.dacli('task', 'add', 'Four', '--project', 'ledger', '--json')).expectExit(0)
    expect(r.json.seq).toBe(4)
  })

  test('refusals: unknown project 4, unknown dependency 4, bad estimates 2, scalar estimate 2, empty title 2', async () => {
    expect((await ws.dacli('task', 'add', 'x', '--project', 'nope', '--json')).code).toBe(4)
    expect((await ws.dacli('task', 'add', 'x', '--project', 'ledger', '--depends-on', '42', '--json')).code).toBe(4)
    expect((await ws.dacli('task', 'add', 'x', '--project', 'ledger', '--parent', 'nope', '--json')).code).toBe(4)
    for (const e of ['1,2', '3,2,1', '-1,2,3', 'a,b,c', '5', '1,,3']) {
      const r = await ws.dacli('task', 'add', 'x', '--project', 'ledger', '--estimate', e, '--json')
      expect(r.code, e).toBe(2)
    }
    expect((await ws.dacli('task', 'add', '  ', '--project', 'ledger', '--json')).code).toBe(2)
    expect((await ws.dacli('task', 'add', 'a\u0000b', '--project', 'ledger', '--json')).code).toBe(2)
    expect((await ws.dacli('task', 'add', 'x', '--project', '../etc', '--json')).code).toBe(2)
    expect(fs.existsSync(path.join(ws.root, '.dacli/projects/ledger/tasks/open'))).toBe(false)
  })

  test('a near-duplicate of an open or active task is refused (3) naming the twin, unless --force', async () => {
    ;(await ws.dacli('task', 'add', 'Add the ledger write shim', '--project', 'ledger')).expectExit(0)
    const r = (await ws.dacli('task', 'add', 'ledger write shim: add it', '--project', 'ledger', '--json')).expectExit(
      3,
    )
    expect(r.error.details.twin.ref).toBe('ledger/001-add-the-ledger-write-shim')
    expect(r.error.details.policy).toBe('near-duplicate')
    expect(r.error.next_actions.length).toBeGreaterThan(0)
    ;(await ws.dacli('task', 'add', 'ledger write shim: add it', '--project', 'ledger', '--force')).expectExit(0)
    // A single shared word is not a duplicate.
    ;(await ws.dacli('task', 'add', 'Ledger export', '--project', 'ledger')).expectExit(0)
    // Titles that name different things pass; the same words reordered, pluralised or with a word added do not.
    for (const [a, b] of [
      ['Add modulo function', 'Add power function'],
      ['Fix bug in lexer', 'Fix bug in parser'],
      ['Write docs for logout', 'Write docs for login'],
    ]) {
      ;(await ws.dacli('task', 'add', a as string, '--project', 'ledger')).expectExit(0)
      ;(await ws.dacli('task', 'add', b as string, '--project', 'ledger')).expectExit(0)
    }
    for (const twin of ['Add power functions', 'parser: fix the bug in it', 'Write docs for login page']) {
      const t = (await ws.dacli('task', 'add', twin, '--project', 'ledger', '--json')).expectExit(3)
      expect(t.error.details.policy).toBe('near-duplicate')
    }
  })

  test('warns on stderr when there are no acceptance criteria (not under --quiet)', async () => {
    const r = (await ws.dacli('task', 'add', 'Vague', '--project', 'ledger')).expectExit(0)
    expect(r.stderr).toMatch(/no acceptance criteria/)
    const q = (await ws.dacli('task', 'add', 'Other vague', '--project', 'ledger', '--quiet')).expectExit(0)
    expect(q.stderr).toBe('')
  })
})

describe('task references', () => {
  test('every form resolves; a bare form in two projects is ambiguous (2) with qualified candidates', async () => {
    const t = (await ws.dacli('task', 'add', 'Write shim', '--project', 'ledger', '--json')).expectExit(0).json
    for (const ref of [
      '1',
      '001',
      '001-write-shim',
      'write-shim',
      t.id,
      t.id.slice(2),
      t.id.slice(2).toLowerCase(),
      'ledger/1',
      'ledger/write-shim',
      `ledger/${t.id}`,
    ]) {
      const r = await ws.dacli('task', 'show', ref, '--json')
      expect(r.code, ref).toBe(0)
      expect(r.json.id).toBe(t.id)
    }
    ;(await ws.dacli('project', 'add', 'Other', '--slug', 'other')).expectExit(0)
    ;(await ws.dacli('task', 'add', 'Something else', '--project', 'other')).expectExit(0)
    const amb = (await ws.dacli('task', 'show', '1', '--json')).expectExit(2)
    expect(amb.error.details.candidates).toEqual(['ledger/001-write-shim', 'other/001-something-else'])
    // Each candidate with its id (contract: an ambiguous reference lists both tasks' references and ids).
    const other = (await ws.dacli('task', 'show', 'other/1', '--json')).expectExit(0).json.id
    expect(amb.error.details.tasks.map((x: { ref: string; id: string }) => [x.ref, x.id])).toEqual([
      ['ledger/001-write-shim', t.id],
      ['other/001-something-else', other],
    ])
    expect(amb.error.message).toContain(t.id)
    expect(amb.error.suggestions).toContain('dacli task show ledger/001-write-shim --json')
    expect((await ws.dacli('task', 'show', 'ledger/2', '--json')).code).toBe(4)
    expect((await ws.dacli('task', 'show', 'nope/1', '--json')).code).toBe(4)
    expect((await ws.dacli('task', 'show', 'a/b/c', '--json')).code).toBe(2)
  })
})

describe('task list', () => {
  test('filters, pages and announces truncation; unknown status is a usage error', async () => {
    for (const [title, pri] of [
      ['Alpha work', 'must'],
      ['Beta work', 'could'],
      ['Gamma thing', 'must'],
    ] as const) {
      ;(await ws.dacli('task', 'add', title, '--project', 'ledger', '--priority', pri, '--accept', 'ok')).expectExit(0)
    }
    const all = (await ws.dacli('task', 'list', '--json')).expectExit(0).json
    expectValid(all)
    expect(all.total).toBe(3)
    expect(all.truncated).toBe(false)
    expect(all.next_cursor).toBeNull()
    expect(all.tasks[0]).toMatchObject({
      seq: 1,
      ref: 'ledger/001-alpha-work',
      status: 'open',
      owner: null,
      priority: 'must',
      acceptance_done: 0,
      acceptance_total: 1,
    })
    const must = (await ws.dacli('task', 'list', '--priority', 'must', '--json')).json
    expect(must.tasks.map((t: { seq: number }) => t.seq)).toEqual([1, 3])
    const p1 = (await ws.dacli('task', 'list', '--limit', '2', '--json')).json
    expect(p1).toMatchObject({ total: 3, truncated: true, next_cursor: expect.stringMatching(/^k\./) })
    expect(p1.tasks).toHaveLength(2)
    const p2 = (await ws.dacli('task', 'list', '--limit', '2', '--cursor', p1.next_cursor, '--json')).json
    expect(p2.tasks.map((t: { seq: number }) => t.seq)).toEqual([3])
    expect(p2).toMatchObject({ cursor: p1.next_cursor, next_cursor: null, truncated: true })
    // A plain offset (next_cursor before key cursors) still pages.
    expect((await ws.dacli('task', 'list', '--limit', '2', '--cursor', '2', '--json')).json.tasks).toHaveLength(1)
    for (const bad of ['k.', 'k.!!', `k.${Buffer.from('["a",1]').toString('base64url')}`, 'k.e30'])
      expect((await ws.dacli('task', 'list', '--cursor', bad, '--json')).code, bad).toBe(2)
    const bad = (await ws.dacli('task', 'list', '--status', 'closed', '--json')).expectExit(2)
    expect(bad.error.message).toMatch(/open, active, blocked, done/)
    expect((await ws.dacli('task', 'list', '--owner', 'none', '--json')).json.total).toBe(3)
    expect((await ws.dacli('task', 'list', '--owner', 'me', '--json')).json.total).toBe(0)
    expect((await ws.dacli('task', 'list', '--limit', '0', '--json')).code).toBe(2)
    expect((await ws.dacli('task', 'list', '--cursor', 'x', '--json')).code).toBe(2)
  })

  test('an unparseable task file is skipped, reported and never overwritten; the cache never serves stale data', async () => {
    ;(await ws.dacli('task', 'add', 'Good one', '--project', 'ledger')).expectExit(0)
    const file = '.dacli/projects/ledger/tasks/open/001-good-one.md'
    const abs = path.join(ws.root, file)
    const old = new Date(Date.now() - 60_000)
    ;(await ws.dacli('task', 'list', '--json')).expectExit(0) // warm the cache (a racily fresh file is not kept)
    const text = ws.file(file)
    // A hand edit behind the cache's back: same size, the modification time put back (only the change time moves).
    const edited = text.replace('# Good one', '# Good two')
    expect(edited.length).toBe(text.length)
    fs.writeFileSync(abs, edited)
    fs.utimesSync(abs, old, old)
    expect((await ws.dacli('task', 'list', '--json')).json.tasks[0].title).toBe('Good two')
    fs.writeFileSync(path.join(ws.root, file), edited.replace('kind: task', 'kind: [task'))
    const r = (await ws.dacli('task', 'list', '--json')).expectExit(0)
    expect(r.json.tasks).toEqual([])
    expect(r.json.skipped).toEqual([{ path: file, reason: expect.stringMatching(/YAML/), code: 'unparseable-object' }])
    const show = await ws.dacli('task', 'show', '1', '--json')
    expect(show.code).toBe(1)
    expect(show.error.message).toMatch(/^unreadable task file .*001-good-one\.md: frontmatter is not valid YAML/)
    fs.rmSync(path.join(ws.root, '.dacli/cache'), { recursive: true, force: true })
    expect((await ws.dacli('task', 'list', '--json')).json.skipped).toHaveLength(1)
  })
})

test('a task claimed or removed between two pages never makes the next page skip one', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Web', '--slug', 'web')).expectExit(0)
  for (const t of ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot'])
    (await ws.dacli('task', 'add', t, '--project', 'web', '--accept', 'ok')).expectExit(0)
  const page = async (cursor?: string) =>
    (
      await ws.dacli(
        'task',
        'list',
        '--status',
        'open',
        '--limit',
        '2',
        ...(cursor ? ['--cursor', cursor] : []),
        '--json',
      )
    ).expectExit(0).json
  const first = await page()
  expect(first.tasks.map((t: { seq: number }) => t.seq)).toEqual([1, 2])
  // The agent claims what it saw (both leave the open listing), and a task before the page is removed by hand.
  ;(await ws.dacli('task', 'claim', 'web/1')).expectExit(0)
  ;(await ws.dacli('task', 'claim', 'web/2')).expectExit(0)
  const second = await page(first.next_cursor)
  expect(second.tasks.map((t: { seq: number }) => t.seq)).toEqual([3, 4])
  expect(second.total).toBe(4)
  fs.rmSync(path.join(ws.root, '.dacli/projects/web/tasks/open/003-charlie.md'))
  const third = await page(second.next_cursor)
  expect(third.tasks.map((t: { seq: number }) => t.seq)).toEqual([5, 6])
  expect(third.next_cursor).toBeNull()
})
