// The bin dispatches from manifest.gen.ts (declarations + lazy loaders) so each
// command module is imported only when it runs; the tests use the eager table.
// The two must agree exactly.

import { expect, test } from 'vitest'
import { byText } from '../base/order.js'
import { declOf } from '../clikit/command.js'
import { commands } from '../testkit/commands.js'
import { manifest } from './manifest.gen.js'

test('the manifest declares exactly the commands of the table, identically', async () => {
  // The manifest leaves the long help texts (description, examples) in the modules.
  const norm = (x: unknown) => {
    const { description: _d, examples: _e, ...rest } = JSON.parse(JSON.stringify(x))
    return rest
  }
  const fromTable = [...commands].sort((a, b) => byText(a.path, b.path)).map((c) => norm(declOf(c)))
  const fromManifest = manifest.map((c) => norm(declOf(c)))
  expect(fromManifest).toEqual(fromTable)
  for (const entry of manifest) {
    const loaded = await entry.load()
    expect(loaded.path).toBe(entry.path)
  }
})

test('no duplicate paths; no path shadows help; every command has a summary', () => {
  const paths = commands.map((c) => c.path)
  expect(new Set(paths).size).toBe(paths.length)
  for (const c of commands) {
    expect(c.summary.length).toBeGreaterThan(10)
    expect(c.path.startsWith('help ') || c.path.startsWith('-')).toBe(false)
    expect(c.path).toMatch(/^[a-z][a-z-]*( [a-z][a-z-]*)*$/)
  }
})
