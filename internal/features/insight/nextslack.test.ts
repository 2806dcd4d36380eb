// `next` orders equal priorities by slack "when every open and active task in scope has an estimate": a blocked task
// without one, or an unsized task outside a --label filter, turned that ordering off.

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('slack orders next though a blocked task, or a task outside the label filter, has no estimate', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'N1 short', '--project', 'alpha', '--estimate', '1,1,1', '--accept', 'x', '--label', 'be')
  await ws.ok('task', 'add', 'N2 long', '--project', 'alpha', '--estimate', '5,5,5', '--accept', 'x', '--label', 'be')
  await ws.ok('task', 'add', 'N3 unsized', '--project', 'alpha', '--accept', 'x', '--force')
  const refs = async (...more: string[]) =>
    (await ws.ok('next', '--json', ...more)).json.ready.map((t: { ref: string }) => t.ref)
  // N3 open and unsized: no slack, sequence order.
  expect(await refs()).toEqual(['alpha/001-n1-short', 'alpha/002-n2-long', 'alpha/003-n3-unsized'])
  // Only the be-labelled tasks are in scope, and both are sized: the longer one has no slack, so it comes first.
  expect(await refs('--label', 'be')).toEqual(['alpha/002-n2-long', 'alpha/001-n1-short'])
  // N3 blocked: every open and active task is sized.
  await ws.ok('task', 'block', 'alpha/3', '--why', 'vendor')
  const r = await ws.dacli('next', '--json')
  expect(r.expectExit(0).json.ready.map((t: { ref: string }) => t.ref)).toEqual([
    'alpha/002-n2-long',
    'alpha/001-n1-short',
  ])
  expect(r.stderr).not.toContain('not every task in scope has an estimate')
})
