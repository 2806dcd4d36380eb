// explain reads a done task's branch from its log; a hand-edited line naming no valid branch is the file's fault,
// not the caller's: explain still answers (exit 0) and its landing part says why it cannot tell.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { git, workspace } from '../../testkit/ws.js'

test('a landed line naming an impossible branch: explain answers, landing unknown with the reason', async () => {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Shim', '--project', 'ledger', '--accept', 'x')
  await ws.ok('task', 'check', 'ledger/1', '--all')
  await ws.ok('task', 'done', 'ledger/1')
  const file = path.resolve(ws.root, (await ws.dacli('task', 'show', 'ledger/1', '--json')).expectExit(0).json.path)
  fs.appendFileSync(file, '- 2026-12-06T06:00:00Z someone landed abc (-evil in main)\n')
  const r = (await ws.dacli('explain', 'ledger/1', '--json')).expectExit(0).json
  expect(r.landing).toMatchObject({ branch: '-evil', branch_source: 'log', landed: null })
  expect(r.landing.unknown_reason).toContain('-evil')
})
