// explain on a done task whose branch is not on trunk names how it was closed as the log tells it: only an
// `unlanded` line is an --allow-unlanded close; a hand edit (no line) and a close that landed and whose branch
// moved on since are said as such.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { git, workspace } from '../../testkit/ws.js'

test('the why of a done, unlanded task follows its log', async () => {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Shim', '--project', 'ledger', '--accept', 'x')
  await ws.ok('task', 'add', 'Ramp', '--project', 'ledger', '--accept', 'x')
  const commit = (d: string, file: string) => {
    fs.writeFileSync(path.join(d, file), 'x\n')
    git(d, 'add', file)
    git(d, 'commit', '-q', '-m', file)
  }
  const why = async (ref: string) => (await ws.dacli('explain', ref, '--json')).expectExit(0).json.next_action.why
  const work = async (ref: string, file: string) => {
    const wt = (await ws.dacli('worktree', 'add', ref, '--json')).expectExit(0).json
    const d = path.resolve(ws.root, wt.path)
    commit(d, file)
    return { branch: wt.branch as string, dir: d }
  }
  // Closed by a hand edit: the file moved to done/ with no landed or unlanded line.
  await ws.ok('task', 'claim', 'ledger/1')
  await work('ledger/1', 'a.txt')
  const dir = path.join(ws.root, '.dacli', 'projects', 'ledger', 'tasks')
  const file = (await ws.dacli('task', 'show', 'ledger/1', '--json')).expectExit(0).json.path as string
  fs.mkdirSync(path.join(dir, 'done'), { recursive: true })
  fs.renameSync(path.resolve(ws.root, file), path.join(dir, 'done', path.basename(file)))
  expect(await why('ledger/1')).not.toContain('--allow-unlanded')
  expect(await why('ledger/1')).toContain('without a landing check')
  // Closed when it had landed; the branch moved on since.
  await ws.ok('task', 'claim', 'ledger/2')
  const b = await work('ledger/2', 'b.txt')
  git(ws.root, 'merge', '-q', '--no-edit', b.branch)
  await ws.ok('task', 'check', 'ledger/2', '--all')
  await ws.ok('task', 'done', 'ledger/2')
  commit(b.dir, 'c.txt')
  const w2 = await why('ledger/2')
  expect(w2).not.toContain('--allow-unlanded')
  expect(w2).toContain('it landed when it was closed')
})
