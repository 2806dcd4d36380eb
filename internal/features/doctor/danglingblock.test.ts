// A task blocked by a question whose file was edited (refused) or removed waits forever: doctor says so and how to
// lift it, and `answer` names the refused file instead of saying there is no such question.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('a block on a question that is refused or gone is dangling-block; answer names the refused file (1)', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Core', '--slug', 'core')
  for (const t of ['Round the refunds', 'Audit the paths', 'Ship the release'])
    await ws.ok('task', 'add', t, '--project', 'core', '--accept', 'x')
  const q1 = (await ws.ok('ask', 'Original?', '--about', 'core/1', '--json')).json
  const q2 = (await ws.ok('ask', 'Removed?', '--about', 'core/2', '--json')).json
  const edited = path.join(ws.root, q1.path)
  fs.writeFileSync(edited, fs.readFileSync(edited, 'utf8').replace('Original?', 'Edited?'))
  fs.rmSync(path.join(ws.root, q2.path))
  const before = ws.snapshot()

  const answer = (await ws.dacli('answer', q1.id, 'x', '--json')).expectExit(1)
  expect(answer.error.message).toBe(
    `the question's file ${q1.path} cannot be used: checksum mismatch: the event was edited after it was written; it is never applied`,
  )
  expect((await ws.dacli('answer', q2.id, 'x', '--json')).expectExit(4).error.message).toBe(`no question "${q2.id}"`)

  const doc = (await ws.dacli('doctor', '--json')).expectExit(0).json
  const found = doc.findings.filter((f: { code: string }) => f.code === 'dangling-block')
  expect(found).toEqual([
    {
      code: 'dangling-block',
      severity: 'warning',
      subject: 'core/001-round-the-refunds',
      message: `blocked by ${q1.id}, whose file ${q1.path} cannot be used (checksum mismatch: the event was edited after it was written; it is never applied): nothing will unblock it`,
      hint: 'dacli task unblock core/001-round-the-refunds',
    },
    {
      code: 'dangling-block',
      severity: 'warning',
      subject: 'core/002-audit-the-paths',
      message: `blocked by ${q2.id}, which is not there (its file was removed): nothing will unblock it`,
      hint: 'dacli task unblock core/002-audit-the-paths',
    },
  ])
  expect(ws.snapshot()).toEqual(before)
  // The hint works; a task blocked by an open question is not reported.
  await ws.ok('task', 'unblock', 'core/2')
  await ws.ok('ask', 'Still open?', '--about', 'core/3')
  const after = (await ws.dacli('doctor', '--json')).json.findings.filter(
    (f: { code: string }) => f.code === 'dangling-block',
  )
  expect(after.map((f: { subject: string }) => f.subject)).toEqual(['core/001-round-the-refunds'])
})
