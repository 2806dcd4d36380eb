// A folder (or any entry that is no task file) named like a task file, taking the number a pull adds: retrying can
// never help, so `record pull` names it and exits 1 with nothing written, not 5 "the workspace kept changing".

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { originWithCode, pulledClone } from '../../testkit/coordination.js'
import { git, snapshotOf, workspace } from '../../testkit/ws.js'

const OPEN = '.dacli/projects/api/tasks/open'

test('a folder named like a task file that takes the pulled number, or sits at its path: exit 1 naming it', async () => {
  const a = await workspace()
  const remote = originWithCode(a)
  ;(await a.dacli('project', 'add', 'API', '--slug', 'api')).expectExit(0)
  ;(await a.dacli('task', 'add', 'One', '--project', 'api', '--accept', 'x')).expectExit(0)
  ;(await a.dacli('record', 'push')).expectExit(0)
  const b = await pulledClone(remote)
  ;(await a.dacli('task', 'add', 'Two', '--project', 'api', '--accept', 'y')).expectExit(0)
  ;(await a.dacli('record', 'push')).expectExit(0)
  for (const name of ['002-x.md', '002-two.md', '002-notes.txt']) {
    const stray = path.join(b.root, OPEN, name)
    if (name.endsWith('.md')) fs.mkdirSync(stray)
    else fs.writeFileSync(stray, 'notes\n')
    ;(await b.dacli('record')).expectExit(0) // a pull records local changes first: the .txt is recorded
    const tip = git(b.root, 'rev-parse', 'refs/heads/dacli/record').trim()
    const before = [...snapshotOf(b.root)].filter(([k]) => !k.includes('cache'))
    const r = (await b.dacli('record', 'pull', '--json')).expectExit(1)
    expect(r.error.details.path).toBe(stray)
    expect(r.error.message).toContain(stray)
    expect(r.error.message).toContain('nothing was merged')
    expect([...snapshotOf(b.root)].filter(([k]) => !k.includes('cache'))).toEqual(before)
    expect(git(b.root, 'rev-parse', 'refs/heads/dacli/record').trim()).toBe(tip)
    fs.rmSync(stray, { recursive: true })
    ;(await b.dacli('record')).expectExit(0)
  }
  // Out of the way, the pull brings the task.
  ;(await b.dacli('record', 'pull')).expectExit(0)
  expect(fs.existsSync(path.join(b.root, OPEN, '002-two.md'))).toBe(true)
}, 60_000)
