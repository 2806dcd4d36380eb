import { describe, expect, test } from 'vitest'
import { dacliIn, table, tempDir, workspace } from '../testkit/ws.js'
import { mayMutate } from './command.js'
import { matchCommand } from './dispatch.js'
import { parseArgv } from './flags.js'
import { guide, MAX_SHARED_LEAF } from './suggest.js'

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
  test('a typo of a read never proposes a command that writes (`tsk` is task, not ask)', () => {
    const tsk = guide(table, ['tsk'])
    expect(tsk.suggestions.join('\n')).not.toMatch(/dacli ask/)
    expect(tsk.suggestions).toContain('dacli task list')
    // Every one-edit typo of every read command and family: no top-level command that writes is offered as the
    // correction unless the typo is strictly closer to it than to anything that reads.
    const single = (c: { path: string }) => !c.path.includes(' ')
    const writes = table.filter((c) => single(c) && mayMutate(c)).map((c) => c.path)
    const reads = [
      ...table.filter((c) => single(c) && !mayMutate(c)).map((c) => c.path),
      ...new Set(table.filter((c) => !single(c)).map((c) => c.path.split(' ')[0] as string)),
    ]
    const offenders: string[] = []
    for (const word of reads) {
      for (let i = 0; i < word.length; i++) {
        const typo = word.slice(0, i) + word.slice(i + 1)
        if (typo.length < 2 || table.some((c) => c.path === typo || c.path.startsWith(`${typo} `))) continue
        for (const line of guide(table, [typo]).suggestions) {
          const path = matchCommand(table, line.split(' ').slice(1))?.command.path
          if (path !== undefined && writes.includes(path)) offenders.push(`${typo} → ${line}`)
        }
      }
    }
    expect(offenders).toEqual([])
    // A typo of a command that writes still finds it.
    expect(guide(table, ['ak', 'why?']).suggestions[0]).toMatch(/^dacli ask/)
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
  test('every suggestion is a complete command line that exists (issue 14, item 15)', () => {
    const paths = new Set(table.map((c) => c.path))
    const exists = (line: string) => {
      const words = line.split(' ').slice(1)
      return [4, 3, 2, 1].some((k) => paths.has(words.slice(0, k).join(' ')))
    }
    // A typo'd family with an object after it: the read of that object, not `dacli task ledger/1`.
    const typo = guide(table, ['tsak', 'ledger/1']).suggestions
    expect(typo[0]).toBe('dacli task show ledger/1')
    expect(typo).not.toContain('dacli task ledger/1')
    // A leaf many families share: those commands, never a family (`risk`) or an unrelated near miss first.
    const lists = guide(table, ['list']).suggestions
    expect(lists[0]).toBe('dacli task list')
    const every = table.filter((c) => / list$/.test(c.path)).map((c) => `dacli ${c.path}`)
    // As many as the answer holds (the most used first); each a `… list` command.
    expect(lists).toHaveLength(Math.min(every.length, MAX_SHARED_LEAF))
    for (const l of lists) expect(every).toContain(l)
    // A family alone: its own commands, reads first, each with its required arguments.
    const fam = guide(table, ['task'])
    expect(fam.suggestions).toHaveLength(table.filter((c) => c.path.startsWith('task ')).length)
    expect(fam.suggestions).toContain('dacli task add <title> --project SLUG')
    expect(fam.suggestions[0]).toBe('dacli task list')
    expect(fam.listing).toBe(true)
    for (const argv of [
      ['tsak', 'ledger/1'],
      ['list'],
      ['task'],
      ['tsak'],
      ['risj'],
      ['projet', 'show', 'x'],
      ['stauts'],
      ['task', 'lst'],
      ['task', 'ledger/1'],
      ['shwo', 'x'],
      ['--json'],
    ]) {
      for (const s of guide(table, argv).suggestions) expect(exists(s), `${argv.join(' ')} → ${s}`).toBe(true)
    }
  })
  test('no command at all says so (issue 14, item 19)', () => {
    const g = guide(table, ['--json'])
    expect(g.message).toBe('no command given: dacli --json needs a command after dacli (dacli help lists them)')
    expect(g.suggestions).toEqual(['dacli overview --json', 'dacli next --json', 'dacli catalog --json'])
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
    // A family of one command says so in the singular.
    const one = await dacliIn(dir, ['milestone', 'frob'])
    expect(one.stderr).toMatch(/dacli milestone — 1 command\n/)
    const inc = await dacliIn(dir, ['task'])
    expect(inc.code).toBe(2)
    expect(inc.stderr).toMatch(/"task" needs a subcommand/)
    // Human mode lists the family once (its help), not again as suggestions; --json puts them in suggestions.
    expect(inc.stderr).not.toMatch(/Suggestions:/)
    const incJ = await dacliIn(dir, ['task', '--json'])
    expect(incJ.error.suggestions).toContain('dacli task show <ref>')
    const none = await dacliIn(dir, ['--json'])
    expect(none.code).toBe(2)
    expect(none.error.message).not.toMatch(/\(none\)/)
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

/** The command a suggested line runs, and whether its tokens bind (no argument left over: not exit 2). */
function parsed(line: string): { path: string; mutates: boolean; parses: boolean } {
  const m = matchCommand(table, line.split(' ').slice(1))
  if (m === null) return { path: '', mutates: false, parses: false }
  const c = m.command
  const positionals = parseArgv(m.rest, c.flags, {}, c.params !== undefined).positionals
  return {
    path: c.path,
    mutates: mayMutate(c),
    parses: c.args.some((a) => a.rest) || positionals.length <= c.args.length,
  }
}

describe('suggestions: a read is never steered to a write, and every line parses (contract.md §4)', () => {
  test('`claim list` (for `claims list`) is offered `claims list` only, never `task claim list`', () => {
    const g = guide(table, ['claim', 'list', '--json'])
    expect(g.suggestions).toEqual(['dacli claims list'])
    // A write's own word with an object still finds the write.
    expect(guide(table, ['claim', 'alpha/1']).suggestions).toEqual(['dacli task claim alpha/1'])
    // Within a family too, a write is offered only when strictly closer than every read: `blog` is one edit from
    // both `log` and `block`.
    expect(guide(table, ['task', 'blog', 'alpha/1']).suggestions).toEqual(['dacli task log alpha/1'])
    expect(guide(table, ['task', 'blok', 'alpha/1']).suggestions).toEqual([
      'dacli task block alpha/1',
      'dacli task log alpha/1',
    ])
  })

  test('every write leaf followed by a read word: no suggestion writes', () => {
    const last = (p: string) => p.slice(p.lastIndexOf(' ') + 1)
    const writes = new Set(table.filter(mayMutate).map((c) => last(c.path)))
    const reads = new Set(table.filter((c) => !mayMutate(c) && !writes.has(last(c.path))).map((c) => last(c.path)))
    const offenders: string[] = []
    for (const w of writes) {
      if (table.some((c) => c.path === w || c.path.startsWith(`${w} `))) continue
      for (const r of [...reads, 'get']) {
        for (const s of guide(table, [w, r]).suggestions) if (parsed(s).mutates) offenders.push(`${w} ${r} → ${s}`)
      }
    }
    expect(offenders).toEqual([])
  })

  test('an unknown word before an object is replaced by show, not kept as its argument', () => {
    expect(guide(table, ['task', 'history', 'ledger/1']).suggestions).toEqual(['dacli task show ledger/1'])
    expect(guide(table, ['tsak', 'history', 'ledger/1']).suggestions).toEqual(['dacli task show ledger/1'])
    expect(guide(table, ['task', 'ledger/1']).suggestions).toEqual(['dacli task show ledger/1'])
  })

  test('every suggestion for a wrong word in every family, with an object or two after it, parses', () => {
    const fams = [...new Set(table.filter((c) => c.path.includes(' ')).map((c) => c.path.split(' ')[0] as string))]
    const bad: string[] = []
    for (const f of fams) {
      for (const argv of [
        [f, 'history', 'ledger/1'],
        [f, 'history', 'ledger/1', 'ledger/2'],
        [`${f}x`, 'history', 'ledger/1'],
        [f, 'ledger/1', 'ledger/2'],
        ['claim', 'list', 'ledger/1'],
        ['list', 'ledger/1'],
      ]) {
        const g = guide(table, argv)
        if (g.listing) continue
        for (const s of g.suggestions) if (!parsed(s).parses) bad.push(`${argv.join(' ')} → ${s}`)
      }
    }
    expect(bad).toEqual([])
  })

  test('through main: the suggestions are what they say, and the one for `task history` runs', async () => {
    const ws = await workspace()
    await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
    await ws.ok('task', 'add', 'First', '--project', 'ledger')
    const before = ws.snapshot()
    const claim = await ws.dacli('claim', 'list', '--json')
    expect(claim.code).toBe(2)
    expect(claim.error.suggestions).toEqual(['dacli claims list'])
    const history = await ws.dacli('task', 'history', 'ledger/1', '--json')
    expect(history.code).toBe(2)
    expect(history.error.suggestions).toEqual(['dacli task show ledger/1'])
    expect(ws.snapshot()).toEqual(before)
    const shown = await ws.dacli(...(history.error.suggestions[0] as string).split(' ').slice(1), '--json')
    expect(shown.code).toBe(0)
    expect(shown.json).toMatchObject({ schema: 'task/v1', title: 'First' })
  })
})
