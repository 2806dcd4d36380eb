// The queue name is the file name without .md (`.` and a name ending in .md are refused); each reference is one
// argument, so one holding whitespace is refused rather than split into words.

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('queue add: names as the help says, one reference per argument, refusals write nothing', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Write parser', '--project', 'ledger', '--accept', 'ok', '--force')
  const before = ws.snapshot()
  const dot = (await ws.dacli('queue', 'add', '.', 'ledger/1', '--json')).expectExit(2)
  expect(dot.error.message).toBe('queue name "." is ".", which names a folder, not a file')
  const md = (await ws.dacli('queue', 'add', 'q1.md', 'ledger/1', '--json')).expectExit(2)
  expect(md.error.message).toBe('queue name "q1.md" ends in .md: give the name without it (q1)')
  const spaced = (await ws.dacli('queue', 'add', 'q', 'write parser', '--json')).expectExit(2)
  expect(spaced.error.message).toBe(
    '<refs> is one reference per argument, and "write parser" holds whitespace (a reference has none)',
  )
  expect(ws.snapshot()).toEqual(before)
  const help = (await ws.ok('queue', 'add', '--help')).stdout
  expect(help).toContain('[<refs>…]  the tasks to append, in order (one per argument)')
  expect(help).not.toContain('several words are joined')
  const made = (await ws.ok('queue', 'add', 'release-1.2', 'ledger/1', 'write-parser', '--json')).json
  expect(made.added).toEqual(['ledger/001-write-parser'])
  expect(made.path).toBe('.dacli/queues/release-1.2.md')
})
