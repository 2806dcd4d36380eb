// The next-page command a paged listing prints: the command as given, --cursor moved on, ready to paste.

import { expect, test } from 'vitest'
import { shellWord } from '../base/commands.js'
import { workspace } from '../testkit/ws.js'
import { nextPageCommand } from './pageflags.js'

test('the next page repeats the command as given, drops --json and the old cursor, quotes what a shell would split', () => {
  expect(nextPageCommand('task list', ['--status', 'open', '--limit', '2'], '2')).toBe(
    'dacli task list --status open --limit 2 --cursor 2',
  )
  expect(nextPageCommand('task list', ['--cursor', '2', '--json', '--limit=2', '--cursor=9'], 4)).toBe(
    'dacli task list --limit=2 --cursor 4',
  )
  expect(nextPageCommand('search', ["it's a match", '--limit', '1'], '1')).toBe(
    `dacli search 'it'\\''s a match' --limit 1 --cursor 1`,
  )
  expect(shellWord('a$b')).toBe("'a$b'")
  expect(shellWord('')).toBe("''")
  expect(shellWord('proj/7')).toBe('proj/7')
})

test('task list prints the whole command for its next page', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['One', 'Two', 'Three']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const out = (await ws.dacli('task', 'list', '--project', 'p', '--limit', '2')).expectExit(0).stdout
  const next = /showing 1–2 of 3; next page: dacli task list --project p --limit 2 --cursor (k\.[\w-]+)/.exec(out)
  expect(next).not.toBeNull()
  const cursor = (next as RegExpExecArray)[1] as string
  const last = (await ws.dacli('task', 'list', '--project', 'p', '--limit', '2', '--cursor', cursor)).expectExit(0)
  expect(last.stdout).toContain('Three')
  expect(last.stdout).not.toContain('Two')
})
