// A task may depend on another by two types at once (SS and FF: start together, finish together). Both used to be
// one link: task add kept the first, --add of a second type replaced the first, and --remove REF:SS took both away.

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('two typed links to one task are kept, added beside each other and removed one type at a time', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'Pour the slab', '--project', 'alpha', '--accept', 'x', '--estimate', '8,10,12')
  const p = (await ws.ok('task', 'show', 'alpha/1', '--json')).json.id
  await ws.ok(
    'task',
    'add',
    'Cure the slab',
    '--project',
    'alpha',
    '--accept',
    'x',
    '--estimate',
    '2,2,2',
    '--depends-on',
    'alpha/1:SS',
    '--depends-on',
    'alpha/1:FF',
    '--depends-on',
    'alpha/1:SS',
  )
  const q = (await ws.ok('task', 'show', 'alpha/2', '--json')).json
  expect(q.depends_on.map((d: { type: string }) => d.type)).toEqual(['SS', 'FF'])
  expect(ws.file(q.path)).toContain(`depends_on:\n  - {on: ${p}, type: SS}\n  - {on: ${p}, type: FF}\n`)

  // --remove REF:TYPE takes that type only; --add puts a type beside the others, and a repeat changes nothing.
  await ws.ok('task', 'depend', 'alpha/2', '--remove', 'alpha/1:SS')
  expect(ws.file(q.path)).toContain(`depends_on:\n  - {on: ${p}, type: FF}\n`)
  await ws.ok('task', 'depend', 'alpha/2', '--add', 'alpha/1:SS')
  expect(ws.file(q.path)).toContain(`depends_on:\n  - {on: ${p}, type: FF}\n  - {on: ${p}, type: SS}\n`)
  const before = ws.snapshot()
  expect((await ws.ok('task', 'depend', 'alpha/2', '--add', 'alpha/1:FF', '--json')).json.outcome).toBe('unchanged')
  expect(ws.snapshot()).toEqual(before)
  // The schedule reads both: Q starts with P (SS) and finishes no earlier than P (FF): ES 8, EF 10.
  const cp = (await ws.ok('critical-path', '--project', 'alpha', '--json')).json
  expect(cp.tasks.find((t: { ref: string }) => t.ref === 'alpha/002-cure-the-slab')).toMatchObject({ es: 8, ef: 10 })
  // FS holds what the others hold: adding it replaces them, and another type replaces it (a change of type).
  await ws.ok('task', 'depend', 'alpha/2', '--add', 'alpha/1')
  expect(ws.file(q.path)).toMatch(new RegExp(`depends_on:\n  - \\{on: ${p}, type: FS\\}\n[a-z]`))
  await ws.ok('task', 'depend', 'alpha/2', '--add', 'alpha/1:FF')
  expect(ws.file(q.path)).toMatch(new RegExp(`depends_on:\n  - \\{on: ${p}, type: FF\\}\n[a-z]`))
  // --remove REF without a type removes every link to it.
  await ws.ok('task', 'depend', 'alpha/2', '--add', 'alpha/1:SS')
  await ws.ok('task', 'depend', 'alpha/2', '--remove', 'alpha/1')
  expect(ws.file(q.path)).not.toContain('depends_on')
})
