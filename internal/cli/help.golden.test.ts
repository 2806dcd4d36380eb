// Golden help: the root help and every command's --help, generated from the
// command table and compared exactly. Regenerate deliberately with
// UPDATE_GOLDEN=1 and review the diff (COMPATIBILITY.md: help wording carries no
// promise, but a changed flag, default or value shape should be seen).

import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { expectGolden, expectOnlyGoldens } from '../testkit/golden.js'
import { dacliIn, REPO_ROOT, table, tempDir } from '../testkit/ws.js'

const dir = path.join(REPO_ROOT, 'testdata', 'help')
const fileOf = (name: string) => path.join(dir, `${name}.txt`)
const cases: [string, string[]][] = [
  ['root', ['--help']],
  ['all', ['help', '--all']],
  ...table.map((c) => [c.path.replace(/ /g, '_'), [...c.path.split(' '), '--help']] as [string, string[]]),
]

describe('golden help', () => {
  const cwd = tempDir()
  test.each(cases)('%s', async (name, argv) => {
    const r = await dacliIn(cwd, argv)
    expect(r.code).toBe(0)
    expectGolden(fileOf(name), r.stdout)
  })

  test('no stale golden files', () => {
    const expected = new Set(cases.map(([n]) => `${n}.txt`))
    expectOnlyGoldens(dir, expected)
  })
})
