// Work that never collides: touches globs and worktree changes keep `next` from offering two agents tasks whose
// paths overlap; `task claim` warns or, with --exclusive, refuses. Real workspaces, real git worktrees.

import * as fs from 'node:fs'
import * as path from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { entriesOverlap } from '../../domain/plan/overlap.js'
import { commitStore } from '../../testkit/coordination.js'
import { expectValid } from '../../testkit/schemas.js'
import { git, type Workspace, workspace } from '../../testkit/ws.js'

async function team(): Promise<{ ws: Workspace; a: string; b: string; aId: string; bId: string }> {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Api', '--slug', 'api')
  const a = await ws.agent('rw', 'alice')
  const b = await ws.agent('rw', 'bob')
  return { ws, a: a.token, b: b.token, aId: a.id, bId: b.id }
}

async function add(ws: Workspace, title: string, ...touches: string[]): Promise<void> {
  await ws.ok(
    'task',
    'add',
    title,
    '--project',
    'api',
    '--accept',
    'done',
    '--force',
    ...touches.flatMap((t) => ['--touches', t]),
  )
}

/** `api/001-harden-login` → `api/1`. */
const short = (ref: string) => ref.replace(/\/0*(\d+)-.*$/, '/$1')
const refs = (list: { ref: string }[]) => list.map((r) => short(r.ref))

describe('touches on tasks', () => {
  test('task add and edit write touches: as a block list; bad globs are refused with nothing written', async () => {
    const { ws } = await team()
    await add(ws, 'Harden login', 'src/auth/**', '*.md', 'src/auth/**')
    const file = '.dacli/projects/api/tasks/open/001-harden-login.md'
    expect(ws.file(file)).toContain('\ntouches:\n  - "src/auth/**"\n  - "*.md"\nversion: 1\n')
    const shown = (await ws.ok('task', 'show', 'api/1', '--json')).json
    expectValid(shown)
    expect(shown.touches).toEqual(['src/auth/**', '*.md'])
    await ws.ok('task', 'edit', 'api/1', '--touches', 'lib/x.ts', '--remove-touches', '*.md')
    // The items that stay are kept as written; a new glob that YAML reads as text is unquoted, one it would not is quoted.
    expect(ws.file(file)).toContain('\ntouches:\n  - "src/auth/**"\n  - lib/x.ts\nversion: 2\n')
    await ws.ok('task', 'edit', 'api/1', '--touches', '*.ts')
    expect(ws.file(file)).toContain('\n  - lib/x.ts\n  - "*.ts"\nversion: 3\n')
    expect((await ws.ok('task', 'show', 'api/1', '--json')).json.touches).toEqual(['src/auth/**', 'lib/x.ts', '*.ts'])
    expect(ws.file(file)).toMatch(/a-root edited touches\n/)
    const before = ws.snapshot()
    for (const bad of ['/etc/passwd', '../outside', '!src/**', '', 'a\\b']) {
      const r = (await ws.dacli('task', 'edit', 'api/1', '--touches', bad, '--json')).expectExit(2)
      expect(r.error.details).toMatchObject({ flag: '--touches', value: bad })
      ;(await ws.dacli('task', 'add', 'Other', '--project', 'api', '--touches', bad)).expectExit(2)
    }
    expect(ws.snapshot()).toEqual(before)
    await ws.ok(
      'task',
      'edit',
      'api/1',
      '--remove-touches',
      'lib/x.ts',
      '--remove-touches',
      'src/auth/**',
      '--remove-touches',
      '*.ts',
    )
    expect(ws.file(file)).not.toMatch(/^touches:/m)
  })
})

describe('next holds back what overlaps work in progress', () => {
  test('two agents: the second is never offered a task overlapping the first one’s; held_back says why', async () => {
    const { ws, a, b, aId } = await team()
    await add(ws, 'Harden login', 'src/auth/**')
    await add(ws, 'Rate limit login', 'src/auth/login.ts')
    await add(ws, 'Write the docs', 'docs/**')
    const first = (await ws.ok('next', '--json', { as: a })).json
    expect(short(first.ready[0].ref)).toBe('api/1')
    await ws.ok('task', 'claim', 'api/1', { as: a })
    const second = (await ws.ok('next', '--json', { as: b })).json
    expectValid(second)
    expect(refs(second.ready)).toEqual(['api/3'])
    expect(second.held_back).toEqual([
      {
        id: expect.stringMatching(/^t-/),
        ref: 'api/002-rate-limit-login',
        title: 'Rate limit login',
        priority: null,
        reason: 'overlaps api/001-harden-login on src/auth/**',
        overlaps: [
          {
            id: expect.stringMatching(/^t-/),
            ref: 'api/001-harden-login',
            holder: aId,
            kind: 'active',
            paths: ['src/auth/**'],
            touches: ['src/auth/login.ts'],
          },
        ],
      },
    ])
    const human = (await ws.ok('next', { as: b })).stdout
    expect(human).toContain('held back: api/2 — overlaps api/1 on src/auth/**')
    // The holder itself is not held back by its own work.
    expect(refs((await ws.ok('next', '--json', { as: a })).json.ready)).toEqual(['api/2', 'api/3'])
    // overview offers only what is free, and counts the rest.
    const ov = (await ws.ok('overview', '--json', { as: b })).json
    expectValid(ov)
    expect(refs(ov.ready_now)).toEqual(['api/3'])
    expect(ov.held_back).toBe(1)
  })

  test('--parallel never proposes two tasks that overlap each other', async () => {
    const { ws } = await team()
    await add(ws, 'One', 'src/**/*.ts')
    await add(ws, 'Two', 'src/auth/**')
    await add(ws, 'Three', 'src/**/*.md')
    const doc = (await ws.ok('next', '--parallel', '3', '--json')).json
    expect(refs(doc.ready)).toEqual(['api/1', 'api/3'])
    expect(doc.held_back[0]).toMatchObject({
      ref: 'api/002-two',
      reason: 'overlaps api/001-one (proposed above) on src/**/*.ts',
    })
    expect(doc.held_back[0].overlaps[0]).toMatchObject({ kind: 'proposed', holder: 'this answer' })
  })

  test('when everything ready overlaps, the empty frontier says so', async () => {
    const { ws, a, b } = await team()
    await add(ws, 'One', 'src/**')
    await add(ws, 'Two', 'src/a.ts')
    await ws.ok('task', 'claim', 'api/1', { as: a })
    const doc = (await ws.ok('next', '--json', { as: b })).json
    expect(doc.ready).toEqual([])
    expect(doc.explanation).toMatch(/1 held back/)
  })

  test('a claimed task’s worktree contributes the files its branch changed, once committed', async () => {
    const { ws, a, b } = await team()
    await add(ws, 'Refactor the ledger')
    await add(ws, 'Ledger tests', 'lib/ledger/**')
    commitStore(ws)
    const claimed = (await ws.ok('task', 'claim', 'api/1', '--worktree', '--json', { as: a })).json
    const dir = claimed.worktree.path as string
    expect(refs((await ws.ok('next', '--json', { as: b })).json.ready)).toEqual(['api/2'])
    fs.mkdirSync(path.join(dir, 'lib', 'ledger'), { recursive: true })
    fs.writeFileSync(path.join(dir, 'lib', 'ledger', 'post.ts'), 'export {}\n')
    git(dir, 'add', '.')
    git(dir, 'commit', '-q', '-m', 'ledger work')
    const after = (await ws.ok('next', '--json', { as: b })).json
    expect(after.ready).toEqual([])
    expect(after.held_back[0]).toMatchObject({
      ref: 'api/002-ledger-tests',
      reason: 'overlaps api/001-refactor-the-ledger on lib/ledger/post.ts',
    })
    expect(after.held_back[0].overlaps[0]).toMatchObject({ paths: ['lib/ledger/post.ts'], touches: ['lib/ledger/**'] })
  })
})

describe('task claim of an overlapping task', () => {
  test('warns and reports the overlap; --exclusive refuses with exit 5 and changes nothing', async () => {
    const { ws, a, b, aId } = await team()
    await add(ws, 'Harden login', 'src/auth/**')
    await add(ws, 'Rate limit login', 'src/auth/login.ts')
    await ws.ok('task', 'claim', 'api/1', { as: a })
    const before = ws.snapshot()
    const refused = (await ws.dacli('task', 'claim', 'api/2', '--exclusive', '--json', { as: b })).expectExit(5)
    expect(refused.error.message).toBe(
      'api/002-rate-limit-login overlaps api/001-harden-login on src/auth/**: not claimed (--exclusive)',
    )
    expect(refused.error.details.overlaps).toEqual([
      {
        id: expect.any(String),
        ref: 'api/001-harden-login',
        holder: aId,
        paths: ['src/auth/**'],
        touches: ['src/auth/login.ts'],
      },
    ])
    expect(ws.snapshot()).toEqual(before)
    const warned = await ws.ok('task', 'claim', 'api/2', '--json', { as: b })
    expectValid(warned.json)
    expect(warned.json.outcome).toBe('changed')
    expect(warned.json.details.overlaps[0]).toMatchObject({ ref: 'api/001-harden-login', paths: ['src/auth/**'] })
    expect(warned.stderr).toContain(
      `api/002-rate-limit-login overlaps api/001-harden-login on src/auth/** (held by ${aId})`,
    )
    expect(ws.file('.dacli/projects/api/tasks/active/002-rate-limit-login.md')).toMatch(/claimed/)
  })
})

describe('property: agents asking next in turn never receive overlapping tasks', () => {
  const POOL = [
    'src/**',
    'src/auth/**',
    'src/auth/login.ts',
    'src/*.ts',
    'docs/**',
    'docs/*.md',
    'lib/{a,b}/**',
    'lib/a/x.ts',
    'README.md',
  ]
  test('random touches sets, two agents taking turns', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uniqueArray(fc.constantFrom(...POOL), { minLength: 1, maxLength: 2 }), {
          minLength: 3,
          maxLength: 5,
        }),
        async (sets) => {
          const { ws, a, b } = await team()
          for (const [i, s] of sets.entries()) await add(ws, `Task number ${i + 1} of ${sets.length}`, ...s)
          const held: Record<string, string[][]> = { a: [], b: [] }
          const tokens: Record<string, string> = { a, b }
          for (let turn = 0; turn < sets.length; turn++) {
            const me = turn % 2 === 0 ? 'a' : 'b'
            const other = me === 'a' ? 'b' : 'a'
            const doc = (await ws.ok('next', '--json', { as: tokens[me] as string })).json
            const free = (s: string[]) =>
              !(held[other] ?? []).some((h) => h.some((x) => s.some((y) => entriesOverlap(x, y))))
            if (doc.ready.length === 0) {
              // Nothing offered: then every task still open overlaps the other agent's work.
              const list = (await ws.ok('task', 'list', '--status', 'open', '--json')).json.tasks as { seq: number }[]
              for (const t of list) expect(free(sets[t.seq - 1] as string[])).toBe(false)
              continue
            }
            const pick = doc.ready[0] as { ref: string }
            const s = sets[Number(short(pick.ref).split('/')[1]) - 1] as string[]
            expect(free(s)).toBe(true)
            await ws.ok('task', 'claim', pick.ref, { as: tokens[me] as string })
            held[me]?.push(s)
          }
        },
      ),
      { numRuns: 12 },
    )
  }, 120_000)
})
