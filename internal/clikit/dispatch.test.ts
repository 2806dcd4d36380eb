import { describe, expect, test } from 'vitest'
import { dacliIn, table, tempDir } from '../testkit/ws.js'
import { guide, matchCommand } from './dispatch.js'

describe('dispatch', () => {
  test('longest path wins; leading global switches are allowed', () => {
    expect(matchCommand(table, ['task', 'list', '--json'])?.command.path).toBe('task list')
    expect(matchCommand(table, ['--json', 'task', 'list'])?.rest).toEqual(['--json'])
    expect(matchCommand(table, ['task'])).toBeNull()
  })
})

describe('suggestions from the live table (contract.md §5)', () => {
  test('a typo’d family is corrected, keeping the rest of the path', () => {
    expect(guide(table, ['tsak', 'list']).suggestions).toEqual(['dacli task list'])
    expect(guide(table, ['projet', 'show', 'x']).suggestions).toEqual(['dacli project show x'])
  })
  test('a typo’d leaf within a family', () => {
    const g = guide(table, ['task', 'lst', '--project', 'p'])
    expect(g.suggestions).toEqual(['dacli task list --project p'])
    expect(g.family).toBe('task')
  })
  test('task <ref> points to task show; show <ref> lists both reads and runs neither', () => {
    expect(guide(table, ['task', '7']).suggestions).toEqual(['dacli task show 7'])
    const s = guide(table, ['show', 'ledger/2'])
    expect(s.suggestions).toEqual(['dacli project show ledger/2', 'dacli task show ledger/2'])
    expect(s.message).toMatch(/ambiguous/)
  })
  test('nothing close: next actions point to help', () => {
    const g = guide(table, ['frobnicate'])
    expect(g.suggestions).toEqual([])
    expect(g.next).toEqual(['dacli help', 'dacli help --all'])
  })
  test('through main: exit 2, envelope under --json, family commands listed in human mode, nothing run', async () => {
    const dir = tempDir()
    const j = await dacliIn(dir, ['--json', 'frobnicate'])
    expect(j.code).toBe(2)
    expect(j.stdout).toBe('')
    expect(j.error).toMatchObject({ schema: 'error/v1', kind: 'usage', message: 'unknown command "frobnicate"' })
    const h = await dacliIn(dir, ['task', 'frob'])
    expect(h.code).toBe(2)
    expect(h.stderr).toMatch(/dacli task — \d+ commands/)
    expect(h.stderr).toMatch(/dacli: unknown command "task frob"/)
    const inc = await dacliIn(dir, ['task'])
    expect(inc.code).toBe(2)
    expect(inc.stderr).toMatch(/"task" needs a subcommand/)
  })
  test('help paths exit 0', async () => {
    const dir = tempDir()
    for (const argv of [
      [],
      ['--help'],
      ['-h'],
      ['help'],
      ['help', '--all'],
      ['help', 'task'],
      ['task', '--help'],
      ['help', 'task', 'add'],
    ]) {
      const r = await dacliIn(dir, argv)
      expect(r.code, argv.join(' ')).toBe(0)
      expect(r.stdout.length).toBeGreaterThan(50)
    }
    expect((await dacliIn(dir, ['help', 'nope'])).code).toBe(2)
  })
})
