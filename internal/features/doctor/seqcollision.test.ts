// Two branches that each added a task, merged by git: two files with one number. `record pull` never renumbers
// them (both are already in this checkout, and without a remote it is exit 4), so the hint is the fix by hand,
// naming the later-created task, the free number to move it to and the alias that keeps the old one resolving.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('sequence-collision: the hint names a rename that works, not record pull', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'First', '--project', 'ledger', '--accept', 'a', { now: new Date('2026-12-01T10:00:00Z') })
  await ws.ok('task', 'add', 'Second', '--project', 'ledger', '--accept', 'b', {
    now: new Date('2026-12-01T11:00:00Z'),
  })
  const dir = '.dacli/projects/ledger/tasks/open'
  fs.renameSync(path.join(ws.root, dir, '002-second.md'), path.join(ws.root, dir, '001-second.md'))
  const found = (await ws.ok('doctor', '--json')).json.findings.filter(
    (f: { code: string }) => f.code === 'sequence-collision',
  )
  expect(found).toHaveLength(1)
  expect(found[0].subject).toBe('ledger/001-second')
  expect(found[0].hint).not.toContain('record pull')
  expect(found[0].hint).toContain(`rename ${dir}/001-second.md to ${dir}/002-second.md and add 1 to its aliases`)
  // Doing what it says clears the finding; the old number still reaches the moved task (ambiguous with the other).
  fs.renameSync(path.join(ws.root, dir, '001-second.md'), path.join(ws.root, dir, '002-second.md'))
  const moved = path.join(ws.root, dir, '002-second.md')
  fs.writeFileSync(moved, fs.readFileSync(moved, 'utf8').replace('\nversion:', '\naliases: [1]\nversion:'))
  const after = (await ws.ok('doctor', '--json')).json.findings.map((f: { code: string }) => f.code)
  expect(after).not.toContain('sequence-collision')
  expect((await ws.ok('task', 'show', '2', '--json')).json.aliases).toEqual([1])
})
