// A task whose worktree was removed keeps its unlanded branch in `branch:` (FORMAT.md): reconcile reads it as it
// reads a worktree's branch — a done task whose kept branch has not landed is done_not_landed, and the kept branch
// is that task's work, never a branch_without_task to delete.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { git, workspace } from '../../testkit/ws.js'

test('a kept branch (branch:) of a done task that has not landed is done_not_landed, not a branch without task', async () => {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  await ws.ok('project', 'add', 'a')
  const ref = (await ws.dacli('task', 'add', 'Fix', '--project', 'a', '--accept', 'works', '--json')).expectExit(0).json
    .ref
  await ws.ok('task', 'claim', ref)
  const dir = path.resolve(
    ws.root,
    (await ws.dacli('worktree', 'add', ref, '--branch', 'dacli/custom-fix', '--json')).expectExit(0).json.path,
  )
  fs.writeFileSync(path.join(dir, 'f.txt'), 'f\n')
  git(dir, 'add', 'f.txt')
  git(dir, 'commit', '-q', '-m', 'work on fix')
  await ws.ok('worktree', 'remove', ref, '--force')
  expect((await ws.dacli('task', 'show', ref, '--json')).expectExit(0).json.worktree).toBeNull()
  await ws.ok('task', 'check', ref, '--all')
  await ws.ok('task', 'done', ref, '--allow-unlanded')
  const r = (await ws.dacli('reconcile', '--json')).expectExit(0).json
  expect(r.findings.filter((f: { class: string }) => f.class === 'branch_without_task')).toEqual([])
  expect(r.findings).toContainEqual(expect.objectContaining({ class: 'done_not_landed', subject: ref, safe: false }))
  expect(r.findings.find((f: { class: string }) => f.class === 'done_not_landed').evidence).toContain(
    'dacli/custom-fix not on main',
  )
})
