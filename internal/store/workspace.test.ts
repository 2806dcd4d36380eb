// config.yml is read by every store a server opens (one per call): kept by its stamp, read again when it changes.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { parseDuration } from '../base/duration.js'
import { workspace } from '../testkit/ws.js'
import { readConfig } from './workspace.js'

test('config.yml is parsed again only when its stamp changed, and a change by hand is seen at the next read', async () => {
  const ws = await workspace()
  const dir = path.join(ws.root, '.dacli')
  const file = path.join(dir, 'config.yml')
  // Settled past the racy window: a file changed within it is never kept.
  await new Promise((r) => setTimeout(r, 3_100))
  const first = await readConfig(dir, parseDuration)
  expect(await readConfig(dir, parseDuration)).toBe(first)
  expect(first.wip_limit).toBeNull()
  // Shared by every call of a server: no call can change what the next is given.
  expect(() => {
    ;(first.raw as Record<string, unknown>).wip_limit = 9
  }).toThrow(TypeError)
  expect(Object.isFrozen(first)).toBe(true)
  fs.appendFileSync(file, 'wip_limit: 3\n')
  const edited = await readConfig(dir, parseDuration)
  expect(edited).not.toBe(first)
  expect(edited.wip_limit).toBe(3)
  // A value it refuses is refused at every read, whatever was kept before.
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('autorecord: false', 'autorecord: perhaps'))
  await expect(readConfig(dir, parseDuration)).rejects.toThrow(/autorecord/)
  await expect(readConfig(dir, parseDuration)).rejects.toThrow(/autorecord/)
})
