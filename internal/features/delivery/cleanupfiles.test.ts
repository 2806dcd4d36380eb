// cleanup --apply-safe moves its file candidates (a dead lock, a dead temp file) into the restore artifact even when
// the same apply removes a finished worktree: making the task forget it takes the task's lock and rewrites the task
// file, and a process's first lock sweeps dead locks, a write in a folder its dead temp files. The files are moved
// before anything takes a lock, never deleted on the way, and --restore puts the same bytes back. The apply runs in
// a process of its own (the built bin), as a person runs it: in process, an earlier command has swept already.

import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { hostTagOf } from '../../base/hosttag.js'
import { finishedWorktree } from '../../testkit/deliveryws.js'
import { workspace } from '../../testkit/ws.js'

test('a dead lock and a dead temp file are moved into the artifact beside a removed worktree, and restored', async () => {
  const ws = await workspace()
  const { dir } = await finishedWorktree(ws, 'shim.txt', 'shim\n')
  const lock = '.dacli/locks/zz.lock'
  const lockText = `${JSON.stringify({
    pid: 999999,
    started: null,
    host: os.hostname(),
    token: 'x',
    time: '2026-01-01T00:00:00Z',
    scope: 'zz',
  })}\n`
  // In the folder the task file is rewritten in when the task forgets its worktree.
  const temp = `.dacli/projects/ledger/tasks/done/.001-shim.md.dacli-tmp-999999-${hostTagOf(os.hostname())}-0`
  ws.write(lock, lockText)
  ws.write(temp, 'half\n')

  const plan = ws.spawn(['cleanup', '--json']).expectExit(0).json
  const kinds = (cs: { kind: string; subject: string }[]) => cs.map((c) => `${c.kind} ${c.subject}`)
  expect(kinds(plan.candidates)).toEqual(
    expect.arrayContaining([
      'finished_worktree .dacli/worktrees/ledger-001-shim',
      `temp_file ${temp}`,
      `dead_lock ${lock}`,
    ]),
  )

  const applied = ws.spawn(['cleanup', '--apply-safe', plan.plan_id, '--json']).expectExit(0).json
  // Reported in the plan's order, every one removed.
  expect(kinds(applied.outcomes)).toEqual(kinds(plan.candidates))
  expect(applied.outcomes.every((o: { outcome: string }) => o.outcome === 'removed')).toBe(true)
  expect(fs.existsSync(dir)).toBe(false)
  // On disk: gone from where they were, the same bytes under the artifact's files/.
  expect(fs.existsSync(path.join(ws.root, lock))).toBe(false)
  expect(fs.existsSync(path.join(ws.root, temp))).toBe(false)
  expect(ws.file(`${applied.artifact}/files/${lock}`)).toBe(lockText)
  expect(ws.file(`${applied.artifact}/files/${temp}`)).toBe('half\n')

  const restored = ws.spawn(['cleanup', '--restore', path.basename(applied.artifact), '--json']).expectExit(0).json
  expect(restored.outcomes.every((o: { outcome: string }) => o.outcome === 'restored')).toBe(true)
  expect(ws.file(lock)).toBe(lockText)
  expect(ws.file(temp)).toBe('half\n')
  expect(fs.existsSync(path.join(dir, 'shim.txt'))).toBe(true)
})
