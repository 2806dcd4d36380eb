// A merge decision about a part of a task's body (its title, a section) answered with a value of the answerer's own:
// the value is the new title or the section's new text, written under the heading the part has, and nothing else in
// the body changes. Two real clones of one bare remote; the task file's bytes read on disk.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { committedClones } from '../../testkit/coordination.js'

const FILE = '.dacli/projects/p/tasks/blocked/001-one.md'

async function decision(edit: (w: string) => string[], a: string[], b: string[]) {
  const { a: wa, b: wb } = await committedClones(async (w) => {
    ;(await w.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    ;(await w.dacli('task', 'add', 'One', '--project', 'p', '--accept', 'x', '--context', 'As it was.')).expectExit(0)
  })
  ;(await wa.dacli(...edit('a'), ...a)).expectExit(0)
  ;(await wa.dacli('record', 'sync')).expectExit(0)
  ;(await wb.dacli(...edit('b'), ...b)).expectExit(0)
  const r = (await wb.dacli('record', 'sync', '--json')).expectExit(5)
  const [d] = r.error.details.decisions
  return { b: wb, d, read: () => fs.readFileSync(path.join(wb.root, FILE), 'utf8') }
}

test('a title decided by a title of the answerer’s own: the heading line alone is replaced', async () => {
  const { b, d, read } = await decision(() => ['task', 'edit', 'p/1', '--title'], ['From A'], ['From B'])
  expect(d.field).toBe('title')
  const before = read()
  ;(await b.dacli('answer', d.question, 'From C#')).expectExit(0)
  const after = fs.readFileSync(path.join(b.root, '.dacli/projects/p/tasks/open/001-one.md'), 'utf8')
  expect((await b.dacli('task', 'show', 'p/1', '--json')).expectExit(0).json.title).toBe('From C#')
  // Only the title line changed in the body (and the frontmatter's status and version, and the log's new lines).
  const body = (t: string) => t.slice(t.indexOf('\n---\n') + 5).replace(/\n## Log[\s\S]*$/, '')
  expect(body(after)).toBe(body(before).replace(/^# .*$/m, '# From C#'))
})

test('a section decided by text of the answerer’s own: the section keeps its heading, the text is the answer', async () => {
  const { b, d } = await decision(() => ['task', 'edit', 'p/1', '--context'], ['From A.'], ['From B.'])
  expect(d.field).toBe('section:Context')
  ;(await b.dacli('answer', d.question, 'From C, after talking it over.')).expectExit(0)
  const shown = (await b.dacli('task', 'show', 'p/1', '--json')).expectExit(0).json
  expect(shown.sections.context).toBe('From C, after talking it over.')
  expect(shown.title).toBe('One')
  expect(shown.acceptance.map((x: { text: string }) => x.text)).toEqual(['x'])
})
