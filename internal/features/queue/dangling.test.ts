// A queue item whose task was removed (or never existed) leaves the queue readable: show marks it, next passes over
// it, advance closes it only with --fail, doctor reports it; a file with a line that is not an item is reported by
// doctor and still deleted by rm --force; list never says there are no queues when it skipped one.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { workspace } from '../../testkit/ws.js'

const FILE = '.dacli/queues/sprint.md'

test('a removed task leaves its queue readable, marked, passed over and reported; rm --force deletes it', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  for (const t of ['Write parser', 'Write printer'])
    await ws.ok('task', 'add', t, '--project', 'ledger', '--accept', 'ok', '--force')
  await ws.ok('queue', 'add', 'sprint', 'ledger/1', 'ledger/2')
  await ws.ok('task', 'rm', 'ledger/1', '--force')
  const list = await ws.ok('queue', 'list', '--json')
  expect(list.json.skipped).toEqual([])
  expect(list.json.queues[0]).toMatchObject({ slug: 'sprint', waiting: 2, head: 'ledger/001-write-parser' })
  const shown = (await ws.ok('queue', 'show', 'sprint', '--json')).json
  expectValid(shown)
  expect(shown.items[0]).toMatchObject({ n: 1, ref: 'ledger/001-write-parser', id: null, title: null, status: null })
  expect(shown.items[0].dangling).toMatch(/removed/)
  expect(shown.items[1]).toMatchObject({ ref: 'ledger/002-write-printer', dangling: null, status: 'open' })
  expect((await ws.ok('queue', 'show', 'sprint')).stdout).toMatch(/1\. ledger\/1 {2}names no task: .*removed/)
  const next = (await ws.ok('queue', 'next', 'sprint', '--json')).json
  expectValid(next)
  expect(next.task).toMatchObject({ ref: 'ledger/002-write-printer', position: 2 })
  expect(next.skipped[0]).toMatchObject({ ref: 'ledger/001-write-parser', position: 1 })
  expect(next.skipped[0].why).toMatch(/^it names no task: .*removed/)
  const before = ws.snapshot()
  const refused = (await ws.dacli('queue', 'advance', 'sprint', '--json')).expectExit(5)
  expect(refused.stderr).toContain('names no task')
  expect(ws.snapshot()).toEqual(before)
  const doctor = await ws.dacli('doctor', '--strict', '--json')
  doctor.expectExit(1)
  expect(doctor.json.findings).toContainEqual(
    expect.objectContaining({ code: 'dangling-queue-entry', severity: 'error', subject: `${FILE}:11` }),
  )
  const failed = (await ws.ok('queue', 'advance', 'sprint', '--fail', 'task removed', '--json')).json
  expect(failed.advanced).toEqual({ ref: 'ledger/001-write-parser', turn: 'failed', reason: 'task removed' })
  expect(ws.file(FILE)).toContain('- [-] ledger/001-write-parser — task removed\n')
  const after = (await ws.dacli('doctor', '--json')).json.findings
  expect(after).toContainEqual(expect.objectContaining({ code: 'dangling-queue-entry', severity: 'warning' }))
  await ws.ok('queue', 'rm', 'sprint', '--force')
  expect(fs.existsSync(path.join(ws.root, FILE))).toBe(false)
})

test('a queue file with a line that is not an item: doctor reports it, list says so, rm needs --force', async () => {
  const ws = await workspace()
  ws.write('.dacli/queues/bad.md', '# Bad\n\n## Tasks\n\ngarbage here\n')
  const list = await ws.ok('queue', 'list')
  expect(list.stdout).not.toContain('no queues')
  expect(list.stdout).toContain('bad  cannot be read: .dacli/queues/bad.md:5:')
  const doctor = await ws.dacli('doctor', '--strict', '--json')
  doctor.expectExit(1)
  expect(doctor.json.findings).toContainEqual(
    expect.objectContaining({ code: 'unparseable-object', severity: 'error', subject: '.dacli/queues/bad.md' }),
  )
  const before = ws.snapshot()
  ;(await ws.dacli('queue', 'rm', 'bad', '--json')).expectExit(1)
  expect(ws.snapshot()).toEqual(before)
  const removed = (await ws.ok('queue', 'rm', 'bad', '--force', '--json')).json
  expectValid(removed)
  expect(removed).toMatchObject({ action: 'rm', slug: 'bad', items: [] })
  expect(fs.existsSync(path.join(ws.root, '.dacli/queues/bad.md'))).toBe(false)
})
