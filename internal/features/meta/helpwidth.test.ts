// Help on a terminal is laid out at the terminal's width (people.md: never a line wider than the terminal), once:
// laid out at 100 columns and wrapped again by the output, its descriptions came out in ragged pieces. Found by an
// exploratory test at 80 columns.

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

/** Columns a line takes (every character here is one column wide). */
const cols = (line: string) => [...line].length

test('help, a family’s help, help --all and a command’s --help fit the terminal, each description in one column', async () => {
  const ws = await workspace()
  for (const width of [40, 60, 80]) {
    const env = { COLUMNS: String(width) }
    for (const argv of [
      ['help'],
      ['task', '--help'],
      ['help', '--all'],
      ['help', 'task'],
      ['task', 'claim', '--help'],
    ]) {
      const out = (await ws.dacli(...argv, { tty: true, env })).expectExit(0).stdout
      // An example is a command to copy: left whole, never broken across lines.
      const wide = out.split('\n').filter((l) => cols(l) > width && !/^ {2}(dacli|cd) /.test(l))
      expect(wide, `${argv.join(' ')} at ${width}`).toEqual([])
    }
    // At 80 columns the two-column layout holds: a description's next line starts under its first word.
    if (width === 80) {
      const lines = (await ws.dacli('help', { tty: true, env })).stdout.split('\n')
      const i = lines.findIndex((l) => l.startsWith('  dacli overview '))
      const at = (lines[i] as string).indexOf('The first screen')
      expect(at).toBeGreaterThan(20)
      expect((lines[i + 1] as string).slice(0, at).trim()).toBe('')
      expect((lines[i + 1] as string)[at]).not.toBe(' ')
    }
  }
  // Piped, help is laid out at 100 columns as before (the golden files hold it).
  expect((await ws.dacli('help')).stdout.split('\n').some((l) => cols(l) > 80)).toBe(true)
})
