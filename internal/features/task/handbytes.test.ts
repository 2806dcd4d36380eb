// The bytes of a hand-written task file after a dacli edit: what the edit did not touch keeps its bytes, line ends
// and blanks included.

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

const FILE = '.dacli/projects/alpha/tasks/open/001-one.md'

test('a file mixing CRLF and LF lines keeps each line’s end after an edit', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'One', '--project', 'alpha', '--priority', 'must', '--accept', 'a')
  const lines = ws.file(FILE).split('\n')
  // CRLF on the opening line, the id, `created` and `priority`; LF elsewhere (a file touched by two editors).
  const crlf = new Set([0, 1, 3, 5])
  const mixed = lines.map((l, i) => (i === lines.length - 1 ? l : `${l}${crlf.has(i) ? '\r\n' : '\n'}`)).join('')
  ws.write(FILE, mixed)
  await ws.ok('task', 'edit', 'alpha/1', '--priority', 'should')
  const after = ws.file(FILE)
  const expected = mixed
    .replace('priority: must\r\n', 'priority: should\r\n')
    .replace('version: 1\n', 'version: 2\n')
    .replace(/\n$/, '')
  expect(after.startsWith(expected)).toBe(true)
  expect(after.slice(expected.length)).toMatch(/^\n- \S+ a-root edited priority\n$/)
})

test('a tab after an edited key’s colon stays a tab', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'One', '--project', 'alpha', '--priority', 'must', '--accept', 'a')
  const before = ws.file(FILE).replace('priority: must\n', 'priority:\tmust  # agreed with ops\n')
  ws.write(FILE, before)
  await ws.ok('task', 'edit', 'alpha/1', '--priority', 'should')
  expect(ws.file(FILE)).toContain('\npriority:\tshould  # agreed with ops\nversion: 2\n')
})

test('the comment on a key left empty stays when dacli sets a list or a map there', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'One', '--project', 'alpha', '--accept', 'a')
  ws.write(
    FILE,
    ws.file(FILE).replace('version: 1\n', 'estimate:  # after the spike\nlabels:    # none yet\nversion: 1\n'),
  )
  await ws.ok('task', 'edit', 'alpha/1', '--estimate', '1,2,4', '--label', 'ops')
  expect(ws.file(FILE)).toContain(
    '\nestimate: {optimistic: 1, probable: 2, pessimistic: 4}  # after the spike\nlabels:    # none yet\n  - ops\nversion: 2\n',
  )
})

test('a criterion added to an empty Acceptance section is written as task add writes it', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'One', '--project', 'alpha', '--accept', 'a')
  await ws.ok('task', 'add', 'Two', '--project', 'alpha')
  const TWO = '.dacli/projects/alpha/tasks/open/002-two.md'
  await ws.ok('task', 'edit', 'alpha/2', '--accept', 'a')
  const section = (text: string) => text.slice(text.indexOf('## Acceptance'), text.indexOf('## Log'))
  expect(section(ws.file(TWO))).toBe(section(ws.file(FILE)))
  expect(section(ws.file(TWO))).toBe('## Acceptance\n\n- [ ] a\n\n')
})

test('a body mixing CRLF and LF gives appended lines the line end of the lines around them', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'One', '--project', 'alpha', '--accept', 'a', '--context', 'why')
  // The context was saved by an editor writing CRLF; the Acceptance and Log sections keep LF.
  const before = ws.file(FILE).replace('## Context\n\nwhy\n', '## Context\r\n\r\nwhy\r\n')
  ws.write(FILE, before)
  await ws.ok('task', 'edit', 'alpha/1', '--accept', 'b')
  const after = ws.file(FILE)
  expect(after).toContain('## Context\r\n\r\nwhy\r\n')
  expect(after).toContain('\n## Acceptance\n\n- [ ] a\n- [ ] b\n\n## Log\n')
  expect(after).toMatch(/\n- \S+ a-root created\n- \S+ a-root edited acceptance\n$/)
})

test('an empty section of a CRLF body gets CRLF lines, its blank line included', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'One', '--project', 'alpha')
  ws.write(FILE, ws.file(FILE).replace(/\n/g, '\r\n'))
  await ws.ok('task', 'edit', 'alpha/1', '--accept', 'a')
  const after = ws.file(FILE)
  expect(after.replace(/\r\n/g, '')).not.toContain('\n')
  expect(after).toContain('\r\n## Acceptance\r\n\r\n- [ ] a\r\n\r\n## Log\r\n')
})

test('a key whose value dacli removes stays, empty, when a comment is on its line', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'One', '--project', 'alpha', '--accept', 'a', '--label', 'ops', '--milestone', 'M1')
  await ws.ok('task', 'add', 'Two', '--project', 'alpha', '--accept', 'a', '--label', 'x')
  await ws.ok('task', 'depend', 'alpha/1', '--add', 'alpha/2')
  const commented = ws
    .file(FILE)
    .replace('labels:\n', 'labels:  # team tags\n')
    .replace('milestone: M1\n', 'milestone: M1\t# agreed with PM\n')
    .replace('depends_on:\n', 'depends_on:  # upstream\n  # own line, about the items\n')
  ws.write(FILE, commented)
  await ws.ok('task', 'edit', 'alpha/1', '--remove-label', 'ops', '--clear-milestone')
  await ws.ok('task', 'depend', 'alpha/1', '--remove', 'alpha/2')
  const front = ws.file(FILE).split('\n---\n')[0] as string
  expect(front).toMatch(
    /\nlabels: {2}# team tags\nmilestone:\t# agreed with PM\nversion: 4\ndepends_on: {2}# upstream$/,
  )
  const shown = (await ws.ok('task', 'show', 'alpha/1', '--json')).json
  expect([shown.labels, shown.milestone, shown.depends_on]).toEqual([[], null, []])
  expect((await ws.ok('doctor', '--json')).json.findings).toEqual([])
  // Set again, the comment is still on the key's line.
  await ws.ok('task', 'edit', 'alpha/1', '--label', 'db')
  expect(ws.file(FILE)).toContain('\nlabels:  # team tags\n  - db\n')
})

test('a key without a comment still goes when its value is removed', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'One', '--project', 'alpha', '--accept', 'a', '--label', 'ops')
  ws.write(FILE, ws.file(FILE).replace('kind: task\n', 'kind: task  # a comment elsewhere\n'))
  await ws.ok('task', 'edit', 'alpha/1', '--remove-label', 'ops')
  expect(ws.file(FILE).split('\n---\n')[0]).not.toContain('labels')
})

test('an emptied `unverified:` kept for its comment reads as absent', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'One', '--project', 'alpha')
  await ws.ok('task', 'done', 'alpha/1', '--allow-unverified')
  const DONE = '.dacli/projects/alpha/tasks/done/001-one.md'
  ws.write(DONE, ws.file(DONE).replace('unverified: true\n', 'unverified: true  # ops said so\n'))
  await ws.ok('task', 'reopen', 'alpha/1', '--reason', 'not really')
  expect(ws.file('.dacli/projects/alpha/tasks/open/001-one.md')).toContain('\nunverified:  # ops said so\n')
  expect((await ws.ok('task', 'show', 'alpha/1', '--json')).json.unverified).toBe(false)
  expect((await ws.ok('doctor', '--json')).json.findings).toEqual([])
})

test('a criterion added to a task whose Acceptance section was deleted by hand goes before the Log', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'One', '--project', 'alpha')
  ws.write(FILE, ws.file(FILE).replace('## Acceptance\n\n\n', ''))
  await ws.ok('task', 'edit', 'alpha/1', '--accept', 'a')
  expect(ws.file(FILE)).toMatch(
    /\n# One\n\n## Acceptance\n\n- \[ \] a\n\n## Log\n\n- \S+ a-root created\n- \S+ a-root edited acceptance\n$/,
  )
})
