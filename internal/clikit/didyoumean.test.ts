import { describe, expect, it } from 'vitest'
import { closest, distanceTo } from '../base/closest.js'
import { workspace } from '../testkit/ws.js'
import { correctedCommands } from './didyoumean.js'
import { wrapLine } from './out.js'

describe('did you mean', () => {
  it('replaces the one token the caller typed: whole, as --flag=value, or inside a comma list', () => {
    expect(correctedCommands('task show', ['ledgr/2', '--json'], 'ledgr/2', ['ledger/2'])).toEqual([
      'dacli task show ledger/2 --json',
    ])
    expect(correctedCommands('task list', ['--project=ledgr'], 'ledgr', ['ledger', 'ledge'])).toEqual([
      'dacli task list --project=ledger',
      'dacli task list --project=ledge',
    ])
    expect(correctedCommands('task add', ['x y', '--depends-on', '1,ledgr/2'], 'ledgr/2', ['ledger/2'])).toEqual([
      'dacli task add "x y" --depends-on 1,ledger/2',
    ])
    expect(correctedCommands('task show', ['other'], 'ledgr/2', ['ledger/2'])).toEqual([])
  })

  it('ranks by name, prefix and title words; at most three; ties by value', () => {
    const cands = [
      { value: 'a/1', names: ['audit-writes'], title: 'Audit every write path' },
      { value: 'a/2', names: ['write-shim'], title: 'Add the ledger write shim' },
      { value: 'a/3', names: ['dashboard'], title: 'Dashboard for drift' },
      { value: 'a/4', names: ['write-docs'], title: 'Write the docs' },
      { value: 'a/5', names: ['write-tests'], title: 'Write the tests' },
    ]
    expect(closest('write-shim', cands).map((c) => c.value)[0]).toBe('a/2')
    expect(closest('dashbord', cands).map((c) => c.value)).toEqual(['a/3'])
    expect(closest('write', cands).length).toBe(3)
    expect(closest('write', cands)).toEqual(closest('write', [...cands].reverse()))
    expect(closest('zzz', cands)).toEqual([])
    expect(distanceTo('Dashboard', cands[2] as (typeof cands)[number])).toBe(0)
  })

  it('the CLI suggests the closest tasks and projects as complete command lines', async () => {
    const ws = await workspace()
    await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')
    await ws.dacli('task', 'add', 'Add the ledger write shim', '--project', 'ledger', '--accept', 'x')
    await ws.dacli('task', 'add', 'Dashboard for drift', '--project', 'ledger', '--accept', 'x')
    const byTitle = (await ws.dacli('task', 'show', 'shim', '--json')).expectExit(4)
    expect(byTitle.error.suggestions).toEqual(['dacli task show ledger/1 --json'])
    expect(byTitle.error.details.closest[0]).toMatchObject({ value: 'ledger/1', title: 'Add the ledger write shim' })
    const bySeq = (await ws.dacli('task', 'show', 'ledger/3')).expectExit(4)
    expect(bySeq.stderr).toContain('dacli task show ledger/2   # Dashboard for drift')
    const project = (await ws.dacli('task', 'show', 'ledgr/2', '--json')).expectExit(4)
    expect(project.error.suggestions).toEqual(['dacli task show ledger/2 --json'])
    const flag = (await ws.dacli('task', 'list', '--project', 'ledgr', '--json')).expectExit(4)
    expect(flag.error.suggestions).toEqual(['dacli task list --project ledger --json'])
    const jsonCase = (await ws.dacli('task', 'list', '--JSON')).expectExit(2)
    expect(jsonCase.stderr).toContain('dacli task list --json')
    const leading = (await ws.dacli('--JSON', 'task', 'list')).expectExit(2)
    expect(leading.stderr).toContain('dacli --json task list')
  })
})

describe('wrapping on a terminal', () => {
  it('wraps at spaces under the indent, keeps inner alignment, never moves a word that fits nowhere', () => {
    expect(wrapLine('  one two three four', 10)).toEqual(['  one two', '    three', '    four'])
    expect(wrapLine('a  b', 10)).toEqual(['a  b'])
    const path = `file: ${'x'.repeat(30)}`
    expect(wrapLine(path, 20)).toEqual([path])
    expect(wrapLine('key: aaa bbb ccc', 10, 5)).toEqual(['key: aaa', '     bbb', '     ccc'])
  })
})
