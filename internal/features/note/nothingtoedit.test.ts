// An edit given nothing to change is a usage error (2) that names what it takes: every flag that changes
// something, not a subset (`note edit` left out --clear-about; `task edit` --remove-touches, --remove-label and
// --clear-milestone), so a caller never has to read the help to find the one it needed.

import { expect, test } from 'vitest'
import { table, workspace } from '../../testkit/ws.js'

test('nothing to edit: the message names every flag of the command that changes something', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'P', '--slug', 'p')
  await ws.ok('task', 'add', 'Do it', '--project', 'p', '--accept', 'x')
  await ws.ok('note', 'add', 'decision', 'Use a shim', '--project', 'p', '--rejected', 'rewrite', '--because', 'seam')
  await ws.ok('risk', 'add', 'Batch races', '--project', 'p', '--impact', 'high', '--likelihood', 'medium')
  const cases: [string, string][] = [
    ['task edit', 'p/1'],
    ['note edit', 'p/use-a-shim'],
    ['risk edit', 'p/batch-races'],
    ['project edit', 'p'],
  ]
  for (const [path, ref] of cases) {
    const entry = table.find((c) => c.path === path)
    const changing = Object.keys(entry?.flags ?? {}).filter((f) => f !== 'if-version')
    expect(changing.length).toBeGreaterThan(0)
    const r = (await ws.dacli(...path.split(' '), ref, '--json')).expectExit(2)
    expect(r.error.message).toContain('nothing to edit')
    for (const f of changing) expect(r.error.message, `${path}: --${f}`).toMatch(new RegExp(`--${f}\\b(?!-)`))
  }
})
