// `worktree remove` run from inside the worktree it would remove is refused (3) up front, as `worktree prune`
// keeps that worktree: nothing changes (the folder, the task's worktree: and the branch stay). And a dacli started
// in a folder that was deleted says so in one line (exit 1), no stack trace.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { alphaWorktree, checkoutAt } from '../../testkit/coordination.js'
import { BIN, git, tempDir } from '../../testkit/ws.js'

const NAME = 'alpha-001-first-thing'

describe('worktree remove from inside the worktree', () => {
  test('is refused (3) and changes nothing, with or without --force; from the main worktree it goes', async () => {
    const { ws, dir } = await alphaWorktree()
    fs.mkdirSync(path.join(dir, 'sub'))
    const before = ws.snapshot()
    for (const cwd of [dir, path.join(dir, 'sub')])
      for (const force of [[], ['--force']]) {
        const r = (await checkoutAt(cwd).dacli('worktree', 'remove', 'alpha/1', ...force, '--json')).expectExit(3)
        expect(r.error.message).toContain('it is the worktree this command runs in')
      }
    expect(ws.snapshot()).toEqual(before)
    expect(fs.existsSync(dir)).toBe(true)
    expect(git(ws.root, 'branch', '--list', `dacli/${NAME}`)).toContain(`dacli/${NAME}`)
    ;(await ws.dacli('worktree', 'remove', 'alpha/1')).expectExit(0)
    expect(fs.existsSync(dir)).toBe(false)
  })

  test('a dacli started in a deleted folder says so in one line, exit 1', () => {
    const gone = path.join(tempDir(), 'gone')
    fs.mkdirSync(gone)
    const r = spawnSync(
      '/bin/sh',
      ['-c', 'cd "$1" && rmdir "$1" && exec "$2" "$3" status', 'sh', gone, process.execPath, BIN],
      {
        env: { PATH: process.env.PATH, NO_COLOR: '1' },
        encoding: 'utf8',
      },
    )
    expect(r.status).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(
      'dacli: the current directory no longer exists (it was deleted): cd to an existing directory\n',
    )
  })
})
