// A task file a person edited in one clone (no version bump) and dacli edited in another: after `record pull`
// merges them, its version is greater than either side's, so an `--if-version` of what one side read never
// matches the merged content.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { originWithCode, pulledClone } from '../../testkit/coordination.js'
import { workspace } from '../../testkit/ws.js'

const ONE = '.dacli/projects/api/tasks/open/001-one.md'

test('a hand edit merged with a dacli edit: the merged version is one more than both sides', async () => {
  const a = await workspace()
  const remote = originWithCode(a)
  ;(await a.dacli('project', 'add', 'API', '--slug', 'api')).expectExit(0)
  ;(await a.dacli('task', 'add', 'One', '--project', 'api', '--accept', 'x')).expectExit(0)
  ;(await a.dacli('record', 'push')).expectExit(0)
  const b = await pulledClone(remote)
  // a: a dacli edit (version 1 → 2); b: a person adds a key by hand and leaves version alone.
  ;(await a.dacli('task', 'edit', 'api/1', '--priority', 'must')).expectExit(0)
  const read = (await a.dacli('task', 'show', 'api/1', '--json')).expectExit(0).json.version as number
  ;(await a.dacli('record', 'push')).expectExit(0)
  const file = path.join(b.root, ONE)
  const hand = fs.readFileSync(file, 'utf8').replace('kind: task\n', 'kind: task\nreviewer: carol # by hand\n')
  fs.writeFileSync(file, hand)
  const handVersion = Number(/^version: (\d+)$/m.exec(hand)?.[1])
  ;(await b.dacli('record', 'pull')).expectExit(0)
  const merged = fs.readFileSync(file, 'utf8')
  expect(merged).toContain('reviewer: carol # by hand')
  expect(merged).toContain('priority: must')
  expect(Number(/^version: (\d+)$/m.exec(merged)?.[1])).toBe(Math.max(read, handVersion) + 1)
  // What a's caller read (version `read`, no reviewer) no longer matches in b: a stale write is refused.
  ;(await b.dacli('task', 'edit', 'api/1', '--priority', 'could', '--if-version', String(read))).expectExit(5)
  // Back in a, the same number is refused too once the merge arrives.
  ;(await b.dacli('record', 'push')).expectExit(0)
  ;(await a.dacli('record', 'pull')).expectExit(0)
  ;(await a.dacli('task', 'edit', 'api/1', '--priority', 'could', '--if-version', String(read))).expectExit(5)
}, 60_000)
