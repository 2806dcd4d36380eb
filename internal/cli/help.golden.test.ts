// Golden help: the root help and every command's --help, generated from the
// command table and compared exactly. Regenerate deliberately with
// UPDATE_GOLDEN=1 and review the diff (COMPATIBILITY.md: help wording carries no
// promise, but a changed flag, default or value shape should be seen).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { dacliIn, REPO_ROOT, table, tempDir } from '../testkit/ws.js'

const dir = path.join(REPO_ROOT, 'testdata', 'help')
const update = process.env.UPDATE_GOLDEN === '1'
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
    if (update) {
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(fileOf(name), r.stdout)
    }
    expect(fs.existsSync(fileOf(name)), `testdata/help/${name}.txt is missing: run UPDATE_GOLDEN=1 npm test`).toBe(true)
    expect(r.stdout).toBe(fs.readFileSync(fileOf(name), 'utf8'))
  })

  test('no stale golden files', () => {
    const expected = new Set(cases.map(([n]) => `${n}.txt`))
    const present = fs.readdirSync(dir)
    if (update) for (const f of present) if (!expected.has(f)) fs.rmSync(path.join(dir, f))
    expect(fs.readdirSync(dir).filter((f) => !expected.has(f))).toEqual([])
  })
})
