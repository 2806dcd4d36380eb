// `.dacli/` committed with the code: one clone closes a task (its file moves open/ → done/) and pushes; the other
// edits it by dacli and by hand in open/, commits, and `git pull`s. git cannot merge a change with a move
// (modify/delete): both files stay. That is no interrupted move — the open copy holds work the done copy lacks — so
// doctor says so, a later dacli change leaves it in place, and `record sync` merges the two field by field: the
// hand-written text and the edit reach the done task in both clones. Real clones of one bare remote; bytes on disk.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { commitStore, committedClones } from '../../testkit/coordination.js'
import { git } from '../../testkit/ws.js'

const OPEN = '.dacli/projects/p/tasks/open/001-one.md'
const DONE = '.dacli/projects/p/tasks/done/001-one.md'
const NOTE = '\n## Context\n\nWritten by hand in the second clone.\n'

test('a task moved in one clone and changed in the other, both copies left by git: kept, reported, then merged by record sync', async () => {
  const { a, b } = await committedClones(async (w) => {
    ;(await w.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    ;(await w.dacli('task', 'add', 'One', '--project', 'p', '--accept', 'x')).expectExit(0)
  })
  ;(await b.dacli('record', 'sync')).expectExit(0)

  for (const args of [['claim'], ['check', '--all'], ['done']]) {
    ;(await a.dacli('task', args[0] as string, 'p/1', ...args.slice(1))).expectExit(0)
  }
  commitStore(a, 'close p/1')
  git(a.root, 'push', '-q', 'origin', 'main')
  ;(await a.dacli('record', 'sync')).expectExit(0)

  ;(await b.dacli('task', 'edit', 'p/1', '--priority', 'must')).expectExit(0)
  fs.appendFileSync(path.join(b.root, OPEN), NOTE)
  git(b.root, 'add', '-A', '.dacli')
  git(b.root, 'commit', '-q', '-m', 'edit p/1')
  const pulled = spawnSync('git', ['pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main'], { cwd: b.root })
  expect(pulled.status).not.toBe(0) // CONFLICT (modify/delete): both files are left in the work tree
  const mine = fs.readFileSync(path.join(b.root, OPEN), 'utf8')
  expect(fs.existsSync(path.join(b.root, DONE))).toBe(true)

  const doctor = (await b.dacli('doctor', '--json')).expectExit(0).json
  expect(doctor.findings).toContainEqual(
    expect.objectContaining({ code: 'duplicate-task-file', severity: 'error', subject: OPEN }),
  )
  // A change by dacli to the listed (done) copy leaves the copy that holds someone's work where it is.
  ;(await b.dacli('task', 'edit', 'p/1', '--label', 'kept')).expectExit(0)
  expect(fs.readFileSync(path.join(b.root, OPEN), 'utf8')).toBe(mine)

  ;(await b.dacli('record', 'sync')).expectExit(0)
  expect(fs.existsSync(path.join(b.root, OPEN))).toBe(false)
  const merged = fs.readFileSync(path.join(b.root, DONE), 'utf8')
  expect(merged).toContain(NOTE.trimEnd())
  expect(merged).toMatch(/^priority: must$/m)
  expect(merged).toMatch(/^- \[x\] x$/m)
  ;(await a.dacli('record', 'sync')).expectExit(0)
  expect(fs.readFileSync(path.join(a.root, DONE), 'utf8')).toBe(merged)
})
