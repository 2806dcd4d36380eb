// The bytes on disk after the commands that write maps in flow style (claim,
// estimate, dependencies, an applied claim proposal): the map and nothing else.

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('claims, estimates and dependencies are written as flow maps with no stray keys', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'One', '--project', 'alpha', '--accept', 'a')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Two', '--project', 'alpha', '--accept', 'b')).expectExit(0)
  const now = new Date('2026-12-01T10:00:00Z')
  ;(await ws.dacli('task', 'claim', 'alpha/1', '--lease', '1h', { now })).expectExit(0)
  ;(await ws.dacli('task', 'edit', 'alpha/1', '--estimate', '1,2,4', { now })).expectExit(0)
  ;(await ws.dacli('task', 'depend', 'alpha/1', '--add', 'alpha/2', { now })).expectExit(0)
  const two = (await ws.dacli('task', 'show', 'alpha/2', '--json')).json.id
  const text = ws.file('.dacli/projects/alpha/tasks/active/001-one.md')
  expect(text).toContain(
    '\nowner: a-root\nclaim: {by: a-root, at: 2026-12-01T10:00:00Z, expires: 2026-12-01T11:00:00Z}\n',
  )
  expect(text).toContain('\nestimate: {optimistic: 1, probable: 2, pessimistic: 4}\n')
  expect(text).toContain(`\ndepends_on:\n  - {on: ${two}, type: FS}\n`)
  expect(text).not.toMatch(/flow:/)
  // A read-only identity's claim, applied by sync.
  const ro = await ws.agent('ro', 'reader')
  ;(await ws.dacli('task', 'claim', 'alpha/2', { as: ro.token })).expectExit(0)
  ;(await ws.dacli('sync', { now })).expectExit(0)
  const applied = ws.file('.dacli/projects/alpha/tasks/active/002-two.md')
  expect(applied).toMatch(new RegExp(`\\nclaim: \\{by: ${ro.id}, at: 2026-12-01T10:00:00Z, expires: [0-9TZ:-]+\\}\\n`))
  expect(applied).not.toMatch(/flow:/)
})

test('a title ending in # is written and read back whole: C# stays C#, a title ending in " #" gets a closing #', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Lang', '--slug', 'lang')).expectExit(0)
  const added = (
    await ws.dacli('task', 'add', 'Support C#', '--project', 'lang', '--accept', 'builds', '--json')
  ).expectExit(0).json
  expect(added.title).toBe('Support C#')
  const file = '.dacli/projects/lang/tasks/open/001-support-c.md'
  expect(ws.file(file)).toContain('\n# Support C#\n')
  const edited = (await ws.dacli('task', 'edit', 'lang/1', '--title', 'Port to F# and C #', '--json')).expectExit(0)
  expect(edited.json.task.title).toBe('Port to F# and C #')
  expect(ws.file(file)).toContain('\n# Port to F# and C # #\n')
  expect((await ws.dacli('task', 'show', 'lang/1', '--json')).json.title).toBe('Port to F# and C #')
  expect((await ws.dacli('task', 'list', '--json')).json.tasks[0].title).toBe('Port to F# and C #')
  expect((await ws.dacli('search', 'port', '--json')).json.results[0].title).toBe('Port to F# and C #')
  // A closing sequence a person wrote is still no part of the title.
  ws.write(file, ws.file(file).replace('# Port to F# and C # #', '# Hand written ##'))
  expect((await ws.dacli('task', 'show', 'lang/1', '--json')).json.title).toBe('Hand written')
  // Projects and notes are titled the same way.
  ;(await ws.dacli('project', 'add', 'Go to F#', '--slug', 'fsharp')).expectExit(0)
  expect(ws.file('.dacli/projects/fsharp/project.md')).toContain('\n# Go to F#\n')
  expect((await ws.dacli('project', 'show', 'fsharp', '--json')).json.title).toBe('Go to F#')
  ;(await ws.dacli('note', 'add', 'finding', 'Ranked # #', '--project', 'lang')).expectExit(0)
  const notes = (await ws.dacli('note', 'list', '--project', 'lang', '--json')).json.notes
  expect(notes.map((n: { title: string }) => n.title)).toEqual(['Ranked # #'])
})
