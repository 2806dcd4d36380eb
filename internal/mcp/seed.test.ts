// The MCP tool names the compatibility policy dacli was built from promises (testdata/seed-tools.txt, its 22
// names): each is served by tools/list or listed in COMPATIBILITY.md ("Seed tools not yet shipped") with the
// work that brings it — never silently missing, never listed as missing once served.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { session } from '../testkit/mcp.js'
import { REPO_ROOT, workspace } from '../testkit/ws.js'

const seed = fs
  .readFileSync(path.join(REPO_ROOT, 'testdata', 'seed-tools.txt'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')

/** The names COMPATIBILITY.md's table under "Seed tools not yet shipped" lists. */
function notYetShipped(): string[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, 'COMPATIBILITY.md'), 'utf8')
  const at = text.indexOf('#### Seed tools not yet shipped')
  expect(at, 'COMPATIBILITY.md has the section').toBeGreaterThan(-1)
  const section = text.slice(at).split(/\n#{2,4} /)[0] ?? ''
  return [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1] as string)
}

test('the seed’s 22 tool names: each served, or listed in COMPATIBILITY.md as not yet shipped', async () => {
  expect(seed).toHaveLength(22)
  expect(new Set(seed).size).toBe(22)
  const mcp = await session((await workspace()).root)
  try {
    const served = new Set((await mcp.tools()).map((t) => t.name))
    const listed = notYetShipped()
    const missing = seed.filter((n) => !served.has(n) && !listed.includes(n))
    expect(missing, 'neither served nor listed as not yet shipped').toEqual([])
    expect(
      listed.filter((n) => served.has(n)),
      'served, yet listed as not shipped',
    ).toEqual([])
    expect(
      listed.filter((n) => !seed.includes(n)),
      'listed, yet no seed name',
    ).toEqual([])
  } finally {
    await mcp.close()
  }
})
