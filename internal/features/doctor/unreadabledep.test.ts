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
  const [one, two] = [
    (await ws.ok('task', 'show', 'p/1', '--json')).json,
    (await ws.ok('task', 'show', 'p/2', '--json')).json,
  ]
  const twoFile = path.join(ws.root, two.path)
  fs.writeFileSync(twoFile, fs.readFileSync(twoFile, 'utf8').replace(/^id: .*$/m, 'id:'))
  const oneFile = path.join(ws.root, one.path)
  fs.writeFileSync(
    oneFile,
    fs.readFileSync(oneFile, 'utf8').replace(/^kind: task$/m, 'kind: task\ndepends_on: ["..."]'),
  )

  const doc = (await ws.dacli('doctor', '--json')).expectExit(0).json
  const dangling = doc.findings.filter((f: { code: string }) => f.code === 'dangling-dependency')
  expect(dangling).toHaveLength(1)
  expect(dangling[0].message).toBe('depends on ..., which does not resolve to one task')
  expect(dangling[0].hint).toBe('dacli task depend p/001-one-task-here --remove ...')
})

test('a parent that names no task is reported (dangling-parent); one in an unreadable file names that file', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'P', '--slug', 'p')
  for (const t of ['One task here', 'Two task here', 'Three task here', 'Four task here'])
    await ws.ok('task', 'add', t, '--project', 'p', '--accept', 'a')
  const shown = await Promise.all([1, 2, 3, 4].map(async (n) => (await ws.ok('task', 'show', `p/${n}`, '--json')).json))
  const edit = (n: number, from: RegExp, to: string) => {
    const file = path.join(ws.root, shown[n - 1].path)
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(from, to))
  }
  edit(1, /^kind: task$/m, 'kind: task\nparent: t-01M99CADDTDB4VJGKZVT37ZY8Q')
  edit(2, /^kind: task$/m, `kind: task\nparent: ${shown[2].id}`)
  edit(4, /^kind: task$/m, 'kind: task\nparent: p/2') // resolves: no finding
  edit(3, /^kind: task$/m, 'kind: task\npriority: urgent')
  const before = ws.snapshot()

  const doc = (await ws.dacli('doctor', '--json')).expectExit(0).json
  const found = doc.findings.filter((f: { code: string }) => f.code === 'dangling-parent')
  expect(found).toEqual([
    {
      code: 'dangling-parent',
      severity: 'warning',
      subject: 'p/001-one-task-here',
      message: 'its parent t-01M99CADDTDB4VJGKZVT37ZY8Q does not resolve to one task',
      hint: `remove or change the parent: line of ${shown[0].path} by hand`,
    },
    {
      code: 'dangling-parent',
      severity: 'warning',
      subject: 'p/002-two-task-here',
      message: expect.stringContaining(`is in ${shown[2].path}, which cannot be read`),
      hint: `fix ${shown[2].path} by hand; the link holds`,
    },
  ])
  expect(ws.snapshot()).toEqual(before)
})
