// Reading a task's id from raw bytes (old versions in git): only the frontmatter's own `id:` line counts.

import { describe, expect, test } from 'vitest'
import { isTaskFilePath, taskIdInText } from './rawtask.js'

const ID = 't-01KBX3Q5M7E2RJ4T8W6YVZ0N1Q'

describe('taskIdInText', () => {
  test.each([
    ['plain', `---\nid: ${ID}\nkind: task\n---\n# A\n`],
    ['quoted', `---\nid: "${ID}"\n---\n# A\n`],
    ['single-quoted, trailing blanks', `---\nkind: task\nid: '${ID}'  \n---\n`],
    ['CRLF', `---\r\nid: ${ID}\r\nkind: task\r\n---\r\n# A\r\n`],
    ['a byte-order mark', `\uFEFF---\nid: ${ID}\n---\n`],
    ['written in lower case', `---\nid: ${ID.toLowerCase()}\n---\n`],
  ])('%s', (_name, text) => {
    expect(taskIdInText(text)).toBe(ID)
  })

  test.each([
    ['no frontmatter', `id: ${ID}\n# A\n`],
    ['the id only in the body', `---\nkind: task\n---\nid: ${ID}\n`],
    ['an unclosed frontmatter', `---\nid: ${ID}\n# A\n`],
    ['a nested key', `---\nmeta:\n  id: ${ID}\n---\n`],
    ['another kind of id', '---\nid: n-01KBX3Q5M7E2RJ4T8W6YVZ0N1Q\n---\n'],
    ['empty', ''],
  ])('none: %s', (_name, text) => {
    expect(taskIdInText(text)).toBeNull()
  })
})

describe('isTaskFilePath', () => {
  test('files directly in a task folder of a project, in any workspace location', () => {
    expect(isTaskFilePath('.dacli/projects/p/tasks/open/001-a.md')).toBe(true)
    expect(isTaskFilePath('sub/.dacli/projects/p/tasks/removed/007-x.md')).toBe(true)
  })
  test('not: the project file, notes, deeper folders, other extensions, conflict copies', () => {
    for (const p of [
      '.dacli/projects/p/project.md',
      '.dacli/projects/p/notes/n.md',
      '.dacli/projects/p/tasks/open/deeper/001-a.md',
      '.dacli/projects/p/tasks/open/001-a.md.conflict-abc123',
      '.dacli/projects/p/tasks/001-a.md',
      '.dacli/agents/tasks/open/001-a.md',
    ]) {
      expect(isTaskFilePath(p), p).toBe(false)
    }
  })
})
