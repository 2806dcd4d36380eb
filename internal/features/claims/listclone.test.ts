// claims list names the clone that holds each claim by its clone id — the one `whoami --json` gives in that clone
// and the claim commit carries — so two clones with the same identity, host and path are told apart.

import * as path from 'node:path'
import { expect, test } from 'vitest'
import { type Checkout, cloneTeam, team } from '../../testkit/coordination.js'
import { expectValid } from '../../testkit/schemas.js'
import { git, workspace } from '../../testkit/ws.js'

test('each claim carries the holder’s clone id, as whoami --json gives it there', async () => {
  const t = await team(await workspace(), { tasks: 2 })
  await cloneTeam(t, 2, 0)
  const [b, c] = t.clones as [Checkout, Checkout]
  const cloneOf = async (x: Checkout) => (await x.dacli('whoami', '--json')).expectExit(0).json.clone as string
  const [bClone, cClone] = [await cloneOf(b), await cloneOf(c)]
  expect(bClone).toMatch(/^c-[0-9a-f]{16}$/)
  expect(bClone).not.toBe(cClone)
  ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin')).expectExit(0)
  const id = (await b.dacli('task', 'show', 'race/1', '--json')).json.id
  // The claim commit on the remote names b's clone.
  const msg = git(path.join(t.root, 'team.git'), 'log', '-1', '--format=%B', `refs/dacli/claims/${id}`)
  expect(msg).toContain(`clone: ${bClone}\n`)

  const seen = (await c.dacli('claims', 'list', '--json')).expectExit(0).json
  expectValid(seen)
  expect(seen.claims).toEqual([expect.objectContaining({ task: id, by: 'a-root', clone: bClone, mine: false })])
  const own = (await b.dacli('claims', 'list', '--json')).expectExit(0).json
  expect(own.claims).toEqual([expect.objectContaining({ task: id, clone: bClone, mine: true })])
  expect((await c.dacli('claims', 'list')).expectExit(0).stdout).toContain(`(${bClone})`)
})
