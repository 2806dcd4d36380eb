// pr land in a clone while another clone holds the task's claim live on the remote: the close would be refused
// (5, "not closing it under them"), and a merge cannot be taken back — so the land is refused before it merges:
// exit 5, the pull request still open, trunk unmoved, the task file as it was.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { checkoutAt } from '../../testkit/coordination.js'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { git, tempDir } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

test('another clone’s live claim refuses pr land before anything is merged', async () => {
  w = await deliveryWorkspace()
  const root = w.ws.root
  const config = path.join(root, '.dacli', 'config.yml')
  fs.writeFileSync(config, `${fs.readFileSync(config, 'utf8')}claims: {remote: origin}\n`)
  const ref = await w.task('Shared work')
  const { dir, branch } = await w.worktree(ref)
  w.commit(dir, 'shared.txt', 'shared\n')
  ;(await w.ws.dacli('record', 'push')).expectExit(0)

  // Another clone of the same repository takes the task on the remote.
  const other = tempDir('dacli-clone-')
  git(other, 'clone', '-q', w.origin, '.')
  const b = checkoutAt(other)
  ;(await b.dacli('record', 'pull')).expectExit(0)
  ;(await b.dacli('task', 'claim', ref)).expectExit(0)

  ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
  const opened = (await w.run('pr', 'open', ref, '--json')).expectExit(0).json
  const main = git(w.origin, 'rev-parse', 'main').trim()
  const file = path.join(root, '.dacli', 'projects', 'alpha', 'tasks', 'open', `${ref.split('/')[1]}.md`)
  const before = fs.readFileSync(file, 'utf8')
  w.gh.resetCalls()

  const r = (await w.run('pr', 'land', ref, '--json')).expectExit(5)
  expect(r.error.message).toContain('not closing it under them')
  expect(r.error.details.remote).toBe('origin')
  expect(w.gh.writes()).toEqual([])
  expect(w.gh.pull(REPO, opened.pr.number)).toMatchObject({ state: 'open', merged: false })
  expect(git(w.origin, 'rev-parse', 'main').trim()).toBe(main)
  expect(fs.readFileSync(file, 'utf8')).toBe(before)
  expect(branch).toMatch(/^dacli\//)
})
