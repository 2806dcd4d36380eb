// With claims arbitrated by a remote (claims.remote), another clone's claim is a ref there, not a change to the
// record: `record sync` (each round of `--watch` too) fetches the claims after syncing, so `task show` names the
// remote holder and `next` leaves the task out although its file here still reads open. Real clones, one bare remote.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { committedClones } from '../../testkit/coordination.js'

test('a claim made on the claims remote in one clone is seen by the other after its record sync', async () => {
  const { a, b } = await committedClones(async (w) => {
    fs.appendFileSync(path.join(w.root, '.dacli/config.yml'), 'claims: {remote: origin}\n')
    ;(await w.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    ;(await w.dacli('task', 'add', 'One', '--project', 'p', '--accept', 'x')).expectExit(0)
  })
  ;(await b.dacli('record', 'sync')).expectExit(0)

  const claimed = (await a.dacli('task', 'claim', 'p/1', '--json')).expectExit(0).json
  expect(claimed.details).toMatchObject({ remote: 'origin' })
  // a has not synced its record: only the claim ref on origin tells of it.
  ;(await b.dacli('record', 'sync', '--json')).expectExit(0)
  const shown = (await b.dacli('task', 'show', 'p/1', '--json')).expectExit(0).json
  expect(shown).toMatchObject({ status: 'open', owner: null, remote_claim: { by: 'a-root', remote: 'origin' } })
  const next = (await b.dacli('next', '--json')).expectExit(0).json
  expect(JSON.stringify(next)).not.toContain('p/001-one')
})
