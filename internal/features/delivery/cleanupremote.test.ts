// cleanup reads origin for merged remote task branches: an origin that does not answer is said (skipped, exit 1),
// never read as "nothing to clean"; a clone without an origin has no remote branches and is not a failure.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { git, workspace } from '../../testkit/ws.js'

test('an origin that cannot be read is reported in skipped and the human output, and cleanup exits 1', async () => {
  const ws = await workspace()
  fs.writeFileSync(path.join(ws.root, 'README.md'), 'x\n')
  git(ws.root, 'add', 'README.md')
  git(ws.root, 'commit', '-q', '-m', 'init')
  ;(await ws.dacli('cleanup', '--json')).expectExit(0)
  git(ws.root, 'remote', 'add', 'origin', path.join(ws.root, 'no-such-origin.git'))
  const r = (await ws.dacli('cleanup', '--json')).expectExit(1)
  expect(r.json).toMatchObject({ schema: 'repository-cleanup/v1', mode: 'preview' })
  expect(r.json.skipped.map((s: { source: string }) => s.source)).toContain('remote_branches')
  const human = (await ws.dacli('cleanup')).expectExit(1)
  expect(human.stdout).toContain('nothing to clean up in what could be read')
  expect(human.stdout).toMatch(/not read: remote_branches \(the remote "origin" could not be read/)
})

test('a claims remote this clone names that cannot be read is exit 1 too; one it does not name is not', async () => {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  const config = path.join(ws.root, '.dacli', 'config.yml')
  fs.appendFileSync(config, 'claims: {remote: arbiter}\n')
  const quiet = (await ws.dacli('cleanup', '--json')).expectExit(0).json
  expect(quiet.skipped.map((s: { source: string }) => s.source)).toEqual(['claims'])
  git(ws.root, 'remote', 'add', 'arbiter', path.join(ws.root, 'no-such-arbiter.git'))
  const r = (await ws.dacli('cleanup', '--json')).expectExit(1)
  expect(r.json.skipped.map((s: { source: string }) => s.source)).toEqual(['claims'])
})
