// critical-path --limit in text: the chain names each task by its short reference even when it is not on the page,
// and the page says how to get the next one, as task list does.

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('critical-path --limit: short references in the chain, and the next page command', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  for (let i = 1; i <= 6; i++) {
    const dep = i === 1 ? [] : ['--depends-on', `alpha/${i - 1}`]
    await ws.ok('task', 'add', `T${i}`, '--project', 'alpha', '--accept', 'x', '--estimate', '1,2,3', '--force', ...dep)
  }
  const first = (await ws.ok('critical-path', '--limit', '2')).stdout
  expect(first).toContain('showing 1–2 of 6; next page: dacli critical-path --limit 2 --cursor 2\n')
  expect(first).toContain('critical path: alpha/1 → alpha/2 → … (4 more tasks)\n')
  const second = (await ws.ok('critical-path', '--limit', '2', '--cursor', '2')).stdout
  expect(second).toContain('showing 3–4 of 6; next page: dacli critical-path --limit 2 --cursor 4\n')
  expect(second).toContain('critical path: alpha/1 → alpha/2 → … (4 more tasks)\n')
  expect(second).not.toMatch(/t-[0-9A-Z]{26}/)
  const last = (await ws.ok('critical-path', '--limit', '2', '--cursor', '4')).stdout
  expect(last).not.toContain('next page')
  expect((await ws.ok('critical-path')).stdout).toContain(
    'critical path: alpha/1 → alpha/2 → alpha/3 → alpha/4 → alpha/5 → alpha/6\n',
  )
})

test('critical-path --format mermaid|dot --limit: a page draws its own tasks and the links between them only', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Web', '--slug', 'web')
  for (const [t, dep] of [
    ['A', []],
    ['B', ['--depends-on', 'web/1']],
    ['C', ['--depends-on', 'web/2']],
  ] as const)
    await ws.ok('task', 'add', t, '--project', 'web', '--accept', 'x', '--estimate', '1,1,1', '--force', ...dep)
  for (const format of ['mermaid', 'dot'])
    for (const page of [
      ['--limit', '1'],
      ['--limit', '1', '--cursor', '1'],
      ['--limit', '2'],
    ]) {
      const doc = (await ws.ok('critical-path', '--format', format, ...page, '--json')).json
      expect(doc.diagram).not.toContain('undefined')
    }
  const two = (await ws.ok('critical-path', '--format', 'mermaid', '--limit', '2')).stdout
  expect(two).toContain('  n1 --> n2\n')
})
