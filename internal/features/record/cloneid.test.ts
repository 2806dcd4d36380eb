// Clone identity: two clones with the same host, the same path and the same identity never both win a remote
// claim; the clone id lives in the git directory (never committed) and is shown by whoami --json.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { checkoutAt, originWithCode } from '../../testkit/coordination.js'
import { git, spawnBin, tempDir, workspace } from '../../testkit/ws.js'

test('same host, same path, same identity, two clones: one winner; the id is never committed', async () => {
  const a = await workspace()
  const remote = originWithCode(a)
  ;(await a.dacli('project', 'add', 'API', '--slug', 'api')).expectExit(0)
  ;(await a.dacli('task', 'add', 'One', '--project', 'api', '--accept', 'x')).expectExit(0)
  ;(await a.dacli('record', 'push')).expectExit(0)
  const place = path.join(tempDir('dacli-same-'), 'repo')
  const cloneAt = async () => {
    fs.mkdirSync(place)
    git(place, 'clone', '-q', remote, '.')
    const c = checkoutAt(place)
    ;(await c.dacli('record', 'pull')).expectExit(0)
    return c
  }
  // The first clone claims, then is moved away (a copied VM, a container image): a new clone takes its path.
  const first = await cloneAt()
  const id1 = (await first.dacli('whoami', '--json')).expectExit(0).json.clone
  expect(id1).toMatch(/^c-[0-9a-f]{16}$/)
  expect((await first.dacli('whoami', '--json')).json.clone).toBe(id1)
  ;(await first.dacli('task', 'claim', 'api/1', '--remote', 'origin')).expectExit(0)
  const ref = git(place, 'ls-remote', remote, 'refs/dacli/claims/*').trim().split(/\s+/)[0] as string
  expect(git(place, 'cat-file', 'commit', ref)).toContain(`clone: ${id1}`)
  fs.renameSync(place, `${place}-old`)
  const second = await cloneAt()
  const id2 = (await second.dacli('whoami', '--json')).expectExit(0).json.clone
  expect(id2).not.toBe(id1)
  // Same path, host and identity (a-root) — and the task file says a-root owns it — yet not this clone's claim.
  const r = (await second.dacli('task', 'claim', 'api/1', '--remote', 'origin', '--json')).expectExit(5)
  expect(r.error.details.holder).toMatchObject({ by: 'a-root', clone: id1 })
  // Every view says so too: the claim the remote holds was not made from this clone.
  ;(await second.dacli('claims', 'list')).expectExit(0)
  const shown = (await second.dacli('task', 'show', 'api/1', '--json')).expectExit(0).json
  expect(shown.remote_claim).toMatchObject({ by: 'a-root', this_clone: false })
  const overview = (await second.dacli('overview', '--json')).expectExit(0).json
  expect(overview.remote_claims.live).toEqual([expect.objectContaining({ by: 'a-root', this_clone: false })])
  // Racing processes from both clones: exactly one wins each round.
  ;(await a.dacli('task', 'add', 'Two', '--project', 'api', '--accept', 'y')).expectExit(0)
  ;(await a.dacli('record', 'push')).expectExit(0)
  for (const dir of [`${place}-old`, place]) (await checkoutAt(dir).dacli('record', 'pull')).expectExit(0)
  const runs = await Promise.all(
    [`${place}-old`, place].map((cwd) => spawnBin(['task', 'claim', 'api/2', '--remote', 'origin'], { cwd })),
  )
  expect(runs.map((x) => x.code).sort()).toEqual([0, 5])
  // Never committed: not in the record, not in the code.
  expect(git(place, 'ls-tree', '-r', '--name-only', 'dacli/record')).not.toContain('clone-id')
  expect(fs.existsSync(path.join(place, '.git', 'dacli-clone-id'))).toBe(true)
})
