// Text stored as a section's content must read back as that section: a heading line (level 1 or 2) or a fence
// left open would split the file's sections — an open fence swallowed the task's `## Acceptance`, so a task created
// with criteria read back with none. Such text is refused (2) and nothing is written.

import { describe, expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

describe('section text that would split the file', () => {
  test('task add/edit, note add: an open fence or a heading line is 2, nothing written; ### and closed fences pass', async () => {
    const ws = await workspace()
    await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
    await ws.ok('task', 'add', 'Base task', '--project', 'alpha', '--accept', 'ok')
    const before = ws.snapshot()
    for (const argv of [
      ['task', 'add', 'Fence trap', '--project', 'alpha', '--accept', 'tests pass', '--context', 'see:\n```'],
      ['task', 'add', 'Heading trap', '--project', 'alpha', '--accept', 'x', '--so-that', 'a\n## Acceptance\n- [x] b'],
      ['task', 'edit', 'alpha/1', '--context', '~~~\ncode'],
      ['note', 'add', 'finding', 'Odd', '--project', 'alpha', '--body', 'x\n# Title\ny'],
    ]) {
      const r = await ws.dacli(...argv, '--json')
      expect(r.code, argv.join(' ')).toBe(2)
      expect(r.stderr).toContain('cannot be stored as written')
    }
    expect(ws.snapshot()).toEqual(before)
    const text = 'a\n### Detail\n```\n## not a heading\n```\n#123 stays'
    await ws.ok('task', 'add', 'Fine task', '--project', 'alpha', '--accept', 'kept', '--context', text)
    const t = (await ws.ok('task', 'show', 'alpha/2', '--json')).json
    expect(t.sections.context).toBe(text)
    expect(t.acceptance_total).toBe(1)
  })
})
