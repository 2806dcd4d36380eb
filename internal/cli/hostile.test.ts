// Hostile workspace files and revoked identities (issue 12, High): ids that climb out of the tree,
// folder links under .dacli/, record pull through a committed link, and revocation that bites in a
// running MCP server. The large versions run in `npm run stress` (bench/stress.test.ts).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { nodeSystem } from '../../cmd/system.js'
import { hostileBase, linkedFolders, sameTree, TRAVERSAL_IDS, traversalIds, treeOf } from '../testkit/hostile.js'
import { session, textJSON } from '../testkit/mcp.js'
import { dacliIn, git, tempDir, workspace } from '../testkit/ws.js'

describe('ids from files never become paths (item 1)', () => {
  test('a task id climbing out of the tree: claim deletes nothing outside, every command refuses, doctor names file and field', async () => {
    const f = await traversalIds(await workspace(), TRAVERSAL_IDS)
    expect(f.failures).toEqual([])
  })

  test('event, agent, note and risk ids out of their formats are skipped and reported as invalid-id', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
    ws.write(
      '.dacli/events/2026/01/02/01KBX3Q5M7E2RJ4T8W6YVZ0N1P-a-x-comment.md',
      '---\nid: ../../../../x\nkind: event\nschema_version: 1\nevent_kind: comment\ncreated_by: a-root\n---\n',
    )
    ws.write('.dacli/agents/a-evil.md', '---\nid: a-../../../x\nkind: agent\nparent: a-root\ngrant: rw\n---\n')
    ws.write(
      '.dacli/projects/alpha/notes/findings/x.md',
      '---\nid: n-../../y\nkind: note\nnote_kind: finding\n---\n# x\n',
    )
    ws.write('.dacli/projects/alpha/risks/r.md', '---\nid: r-1\nkind: risk\n---\n# r\n')
    const doc = (await ws.dacli('doctor', '--json')).expectExit(0).json
    const invalid = doc.findings
      .filter((x: { code: string }) => x.code === 'invalid-id')
      .map((x: { subject: string }) => x.subject)
    expect(invalid.sort()).toEqual([
      '.dacli/agents/a-evil.md',
      '.dacli/events/2026/01/02/01KBX3Q5M7E2RJ4T8W6YVZ0N1P-a-x-comment.md',
      '.dacli/projects/alpha/notes/findings/x.md',
      '.dacli/projects/alpha/risks/r.md',
    ])
    const ev = (await ws.dacli('events', 'list', '--json')).expectExit(0).json
    expect(ev.skipped).toEqual([
      expect.objectContaining({ code: 'invalid-id', reason: expect.stringMatching(/field "id"/) }),
    ])
  })

  test('a lock scope that is not a plain name is refused before any file is touched', async () => {
    const { acquireLock } = await import('../store/lock.js')
    const dir = tempDir()
    await expect(acquireLock(path.join(dir, 'locks'), 'task-t-../../x', { system: nodeSystem })).rejects.toThrow(
      /not a plain name/,
    )
    expect(fs.readdirSync(dir)).toEqual([])
  })
})

describe('no link is followed anywhere under .dacli/ (item 2)', () => {
  test('each folder replaced by a link: reads skip it, writes refuse, record refuses, doctor reports it, nothing outside changes', async () => {
    const { ws } = await hostileBase()
    const f = await linkedFolders(ws)
    expect(f.failures).toEqual([])
  })

  test('an agent file planted behind a linked agents/ never resolves', async () => {
    const { ws } = await hostileBase()
    const outside = tempDir('dacli-outside-')
    fs.cpSync(path.join(ws.root, '.dacli/agents'), outside, { recursive: true })
    const rw = await ws.agent('rw', 'mole')
    fs.copyFileSync(path.join(ws.root, `.dacli/agents/${rw.id}.md`), path.join(outside, `${rw.id}.md`))
    fs.rmSync(path.join(ws.root, '.dacli/agents'), { recursive: true })
    fs.symlinkSync(outside, path.join(ws.root, '.dacli/agents'))
    const r = (await ws.dacli('task', 'add', 'Mole', '--project', 'alpha', '--json', { as: rw.token })).expectExit(1)
    expect(r.error.message).toMatch(/agents is a symbolic link/)
    expect(r.error.details.code).toBe('symlink-in-workspace')
  })

  test('record never records the tasks behind a linked folder as deleted', async () => {
    const { ws } = await hostileBase()
    ;(await ws.dacli('record')).expectExit(0)
    const tip = git(ws.root, 'rev-parse', 'dacli/record').trim()
    const active = path.join(ws.root, '.dacli/projects/alpha/tasks/active')
    const outside = tempDir('dacli-outside-')
    fs.cpSync(active, outside, { recursive: true })
    fs.rmSync(active, { recursive: true })
    fs.symlinkSync(outside, active)
    const r = (await ws.dacli('record', '--json')).expectExit(1)
    expect(r.error.details.code).toBe('symlink-in-workspace')
    expect(git(ws.root, 'rev-parse', 'dacli/record').trim()).toBe(tip)
    expect(git(ws.root, 'ls-tree', '-r', '--name-only', tip)).toMatch(/tasks\/active\/002-second-thing\.md/)
  })
})

describe('record pull writes only under this repository’s .dacli/ (item 3)', () => {
  test('a fresh clone whose main holds `evil -> ../out` and whose record holds evil/.dacli: exit 1, nothing written outside', async () => {
    const remote = tempDir('dacli-remote-')
    git(remote, 'init', '-q', '--bare', '-b', 'main')
    // The attacker's repository: a nested workspace in evil/, recorded and pushed …
    const x = tempDir('dacli-attacker-')
    git(x, 'init', '-q', '-b', 'main')
    fs.mkdirSync(path.join(x, 'evil'))
    ;(await dacliIn(path.join(x, 'evil'), ['init', '--here'])).expectExit(0)
    ;(await dacliIn(path.join(x, 'evil'), ['project', 'add', 'Evil', '--slug', 'evil'])).expectExit(0)
    ;(await dacliIn(path.join(x, 'evil'), ['record'])).expectExit(0)
    git(x, 'remote', 'add', 'origin', remote)
    git(x, 'push', '-q', 'origin', 'dacli/record')
    // … and on main, evil is a link to a folder beside the clone.
    const code = tempDir('dacli-code-')
    git(code, 'init', '-q', '-b', 'main')
    fs.symlinkSync('../out4', path.join(code, 'evil'))
    git(code, 'add', 'evil')
    git(code, 'commit', '-q', '-m', 'a link')
    git(code, 'push', '-q', remote, 'main')
    const parent = tempDir('dacli-victim-')
    fs.mkdirSync(path.join(parent, 'out4'))
    git(parent, 'clone', '-q', remote, 'clone')
    const clone = path.join(parent, 'clone')
    expect(fs.lstatSync(path.join(clone, 'evil')).isSymbolicLink()).toBe(true)
    const before = treeOf(path.join(parent, 'out4'))
    const r = (await dacliIn(clone, ['record', 'pull', '--json'])).expectExit(1)
    expect(r.error.details.code).toBe('symlink-in-workspace')
    expect(sameTree(before, treeOf(path.join(parent, 'out4')))).toBe(true)
    expect(fs.readdirSync(path.join(parent, 'out4'))).toEqual([])
  })

  test('a pull into an existing workspace never writes through a linked folder', async () => {
    const remote = tempDir('dacli-remote-')
    git(remote, 'init', '-q', '--bare', '-b', 'main')
    const a = await workspace()
    git(a.root, 'commit', '-q', '--allow-empty', '-m', 'code')
    git(a.root, 'remote', 'add', 'origin', remote)
    git(a.root, 'push', '-q', 'origin', 'main')
    ;(await a.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
    ;(await a.dacli('task', 'add', 'First', '--project', 'alpha', '--accept', 'x')).expectExit(0)
    ;(await a.dacli('record', 'push')).expectExit(0)
    const b = tempDir('dacli-clone-')
    git(b, 'clone', '-q', remote, '.')
    ;(await dacliIn(b, ['record', 'pull'])).expectExit(0)
    ;(await a.dacli('task', 'add', 'Into the link', '--project', 'alpha', '--accept', 'x')).expectExit(0)
    ;(await a.dacli('record', 'push')).expectExit(0)
    const outside = tempDir('dacli-outside-')
    const open = path.join(b, '.dacli/projects/alpha/tasks/open')
    fs.cpSync(open, outside, { recursive: true })
    fs.rmSync(open, { recursive: true })
    fs.symlinkSync(outside, open)
    const before = treeOf(outside)
    const r = (await dacliIn(b, ['record', 'pull', '--json'])).expectExit(1)
    expect(r.error.details.code).toBe('symlink-in-workspace')
    expect(sameTree(before, treeOf(outside))).toBe(true)
  })
})

describe('revocation bites in a running server (item 4)', () => {
  test('an identity retired while its MCP server runs is refused (3) on its next call, and so are its children', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
    const parent = await ws.agent('rw', 'lead')
    const child = (
      await ws.dacli('agent', 'spawn', '--grant', 'rw', '--role', 'helper', '--json', { as: parent.token })
    ).expectExit(0).json
    const s = await session(ws.root, { as: parent.token })
    const c = await session(ws.root, { as: child.token })
    try {
      const ok = await s.call('cli', { schema_version: 1, argv: ['task', 'add', 'Before', '--project', 'alpha'] })
      expect(ok.isError).toBeFalsy()
      ;(await ws.dacli('agent', 'retire', parent.id)).expectExit(0)
      for (const sess of [s, c]) {
        // A refusal is an MCP result (not an error) naming the policy (COMPATIBILITY.md).
        const r = await sess.call('cli', { schema_version: 1, argv: ['task', 'add', 'After', '--project', 'alpha'] })
        expect(textJSON(r).refused).toMatchObject({ policy: 'identity', reason: expect.stringMatching(/retired/) })
        const mint = await sess.call('cli', { schema_version: 1, argv: ['agent', 'spawn', '--grant', 'rw'] })
        expect(textJSON(mint).refused).toMatchObject({ policy: 'identity' })
      }
      expect((await ws.dacli('whoami', { as: child.token })).code).toBe(3)
      expect((await ws.dacli('task', 'list', '--json')).json.tasks.map((t: { title: string }) => t.title)).toEqual([
        'Before',
      ])
    } finally {
      await s.close()
      await c.close()
    }
  })
})

describe('concurrent claims by id (item 8)', () => {
  test('16 processes claim one task by id while readers show it: one 0, fifteen 5, every reader 0', {
    timeout: 300_000,
  }, async () => {
    const { claimByIdRace } = await import('../testkit/hostile.js')
    const f = await claimByIdRace(await workspace(), 16, 6, 6)
    expect(f.unexpected).toBe('none')
    expect(f.rounds_with_other_than_one_winner_and_all_losers_5).toBe(0)
    expect(f.failed_readers).toBe(0)
  })
})

describe('revocation bites in a running board too (item 4)', () => {
  test('a board started as an agent: once the agent is retired, its next API call is refused (3)', async () => {
    const { fixture } = await import('../testkit/ws.js')
    const { request, startBoard } = await import('../testkit/board.js')
    const f = await fixture()
    const b = await startBoard(f, [], f.rw.token)
    try {
      const h = { 'X-Dacli-Token': b.token }
      expect((await request(`${b.base}/api/task/list`, { headers: h })).status).toBe(200)
      // --release: the fixture's agent owns a task, and retiring an owner is refused without it.
      ;(await f.ws.dacli('agent', 'retire', f.rw.id, '--release')).expectExit(0)
      const r = await request(`${b.base}/api/task/list`, { headers: h })
      expect(r.status).not.toBe(200)
      expect(JSON.parse(r.body)).toMatchObject({ schema: 'error/v1', exit_code: 3, kind: 'refused' })
    } finally {
      b.stop()
    }
  })
})
