// The history cache (.dacli/cache/history.json) is bounded: it keeps the commits and blobs used most
// recently, and what falls out is recomputed from git — the answer never changes.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { nodeSystem } from '../../../cmd/system.js'
import { openGit } from '../../adapters/git/index.js'
import { isTaskFilePath, taskIdInText } from '../../format/rawtask.js'
import { Store } from '../../store/store.js'
import { baseEnv, setAutorecord, workspace } from '../../testkit/ws.js'
import { History } from './history.js'
import { branchRef, workspacePrefix } from './record.js'

test('a bounded history cache keeps the most recent entries and answers exactly as without a cache', async () => {
  const ws = await workspace()
  setAutorecord(ws)
  ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Audit writes', '--project', 'ledger', '--accept', 'listed')).expectExit(0)
  for (const p of ['must', 'should', 'could', 'must', 'should']) {
    ;(await ws.dacli('task', 'edit', 'ledger/1', '--priority', p)).expectExit(0)
  }
  const env = baseEnv()
  const store = await Store.open(ws.root, env, () => new Date(), nodeSystem)
  const git = await openGit(ws.root, env, nodeSystem)
  const scope = [...workspacePrefix(git, store.dir), 'projects'].join('/')
  const tip = (await git.resolve(branchRef(store))) as string
  const id = (await store.readTask('ledger/1')).id
  const followed = { isFollowed: isTaskFilePath, identityOf: taskIdInText }
  const file = { file: path.join(ws.root, '.dacli', 'cache', 'history.json'), key: Buffer.alloc(32, 7) }
  const bounds = { commits: 3, blobs: 4 }

  const uncached = await new History(git, scope, null, followed).touches(tip, id)
  expect(uncached.touches.length).toBeGreaterThanOrEqual(6)

  const first = new History(git, scope, file, followed, bounds)
  expect(await first.touches(tip, id)).toEqual(uncached)
  first.save()
  // The body after the seal's line (cachekey.ts).
  const stored = () =>
    JSON.parse(fs.readFileSync(file.file, 'utf8').replace(/^.*\n/, '')) as { commits: object; ids: object }
  expect(Object.keys(stored().commits).length).toBe(3)
  expect(Object.keys(stored().ids).length).toBe(4)

  // Read back through the bounded cache: the same answer, and the file stays within its bounds.
  const again = new History(git, scope, file, followed, bounds)
  expect(await again.touches(tip, id)).toEqual(uncached)
  again.save()
  expect(Object.keys(stored().commits).length).toBeLessThanOrEqual(3)

  // A cache written with larger bounds is trimmed by the next save, even with nothing new learnt.
  const roomy = new History(git, scope, file, followed)
  await roomy.touches(tip, id)
  roomy.save()
  expect(Object.keys(stored().commits).length).toBeGreaterThan(3)
  new History(git, scope, file, followed, bounds).save()
  expect(Object.keys(stored().commits).length).toBe(3)
})
