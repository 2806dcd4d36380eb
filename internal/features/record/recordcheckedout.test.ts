// A record branch checked out in another worktree of the clone is never moved: `record` is refused (exit 1, naming
// the worktree), nothing written, no ref moved — a record commit would slide the branch under that worktree, whose
// index and files would then undo it. Reading stays allowed (checking the branch out is how one inspects it).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { dacliIn, git, tempDir, workspace } from '../../testkit/ws.js'

test('the record branch checked out in another worktree: record refused (1), nothing moved; reads still answer', async () => {
  const ws = await workspace()
  fs.writeFileSync(path.join(ws.root, 'README'), 'hi\n')
  git(ws.root, 'add', 'README')
  git(ws.root, 'commit', '-q', '-m', 'init')
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('record')
  const rec = path.join(tempDir(), 'rec')
  git(ws.root, 'worktree', 'add', '-q', rec, 'dacli/record')
  await ws.ok('task', 'add', 'Beta', '--project', 'ledger', '--accept', 'x')
  const before = ws.snapshot()
  const refs = git(ws.root, 'for-each-ref')
  const r = (await ws.dacli('record', '--json')).expectExit(1)
  expect(r.error.message).toBe(
    `the record branch dacli/record is checked out in the worktree at ${fs.realpathSync(rec)}: recording would move it under that worktree`,
  )
  expect(r.error.details).toMatchObject({ branch: 'dacli/record', worktree: fs.realpathSync(rec) })
  expect(ws.snapshot()).toEqual(before)
  expect(git(ws.root, 'for-each-ref')).toBe(refs)
  expect(git(rec, 'status', '--short')).toBe('')
  expect((await ws.ok('task', 'list', '--json')).json.tasks).toHaveLength(1)
  // Inside that worktree dacli does not run (it would record onto the branch there), and says where to go instead.
  const inside = (await dacliIn(rec, ['task', 'list', '--json'])).expectExit(1)
  expect(inside.error.message).toBe(
    'this worktree has the record branch dacli/record checked out (a copy of the record to read): dacli does not run here, since a record would move that branch under it; run dacli from the main worktree',
  )
  expect(inside.error.next_actions[0]).toBe(`cd ${ws.root}`)
  // Detached there, the branch is free again.
  git(rec, 'switch', '-q', '--detach')
  await ws.ok('record')
})
