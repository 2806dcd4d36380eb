// `cleanup --restore` reads an artifact that may have been edited by hand or come from another clone: one that is
// not JSON or not an artifact's shape is refused (2) naming the file, never an internal error, and nothing moves.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('a broken or misshapen restore artifact is a usage error naming the file, and nothing changes', async () => {
  const ws = await workspace()
  ws.write('.dacli/cleanup/broken/restore.json', '{oops\n')
  ws.write('.dacli/cleanup/shapeless/restore.json', '{"schema":"dacli-cleanup-artifact/v1"}\n')
  ws.write(
    '.dacli/cleanup/badkind/restore.json',
    '{"schema":"dacli-cleanup-artifact/v1","id":"badkind","candidates":[{"kind":"rm_rf","subject":"x","sha":null,"remote":null,"branch":null,"reason":""}]}\n',
  )
  const before = ws.snapshot()
  for (const id of ['broken', 'shapeless', 'badkind']) {
    const r = (await ws.dacli('cleanup', '--restore', id, '--json')).expectExit(2)
    expect(r.error.message).toContain(`.dacli/cleanup/${id}/restore.json`)
    expect(r.error.message).not.toContain('internal error')
  }
  expect(ws.snapshot()).toEqual(before)
})

test('an artifact naming a file outside .dacli/, a foreign ref or remote is refused whole: nothing is put anywhere', async () => {
  const ws = await workspace()
  const outside = `escaped-${path.basename(ws.root)}.txt`
  const art = (subject: string, kind = 'temp_file', extra: Record<string, unknown> = {}) =>
    `${JSON.stringify({
      schema: 'dacli-cleanup-artifact/v1',
      id: 'evil',
      plan_id: 'cp-evil',
      created: '2026-12-06T00:00:00Z',
      candidates: [{ kind, subject, sha: null, remote: null, branch: null, reason: 'x', ...extra }],
      restored_at: null,
    })}\n`
  const cases = [
    art(`../${outside}`),
    art('notes.txt'),
    art('refs/heads/main', 'merged_branch', { sha: 'a'.repeat(40) }),
    art('refs/heads/dacli/alpha-001-x', 'merged_remote_branch', {
      sha: 'a'.repeat(40),
      remote: 'https://example.invalid/x.git',
    }),
    art('../elsewhere', 'finished_worktree', { sha: 'a'.repeat(40), branch: 'dacli/alpha-001-x' }),
    // A branch is passed to `git worktree add` as a word of its own: one that is an option would be read as one.
    art('.dacli/worktrees/x', 'finished_worktree', { sha: 'a'.repeat(40), branch: '--lock' }),
    art('.dacli/worktrees/x', 'finished_worktree', { sha: null, branch: '-b' }),
    art('.dacli/worktrees/x', 'finished_worktree', { sha: null, branch: null }),
  ]
  for (const text of cases) {
    ws.write('.dacli/cleanup/evil/restore.json', text)
    // what a crafted artifact would move: a file beside `files/` that `files/../<subject>` reaches
    ws.write(`.dacli/cleanup/evil/${outside}`, 'planted\n')
    ws.write('.dacli/cleanup/evil/files/notes.txt', 'planted\n')
    const before = ws.snapshot()
    const r = (await ws.dacli('cleanup', '--restore', 'evil', '--json')).expectExit(2)
    expect(r.error.message).toContain('nothing restored')
    expect(ws.snapshot()).toEqual(before)
  }
  expect(fs.existsSync(path.join(path.dirname(ws.root), outside))).toBe(false)
  expect(fs.existsSync(path.join(ws.root, 'notes.txt'))).toBe(false)
  expect(fs.existsSync(path.join(ws.root, '.dacli', 'worktrees', 'x'))).toBe(false)
})
