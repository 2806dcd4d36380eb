// An object file is read only as itself: a link in its place is never read through, even when it appeared after the
// listing's lstat found a regular file there (the read opens with O_NOFOLLOW).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { tempDir } from '../testkit/ws.js'
import { LinkError, readText } from './fsio.js'

test('readText refuses a link where the file was (LinkError), at any size hint, and reads the file itself', () => {
  const dir = tempDir()
  const outside = path.join(dir, 'secret.txt')
  fs.writeFileSync(outside, 'not a task\n')
  const file = path.join(dir, '001-task.md')
  fs.writeFileSync(file, '# A task\n')
  expect(readText(file)).toBe('# A task\n')
  // The file swapped for a link to a regular file elsewhere, as an agent racing a listing would.
  fs.rmSync(file)
  fs.symlinkSync(outside, file)
  for (const size of [undefined, 9, 1 << 20]) expect(() => readText(file, size)).toThrow(LinkError)
})
