// cleanup never takes a finished worktree that holds ignored files: `git worktree remove` deletes them, and the
// restore artifact (refs and branches) could not give them back.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { git, workspace } from '../../testkit/ws.js'

test('a done task worktree with an ignored file is not a candidate; without it, it is', async () => {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Shim', '--project', 'ledger', '--accept', 'x')
  const wt = (await ws.dacli('worktree', 'add', 'ledger/1', '--json')).expectExit(0).json
  const dir = path.resolve(ws.root, wt.path)
  fs.writeFileSync(path.join(dir, '.gitignore'), 'secret.env\n')
  git(dir, 'add', '.gitignore')
  git(dir, 'commit', '-q', '-m', 'ignore')
  git(ws.root, 'merge', '-q', '--ff-only', wt.branch)
  await ws.ok('task', 'check', 'ledger/1', '--all')
  await ws.ok('task', 'done', 'ledger/1')
  fs.writeFileSync(path.join(dir, 'secret.env'), 'TOKEN=1\n')
  const kinds = async () =>
    (await ws.dacli('cleanup', '--json')).expectExit(0).json.candidates.map((c: { kind: string }) => c.kind)
  expect(await kinds()).not.toContain('finished_worktree')
  fs.rmSync(path.join(dir, 'secret.env'))
  expect(await kinds()).toContain('finished_worktree')
})
