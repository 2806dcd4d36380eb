// `task renew` of a task whose file names this identity as owner but carries no claim (a hand edit), with
// `claims: {remote: origin}`: it asks the remote, as a new claim would — never writes a claim the remote never saw.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { type Checkout, cloneTeam, team } from '../../testkit/coordination.js'
import { workspace } from '../../testkit/ws.js'

const OPEN = '.dacli/projects/race/tasks/open'

test('renew of an owner without a claim asks claims.remote: 5 while another clone holds it, the file unchanged', async () => {
  const t = await team(await workspace(), { tasks: 2 })
  await cloneTeam(t, 2, 0)
  const [b, c] = t.clones as [Checkout, Checkout]
  ;(await b.dacli('task', 'claim', 'race/1', '--remote', 'origin', '--lease', '1h')).expectExit(0)
  const cfg = path.join(c.root, '.dacli', 'config.yml')
  fs.writeFileSync(cfg, `${fs.readFileSync(cfg, 'utf8')}claims: {remote: origin}\n`)
  for (const [n, file] of [
    [1, `${OPEN}/001-contested-1.md`],
    [2, `${OPEN}/002-contested-2.md`],
  ] as const) {
    c.write(file, c.file(file).replace('\nkind: task\n', '\nkind: task\nowner: a-root\nclaim:\n'))
    const before = c.file(file)
    const r = (await c.dacli('task', 'renew', `race/${n}`, '--lease', '1h', '--json')).expectExit(5)
    expect(r.error.details).toMatchObject({ remote: 'origin' })
    if (n === 1) expect(r.error.details.holder.workspace).toBe(path.join(b.root, '.dacli'))
    expect(c.file(file)).toBe(before)
  }
})
