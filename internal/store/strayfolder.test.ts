// What a person puts in a project's tasks folder beside the status folders: a task moved by hand into a folder named
// for a status dacli does not have, or left beside the folders. Each is reported by every listing, lint and doctor,
// and its number is never handed out again. Before, such a task dropped out of every answer in silence and the next
// `task add` took its number.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { callerOf, servedOverStdio } from '../testkit/mcp.js'
import { type Workspace, workspace } from '../testkit/ws.js'

const TASKS = '.dacli/projects/alpha/tasks'

const handTask = (id: string, title: string) => `---
id: ${id}
kind: task
version: 1
---

# ${title}

## Acceptance

- [ ] it works
`

async function alphaWithTwo(): Promise<Workspace> {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'one', '--project', 'alpha', '--accept', 'done')
  await ws.ok('task', 'add', 'two', '--project', 'alpha', '--accept', 'done')
  return ws
}

test('a task moved by hand into a folder that is not a status folder is reported, and its number is not reused', async () => {
  const ws = await alphaWithTwo()
  const rel = `${TASKS}/review/007-handmade.md`
  const text = handTask('t-01M943MWXXMS2KPKN775Q6FKC7', 'Hand made')
  ws.write(rel, text)

  const list = (await ws.ok('task', 'list', '--json')).json
  expect(list.tasks.map((t: { seq: number }) => t.seq)).toEqual([1, 2])
  expect(list.skipped).toEqual([expect.objectContaining({ path: `${TASKS}/review`, code: 'unparseable-object' })])
  expect(list.skipped[0].reason).toMatch(/not a status folder/)

  const doctor = (await ws.ok('doctor', '--json')).json
  expect(doctor.findings).toContainEqual(
    expect.objectContaining({ code: 'unparseable-object', subject: `${TASKS}/review` }),
  )
  const lint = (await ws.dacli('lint', '--json')).json
  expect(lint.findings).toContainEqual(
    expect.objectContaining({ code: 'unparseable-object', subject: `${TASKS}/review` }),
  )

  // The next number is past the hand-made task's, and its file is as the person wrote it.
  const added = (await ws.ok('task', 'add', 'three', '--project', 'alpha', '--accept', 'done', '--json')).json
  expect(added.seq).toBe(8)
  expect(ws.file(rel)).toBe(text)
  expect(fs.readdirSync(path.join(ws.root, TASKS, 'open')).sort()).toEqual(['001-one.md', '002-two.md', '008-three.md'])
})

test('a task file beside the status folders is reported and its number kept; hidden files there are not findings', async () => {
  const ws = await alphaWithTwo()
  const rel = `${TASKS}/005-loose.md`
  ws.write(rel, handTask('t-01M943MWXXMS2KPKN775Q6FKC8', 'Loose'))
  ws.write(`${TASKS}/.gitkeep`, '')

  const list = (await ws.ok('task', 'list', '--json')).json
  expect(list.skipped).toEqual([expect.objectContaining({ path: rel, code: 'unparseable-object' })])
  expect(list.skipped[0].reason).toMatch(/not in a status folder/)
  const added = (await ws.ok('task', 'add', 'three', '--project', 'alpha', '--accept', 'done', '--json')).json
  expect(added.seq).toBe(6)
})

test('a link in the tasks folder is reported as one and not followed', async () => {
  const ws = await alphaWithTwo()
  const elsewhere = path.join(ws.root, 'elsewhere')
  fs.mkdirSync(elsewhere)
  fs.writeFileSync(path.join(elsewhere, '009-outside.md'), handTask('t-01M943MWXXMS2KPKN775Q6FKC9', 'Outside'))
  fs.symlinkSync(elsewhere, path.join(ws.root, TASKS, 'review'))

  const list = (await ws.ok('task', 'list', '--json')).json
  expect(list.tasks.map((t: { seq: number }) => t.seq)).toEqual([1, 2])
  expect(list.skipped).toEqual([expect.objectContaining({ path: `${TASKS}/review`, code: 'symlink-in-workspace' })])
})

test('a workspace with only status folders and tombstones has nothing to report', async () => {
  const ws = await alphaWithTwo()
  await ws.ok('task', 'rm', 'alpha/2')
  const list = (await ws.ok('task', 'list', '--json')).json
  expect(list.skipped ?? []).toEqual([])
  const doctor = (await ws.ok('doctor', '--json')).json
  expect(doctor.findings).toEqual([])
})

test('the MCP server, asked right after a person moved a task into such a folder, reports it as the CLI does', async () => {
  const ws = await alphaWithTwo()
  const tasks = path.join(ws.root, TASKS)
  const client = await servedOverStdio(ws.root, 'stray-folder')
  const call = callerOf(client)
  const served = async () => {
    const doc = await call('list_tasks', { project: 'alpha' })
    return { seqs: doc.tasks.map((t: { seq: number }) => t.seq), skipped: doc.skipped ?? [] }
  }
  try {
    await new Promise((r) => setTimeout(r, 300))
    for (let i = 0; i < 2; i++) expect(await served()).toEqual({ seqs: [1, 2], skipped: [] })
    fs.mkdirSync(path.join(tasks, 'review'))
    fs.renameSync(path.join(tasks, 'open/002-two.md'), path.join(tasks, 'review/002-two.md'))
    await new Promise((r) => setTimeout(r, 150))
    const now = await served()
    const cli = ws.spawn(['task', 'list', '--project', 'alpha', '--json']).expectExit(0).json
    expect(now.seqs).toEqual([1])
    expect(now.skipped).toEqual(cli.skipped)
    expect(now.skipped).toEqual([expect.objectContaining({ path: `${TASKS}/review`, code: 'unparseable-object' })])
  } finally {
    await client.close()
  }
}, 30_000)

test('a task file named .MD in a status folder, or put beside the projects, is reported by lists and doctor, never passed over', async () => {
  const ws = await alphaWithTwo()
  const upper = `${TASKS}/open/003-hand-task.MD`
  const top = '.dacli/projects/006-top.md'
  ws.write(upper, handTask('t-01M943MWXXMS2KPKN775Q6FKC8', 'Upper case'))
  ws.write(top, handTask('t-01M943MWXXMS2KPKN775Q6FKC9', 'Beside the projects'))
  const list = (await ws.dacli('task', 'list', '--json')).expectExit(0).json
  expect(list.skipped.map((s: { path: string }) => s.path).sort()).toEqual([top, upper])
  const findings = (await ws.dacli('doctor', '--json')).expectExit(0).json.findings
  expect(findings.map((f: { subject: string }) => f.subject)).toEqual(expect.arrayContaining([top, upper]))
  // The number the .MD file holds is not handed out again.
  expect((await ws.dacli('task', 'add', 'next', '--project', 'alpha', '--json')).expectExit(0).json.seq).toBe(4)
})
