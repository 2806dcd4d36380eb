// reconcile reads the claims remote's claim refs: one this clone names that does not answer leaves findings
// missing, not absent, so reconcile prints its document and exits 1, as cleanup does; a clone that names no such
// remote has no claim refs to miss and exits 0.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { git, workspace } from '../../testkit/ws.js'

test('a claims remote this clone names that cannot be read makes reconcile exit 1 with its document; none named is 0', async () => {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  fs.appendFileSync(path.join(ws.root, '.dacli', 'config.yml'), 'claims: {remote: arbiter}\n')
  const quiet = (await ws.dacli('reconcile', '--json')).expectExit(0).json
  expect(quiet.skipped.map((s: { source: string }) => s.source)).toContain('claims')
  git(ws.root, 'remote', 'add', 'arbiter', path.join(ws.root, 'no-such-arbiter.git'))
  const r = (await ws.dacli('reconcile', '--json')).expectExit(1)
  expect(r.json).toMatchObject({ schema: 'delivery-state/v1', dry_run: true })
  expect(r.json.skipped).toContainEqual({ source: 'claims', reason: 'the remote "arbiter" could not be read' })
  const human = (await ws.dacli('reconcile')).expectExit(1)
  expect(human.stdout).toContain('not read: claims (the remote "arbiter" could not be read)')
})

test('a clone with no remote at all: cleanup and reconcile say nothing was not read (nothing was there to read)', async () => {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  for (const cmd of ['cleanup', 'reconcile']) {
    const doc = (await ws.dacli(cmd, '--json')).expectExit(0).json
    expect(doc.skipped.filter((s: { source: string }) => s.source !== 'github')).toEqual([])
    const human = (await ws.dacli(cmd)).expectExit(0)
    expect(human.stdout).not.toContain('not read: claims')
    expect(human.stdout).not.toContain('origin')
  }
  // A claims remote config.yml names that this clone lacks is said, in the document's skipped; still exit 0.
  fs.appendFileSync(path.join(ws.root, '.dacli', 'config.yml'), 'claims: {remote: arbiter}\n')
  const named = (await ws.dacli('cleanup', '--json')).expectExit(0).json
  expect(named.skipped).toEqual([
    { source: 'claims', reason: 'no remote "arbiter" in this clone, though claims.remote names it' },
  ])
})
