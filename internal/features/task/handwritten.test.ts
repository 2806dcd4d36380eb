// Bytes on disk after mutating commands run on files a person wrote by hand (CRLF line endings, trailing spaces,
// blank lines, an example in a code fence): each test states what the person wrote, runs one command and compares
// the bytes. Each failed before the fixes in format/markdown.ts.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { type Workspace, workspace } from '../../testkit/ws.js'

const ID = 't-01M943MWXXMS2KPKN775Q6FKC7'
const now = new Date('2026-12-01T10:00:00Z')

function crlf(s: string): string {
  return s.replace(/\r?\n/g, '\r\n')
}

function bytes(ws: Workspace, rel: string): string {
  return fs.readFileSync(path.join(ws.root, rel), 'latin1')
}

/** Every line of the file ends with CRLF (no bare LF anywhere). */
function bareLfLines(text: string): string[] {
  return text.split('\r\n').filter((l) => l.includes('\n'))
}

async function alpha(): Promise<Workspace> {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  return ws
}

const TASK = `---
id: ${ID}
kind: task
version: 3
---

# Hand written task

## Acceptance

- [ ] crit one

## Log

- 2026-11-30T10:00:00Z a-root created
`

test('task edit --title keeps the CRLF line endings of a CRLF task file', async () => {
  const ws = await alpha()
  const rel = '.dacli/projects/alpha/tasks/open/001-hand.md'
  ws.write(rel, crlf(TASK))
  ;(await ws.dacli('task', 'edit', 'alpha/1', '--title', 'New title', { now })).expectExit(0)
  const after = bytes(ws, rel)
  expect(after).toContain('\r\n# New title\r\n')
  expect(bareLfLines(after)).toEqual([])
})

test('project edit --title keeps the CRLF line endings of a hand-written project.md', async () => {
  const ws = await alpha()
  const rel = '.dacli/projects/alpha/project.md'
  const before = crlf(
    '---\nid: p-alpha\nkind: project\n# mine\nstatus: active\nstage: definition\n---\n\n# Alpha\n\n## Goal\n\nOld goal\n',
  )
  ws.write(rel, before)
  ;(await ws.dacli('project', 'edit', 'alpha', '--title', 'Alpha Two', { now })).expectExit(0)
  const after = bytes(ws, rel)
  expect(after).toBe(before.replace('# Alpha\r\n', '# Alpha Two\r\n'))
})

test('note edit --title keeps the CRLF line endings of a hand-written decision', async () => {
  const ws = await alpha()
  const r = await ws.ok('note', 'add', 'decision', 'Use X', '--project', 'alpha', '--chose', 'X', '--rejected', 'Y')
  const rel = '.dacli/projects/alpha/notes/decisions/use-x.md'
  const before = crlf(ws.file(rel))
  ws.write(rel, before)
  expect(r.code).toBe(0)
  ;(await ws.dacli('note', 'edit', 'alpha/use-x', '--title', 'Use Y', { now })).expectExit(0)
  const after = bytes(ws, rel)
  expect(bareLfLines(after)).toEqual([])
  expect(after).toBe(before.replace('# Use X\r\n', '# Use Y\r\n'))
})

test('accept ticks only real criteria, never a checkbox inside a fenced code block of ## Acceptance', async () => {
  const ws = await alpha()
  const rel = '.dacli/projects/alpha/tasks/open/001-x.md'
  const fence = '```'
  ws.write(
    rel,
    `---\nid: ${ID}\nkind: task\nversion: 1\n---\n# X\n\n## Acceptance\n\n- [ ] a\n\nExample output:\n\n${fence}\n- [ ] in code\n${fence}\n\n## Log\n`,
  )
  const shown = (await ws.dacli('task', 'show', 'alpha/1', '--json')).expectExit(0).json
  expect(shown.acceptance_total).toBe(1)
  ;(await ws.dacli('accept', 'alpha/1', { now })).expectExit(0)
  const after = ws.file('.dacli/projects/alpha/tasks/done/001-x.md')
  expect(after).toContain(`\n${fence}\n- [ ] in code\n${fence}\n`)
})

test('appending a criterion and a log line keeps the trailing spaces and blank lines a person wrote', async () => {
  const ws = await alpha()
  const rel = '.dacli/projects/alpha/tasks/open/001-x.md'
  const before = `---\nid: ${ID}\nkind: task\nversion: 1\n---\n# X\n\n## Acceptance\n\n- [ ] a  \n\n\n## Custom\n\nmine\n\n## Log\n\n- 2026-11-30T10:00:00Z a-root created, see below  \n`
  ws.write(rel, before)
  ;(await ws.dacli('task', 'edit', 'alpha/1', '--accept', 'b', { now })).expectExit(0)
  const after = ws.file(rel)
  // The person's lines keep their bytes (a markdown hard break is two trailing spaces).
  expect(after).toContain('\n- [ ] a  \n')
  expect(after).toContain('\n- 2026-11-30T10:00:00Z a-root created, see below  \n')
  expect(after).toContain('\n\n\n## Custom\n')
})

test('glossary --term keeps the CRLF line endings of a hand-written glossary', async () => {
  const ws = await alpha()
  const rel = '.dacli/projects/alpha/glossary.md'
  const before = crlf(
    '---\nid: g-alpha\nkind: note\nnote_kind: ref\n---\n\n# Glossary\n\n- **Foo** — a thing\n\nA person wrote this.\n',
  )
  fs.writeFileSync(path.join(ws.root, rel), before, 'utf8')
  ;(await ws.dacli('glossary', 'alpha', '--term', 'Bar', '--def', 'other', { now })).expectExit(0)
  const after = fs.readFileSync(path.join(ws.root, rel), 'utf8')
  expect(bareLfLines(after)).toEqual([])
  expect(after.startsWith(before.replace(/\r\n$/, ''))).toBe(true)
})

test('glossary --term with the same definition on a CRLF glossary changes nothing', async () => {
  const ws = await alpha()
  const rel = '.dacli/projects/alpha/glossary.md'
  const before = crlf('---\nid: g-alpha\nkind: note\nnote_kind: ref\n---\n\n# Glossary\n\n- **Foo** — a thing\n')
  fs.writeFileSync(path.join(ws.root, rel), before, 'utf8')
  const snap = ws.snapshot()
  const r = (await ws.dacli('glossary', 'alpha', '--term', 'Foo', '--def', 'a thing', '--json', { now })).expectExit(0)
  expect(r.json.changed).toBe(false)
  expect(ws.snapshot()).toEqual(snap)
})

test('glossary --term never overwrites a glossary whose frontmatter does not parse', async () => {
  const ws = await alpha()
  const rel = '.dacli/projects/alpha/glossary.md'
  ws.write(rel, '---\nid: g-alpha\nkind: note\nkind: twice\n---\n\n# Glossary\n\n- **Foo** — x\n')
  const snap = ws.snapshot()
  const r = await ws.dacli('glossary', 'alpha', '--term', 'Bar', '--def', 'y', { now })
  expect(r.code).toBe(1)
  expect(ws.snapshot()).toEqual(snap)
})

/** A task whose frontmatter a person wrote with comments, aligned, lists and a block map. */
const ANNOTATED = `---
id: ${ID}
kind: task
version: 3
priority: should     # agreed with Ann
labels:
  - backend   # the api side
  - urgent
depends_on:
  - alpha/001   # needs the schema
estimate:
  optimistic: 1
  probable: 2
  pessimistic: 4
touches: [src/a, src/b]   # both halves
---

# Hand written task

## Acceptance

- [ ] crit one
`

async function annotated(): Promise<{ ws: Workspace; rel: string }> {
  const ws = await alpha()
  await ws.ok('task', 'add', 'schema', '--project', 'alpha', '--accept', 'x', { now })
  await ws.ok('task', 'add', 'other', '--project', 'alpha', '--accept', 'x', { now })
  const rel = '.dacli/projects/alpha/tasks/open/003-hand.md'
  ws.write(rel, ANNOTATED)
  return { ws, rel }
}

/** The frontmatter lines of a task file. */
const front = (text: string) => text.split('---\n')[1] as string

test('task edit changes only the values it names: comments, their alignment, list and map styles stay', async () => {
  const { ws, rel } = await annotated()
  ;(
    await ws.dacli(
      'task',
      'edit',
      'alpha/3',
      '--priority',
      'must',
      '--label',
      'extra',
      '--estimate',
      '2,3,5',
      '--touches',
      'src/c',
      { now },
    )
  ).expectExit(0)
  expect(front(bytes(ws, rel))).toBe(`id: ${ID}
kind: task
version: 4
priority: must     # agreed with Ann
labels:
  - backend   # the api side
  - urgent
  - extra
depends_on:
  - alpha/001   # needs the schema
estimate:
  optimistic: 2
  probable: 3
  pessimistic: 5
touches: [src/a, src/b, src/c]   # both halves
`)
  ;(await ws.dacli('task', 'edit', 'alpha/3', '--remove-label', 'urgent', { now })).expectExit(0)
  expect(front(bytes(ws, rel))).toContain('labels:\n  - backend   # the api side\n  - extra\ndepends_on:')
})

test('task depend adds and removes one dependency, keeping the others as the person wrote them', async () => {
  const { ws, rel } = await annotated()
  ;(await ws.dacli('task', 'depend', 'alpha/3', '--add', 'alpha/2', { now })).expectExit(0)
  const after = front(bytes(ws, rel))
  expect(after).toMatch(
    /depends_on:\n {2}- alpha\/001 {3}# needs the schema\n {2}- \{on: t-[0-9A-Z]{26}, type: FS\}\nestimate:/,
  )
  const deps = (await ws.ok('task', 'show', 'alpha/3', '--json')).json.depends_on
  expect(deps.map((d: { ref: string }) => d.ref)).toEqual(['alpha/001-schema', 'alpha/002-other'])
  ;(await ws.dacli('task', 'depend', 'alpha/3', '--remove', 'alpha/2', { now })).expectExit(0)
  expect(front(bytes(ws, rel))).toContain('depends_on:\n  - alpha/001   # needs the schema\nestimate:')
})

test('task depend --remove takes away a dependency a person wrote in another reference form', async () => {
  const { ws, rel } = await annotated()
  // The file says `- alpha/001`; the task is named here by its number alone.
  ;(await ws.dacli('task', 'depend', 'alpha/3', '--remove', '1', { now })).expectExit(0)
  expect(front(bytes(ws, rel))).not.toContain('depends_on')
  expect((await ws.ok('task', 'show', 'alpha/3', '--json')).json.depends_on).toEqual([])
  // Adding it again in yet another form leaves one dependency, not two.
  ;(await ws.dacli('task', 'depend', 'alpha/3', '--add', 'alpha/001-schema', { now })).expectExit(0)
  ;(await ws.dacli('task', 'depend', 'alpha/3', '--add', 'schema:SS', { now })).expectExit(0)
  const deps = (await ws.ok('task', 'show', 'alpha/3', '--json')).json.depends_on
  expect(deps.map((d: { ref: string; type: string }) => `${d.ref}:${d.type}`)).toEqual(['alpha/001-schema:SS'])
})

test('task edit --estimate keeps the blanks before the comment of a value it changes inside a block estimate', async () => {
  const ws = await alpha()
  const rel = '.dacli/projects/alpha/tasks/open/001-hand.md'
  ws.write(
    rel,
    TASK.replace(
      'version: 3\n',
      'version: 3\nestimate:\n  optimistic: 1\n  probable: 2      # a guess\n  pessimistic: 3   # worst case\n',
    ),
  )
  ;(await ws.dacli('task', 'edit', 'alpha/1', '--estimate', '1,4,9', { now })).expectExit(0)
  expect(front(bytes(ws, rel))).toContain(
    'estimate:\n  optimistic: 1\n  probable: 4      # a guess\n  pessimistic: 9   # worst case\n',
  )
})

test('task depend --remove takes away a dependency that names no task, as doctor suggests', async () => {
  const ws = await alpha()
  const rel = '.dacli/projects/alpha/tasks/open/001-hand.md'
  ws.write(rel, TASK.replace('version: 3\n', 'version: 3\ndepends_on: [alpha/99, gone]   # stale\n'))
  const hints = (await ws.ok('doctor', '--json')).json.findings
    .filter((f: { code: string }) => f.code === 'dangling-dependency')
    .map((f: { hint: string }) => f.hint)
  expect(hints).toContain('dacli task depend alpha/001-hand --remove alpha/99')
  ;(await ws.dacli('task', 'depend', 'alpha/1', '--remove', 'alpha/99', { now })).expectExit(0)
  expect(front(bytes(ws, rel))).toContain('depends_on: [gone]   # stale\n')
  // A reference that is in no entry is still not found.
  ;(await ws.dacli('task', 'depend', 'alpha/1', '--remove', 'alpha/98', { now })).expectExit(4)
})
