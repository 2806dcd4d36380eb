// A folder under projects/ named like a project that holds tasks but no project.md (deleted by hand, lost in a
// merge): nothing in it is read. Before, its tasks dropped out of every answer in silence — no listing said so,
// `task show ghost/1` was a bare "no project", doctor found nothing. Now every listing of every project's tasks
// and of the projects announces the folder, doctor and lint report it (project-without-file), a reference into it
// says why, and restoring its project.md brings the tasks back. Reading it writes nothing.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { callerOf, servedOverStdio } from '../testkit/mcp.js'
import { type Workspace, workspace } from '../testkit/ws.js'

const GHOST = '.dacli/projects/ghost'
const GHOST_ID = 't-01M943MWXXMS2KPKN775Q6FKC7'

const ghostTask = `---
id: ${GHOST_ID}
kind: task
created: 2026-01-05T10:00:00Z
created_by: a-root
version: 1
---

# Haunted work

## Acceptance

- [ ] it works

## Log

- 2026-01-05T10:00:00Z a-root created
`

async function withGhost(): Promise<Workspace> {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'one', '--project', 'alpha', '--accept', 'done')
  ws.write(`${GHOST}/tasks/open/001-haunted-work.md`, ghostTask)
  // Folders that drop nothing are not reported: an empty one (as `project add` makes it before its file), dot files.
  fs.mkdirSync(path.join(ws.root, '.dacli/projects/empty'))
  ws.write('.dacli/projects/dotted/.keep', '')
  return ws
}

const isGhost = { path: GHOST, code: 'project-without-file' }

test('a project folder without project.md is announced by every listing, doctor and lint (an empty one is not); reading writes nothing', async () => {
  const ws = await withGhost()
  const before = ws.snapshot()

  const list = (await ws.ok('task', 'list', '--json')).json
  expect(list.tasks.map((t: { ref: string }) => t.ref)).toEqual(['alpha/001-one'])
  expect(list.skipped).toEqual([expect.objectContaining(isGhost)])
  expect(list.skipped[0].reason).toMatch(/without project\.md/)
  // The path through the full listing (a filter) says the same; so does the human listing, on stderr.
  expect((await ws.ok('task', 'list', '--status', 'open', '--json')).json.skipped).toEqual([
    expect.objectContaining(isGhost),
  ])
  expect((await ws.ok('task', 'list')).stderr).toMatch(/skipped \.dacli\/projects\/ghost: a project folder without/)
  expect((await ws.ok('project', 'list', '--json')).json.skipped).toEqual([expect.objectContaining(isGhost)])
  expect((await ws.ok('next', '--json')).stderr).toMatch(/skipped \.dacli\/projects\/ghost/)
  // So do the summaries over every project, and search (in its skipped, whatever kind it looks for).
  for (const cmd of ['overview', 'metrics', 'status'])
    expect((await ws.ok(cmd, '--json')).stderr).toMatch(/skipped \.dacli\/projects\/ghost: a project folder without/)
  for (const cmd of [
    ['note', 'list'],
    ['risk', 'list'],
  ])
    expect((await ws.ok(...cmd, '--json')).json.skipped).toEqual([expect.objectContaining(isGhost)])
  for (const kind of [[], ['--kind', 'note']])
    expect((await ws.ok('search', 'haunted', ...kind, '--json')).json.skipped).toEqual([
      expect.objectContaining(isGhost),
    ])
  expect((await ws.ok('lint', '--json')).json.findings).toContainEqual(
    expect.objectContaining({ code: 'project-without-file', severity: 'error', subject: GHOST }),
  )

  const doctor = (await ws.dacli('doctor', '--strict', '--json')).expectExit(1).json
  const found = doctor.findings.filter((f: { code: string }) => f.code === 'project-without-file')
  expect(found).toEqual([expect.objectContaining({ severity: 'error', subject: GHOST })])
  expect(found[0].hint).toContain(`${GHOST}/project.md`)
  expect(found[0].hint).toContain('id: p-ghost')
  expect(doctor.ok).toBe(false)

  expect(ws.snapshot()).toEqual(before)
})

test('a reference into the folder says why it is not found; an unqualified miss names the folder it did not search', async () => {
  const ws = await withGhost()
  const before = ws.snapshot()
  const show = (await ws.dacli('task', 'show', 'ghost/1', '--json')).expectExit(4).error
  expect(show.message).toBe(
    'no project "ghost": .dacli/projects/ghost has no project.md, so nothing in it (tasks, notes, risks) is read',
  )
  expect(show.details).toMatchObject({ project: 'ghost', path: GHOST, code: 'project-without-file' })
  expect(show.next_actions[0]).toContain(`restore ${GHOST}/project.md`)
  expect((await ws.dacli('task', 'list', '--project', 'ghost', '--json')).expectExit(4).error.details.code).toBe(
    'project-without-file',
  )
  const byId = (await ws.dacli('task', 'show', GHOST_ID, '--json')).expectExit(4).error
  expect(byId.message).toMatch(/^no task matches ".*" \(not searched: \.dacli\/projects\/ghost, a project folder/)
  expect(byId.details.skipped).toEqual([expect.objectContaining(isGhost)])
  expect(ws.snapshot()).toEqual(before)

  // The hint's fix: a project.md with its id and kind, and the tasks are back; nothing is reported any more.
  ws.write(`${GHOST}/project.md`, '---\nid: p-ghost\nkind: project\n---\n\n# Ghost\n')
  expect((await ws.ok('task', 'show', 'ghost/1', '--json')).json.id).toBe(GHOST_ID)
  const list = (await ws.ok('task', 'list', '--json')).json
  expect(list.skipped).toEqual([])
  expect(list.tasks.map((t: { ref: string }) => t.ref)).toEqual(['alpha/001-one', 'ghost/001-haunted-work'])
  expect((await ws.ok('doctor', '--strict', '--json')).json.findings).toEqual([])
})

test('the MCP server, asked after a project.md was deleted under it, reports the folder as the CLI does', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('project', 'add', 'Beta', '--slug', 'beta')
  await ws.ok('task', 'add', 'one', '--project', 'alpha', '--accept', 'done')
  await ws.ok('task', 'add', 'two', '--project', 'beta', '--accept', 'done')
  const client = await servedOverStdio(ws.root, 'project-without-file')
  const call = callerOf(client)
  const served = async () => {
    const doc = await call('list_tasks', {})
    return { refs: doc.tasks.map((t: { ref: string }) => t.ref), skipped: doc.skipped ?? [] }
  }
  try {
    await new Promise((r) => setTimeout(r, 300))
    for (let i = 0; i < 2; i++) expect(await served()).toEqual({ refs: ['alpha/001-one', 'beta/001-two'], skipped: [] })
    fs.rmSync(path.join(ws.root, '.dacli/projects/beta/project.md'))
    await new Promise((r) => setTimeout(r, 150))
    const now = await served()
    const cli = ws.spawn(['task', 'list', '--json']).expectExit(0).json
    expect(now.refs).toEqual(['alpha/001-one'])
    expect(now.skipped).toEqual(cli.skipped)
    expect(now.skipped).toEqual([
      expect.objectContaining({ path: '.dacli/projects/beta', code: 'project-without-file' }),
    ])
  } finally {
    await client.close()
  }
}, 30_000)
