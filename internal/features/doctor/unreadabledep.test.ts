// A dependency on a task whose file dacli refused to read (a hand edit put a value no field takes): the dependent is
// still shown, its dependency unresolved, and doctor says to fix the file, never to drop the link to a task that is
// there. Found by an exploratory test: `task show` exited 1, and doctor's hint removed the link for good.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('a dependency whose file cannot be read: task show answers, doctor names the file and keeps the link', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'P', '--slug', 'p')
  for (const t of ['One task here', 'Two task here', 'Three target task'])
    await ws.ok('task', 'add', t, '--project', 'p', '--accept', 'a')
  await ws.ok('task', 'depend', 'p/2', '--add', 'p/3')
  const three = (await ws.ok('task', 'show', 'p/3', '--json')).json
  const file = path.join(ws.root, three.path)
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^kind: task$/m, 'kind: task\npriority: urgent'))
  const before = ws.snapshot()

  const shown = (await ws.dacli('task', 'show', 'p/2', '--json')).expectExit(0).json
  expect(shown.depends_on).toEqual([{ on: three.id, ref: null, title: null, type: 'FS', status: null }])
  expect((await ws.dacli('task', 'show', 'p/2')).expectExit(0).stdout).toContain(three.id)

  const doc = (await ws.dacli('doctor', '--json')).expectExit(0).json
  const dangling = doc.findings.filter((f: { code: string }) => f.code === 'dangling-dependency')
  expect(dangling).toHaveLength(1)
  expect(dangling[0].message).toContain(`whose file ${three.path} cannot be read`)
  expect(dangling[0].hint).toBe(`fix ${three.path} by hand; the link holds`)
  expect(doc.findings.map((f: { code: string }) => f.code)).toContain('invalid-field')
  expect(ws.snapshot()).toEqual(before)
})

test('a dependency that is no task id never names an unreadable file (one with an empty id: line)', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'P', '--slug', 'p')
  for (const t of ['One task here', 'Two task here']) await ws.ok('task', 'add', t, '--project', 'p', '--accept', 'a')
  const [one, two] = [(await ws.ok('task', 'show', 'p/1', '--json')).json, (await ws.ok('task', 'show', 'p/2', '--json')).json]
  const twoFile = path.join(ws.root, two.path)
  fs.writeFileSync(twoFile, fs.readFileSync(twoFile, 'utf8').replace(/^id: .*$/m, 'id:'))
  const oneFile = path.join(ws.root, one.path)
  fs.writeFileSync(oneFile, fs.readFileSync(oneFile, 'utf8').replace(/^kind: task$/m, 'kind: task\ndepends_on: ["..."]'))

  const doc = (await ws.dacli('doctor', '--json')).expectExit(0).json
  const dangling = doc.findings.filter((f: { code: string }) => f.code === 'dangling-dependency')
  expect(dangling).toHaveLength(1)
  expect(dangling[0].message).toBe('depends on ..., which does not resolve to one task')
  expect(dangling[0].hint).toBe('dacli task depend p/001-one-task-here --remove ...')
})
