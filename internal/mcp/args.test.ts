// Arguments → argv: JSON types are checked, the stringified scalars clients commonly send are read, anything
// else is a usage error naming the argument — never a silent default.

import { describe, expect, test } from 'vitest'
import { services } from '../../cmd/services.js'
import type { CommandEntry } from '../clikit/command.js'
import { arg, optionalArg } from '../clikit/command.js'
import { bool, duration, int, oneOf, str } from '../clikit/flags.js'
import { invoke } from '../clikit/invoke.js'
import { bufferIO } from '../clikit/io.js'
import { table } from '../testkit/ws.js'
import { argvOf, checkSchemaVersion, cliArgv } from './args.js'
import { buildTool } from './schema.js'

/** A command shaped like the risky ones: a safety switch, a count, a list, a duration, a choice. */
const probe: CommandEntry = {
  path: 'probe',
  summary: 'a test double',
  args: [arg('ref', 'the task'), optionalArg('extra', 'more')],
  flags: {
    'dry-run': bool('show what would change'),
    count: int('how many', { min: 1, max: 9 }),
    tag: str('a tag', { repeatable: true }),
    lease: duration('how long'),
    mode: oneOf(['a', 'b'], 'which'),
  },
  json: 'probe/v1',
  mutates: true,
  load: async () => {
    throw new Error('never loaded in these tests')
  },
}
const tool = buildTool({ name: 'probe', path: 'probe', description: 'd' }, [probe])
const argv = (args: Record<string, unknown>) => argvOf('probe', tool.params, args)
const problem = (args: Record<string, unknown>): string => {
  try {
    argv(args)
  } catch (e) {
    return (e as Error).message
  }
  throw new Error(`accepted: ${JSON.stringify(args)}`)
}

describe('argument conversion', () => {
  test('the command line a person types: positionals, --name value (a value starting with - as --name=value), --json', () => {
    expect(argv({ ref: 'p/1', count: 3, tag: ['x', '-y'], lease: '2h', mode: 'a', dry_run: true })).toEqual([
      'p/1',
      '--dry-run',
      '--count',
      '3',
      '--tag',
      'x',
      '--tag=-y',
      '--lease',
      '2h',
      '--mode',
      'a',
      '--json',
    ])
    // A positional that starts with - goes after --, where it cannot be read as a flag.
    expect(argv({ ref: '-p/1', count: 3 })).toEqual(['--count', '3', '--json', '--', '-p/1'])
  })

  test('the stringified scalars the contract allows are read: "3" for an integer, "true"/"false" for a boolean', () => {
    expect(argv({ ref: 'r', dry_run: 'true', count: '4' })).toEqual(['r', '--dry-run', '--count', '4', '--json'])
    expect(argv({ ref: 'r', dry_run: 'false' })).toEqual(['r', '--json'])
    expect(argv({ ref: 'r', dry_run: false })).toEqual(['r', '--json'])
  })

  test('anything else is a usage error, never a default: a safety switch never reads as unset', () => {
    expect(problem({ ref: 'r', dry_run: 'maybe' })).toMatch(/dry_run must be a boolean, got a string \("maybe"\)/)
    expect(problem({ ref: 'r', dry_run: 1 })).toMatch(/dry_run must be a boolean, got a number \(1\)/)
    expect(problem({ ref: 'r', dry_run: 'yes' })).toMatch(/dry_run must be a boolean/)
    expect(problem({ ref: 'r', dry_run: 'FALSE' })).toMatch(/dry_run must be a boolean/)
    expect(problem({ ref: 'r', count: 2.5 })).toMatch(/count must be an integer, got a number \(2\.5\)/)
    expect(problem({ ref: 'r', count: '3x' })).toMatch(/count must be an integer/)
    expect(problem({ ref: 'r', lease: 7200 })).toMatch(/lease must be a duration string/)
    expect(problem({ ref: 'r', mode: ['a'] })).toMatch(/mode must be a string, got an array/)
    expect(problem({ ref: { id: 1 } })).toMatch(/ref must be a string, got an object/)
    expect(problem({ ref: true })).toMatch(/ref must be a string/)
  })

  test('strict: null for a value, a string for an array, a number for a string are each refused', () => {
    expect(problem({ ref: 'r', count: null })).toMatch(/count must be an integer, got null/)
    expect(problem({ ref: 'r', tag: 'solo' })).toMatch(/tag must be an array of strings, got a string \("solo"\)/)
    expect(problem({ ref: 7 })).toMatch(/ref must be a string, got a number \(7\)/)
    expect(problem({ ref: 'r', tag: ['x', 3] })).toMatch(/tag\[1\] must be a string, got a number \(3\)/)
  })

  test('the refusal names each field, the type it expects and what was sent (details.invalid_params)', () => {
    try {
      argv({ ref: null, count: 'x', tag: 'solo' })
      throw new Error('accepted')
    } catch (e) {
      const err = e as { kind?: string; details?: Record<string, unknown>; message: string }
      expect(err.kind).toBe('usage')
      expect(err.message).toMatch(/^probe: invalid params: /)
      expect(err.details?.invalid_params).toEqual([
        { field: 'ref', expected: 'a string', got: 'null' },
        { field: 'count', expected: 'an integer', got: 'a string ("x")' },
        { field: 'tag', expected: 'an array of strings', got: 'a string ("solo")' },
      ])
    }
  })

  test('a usage error names every problem and is exit 2', () => {
    try {
      argv({ dry_run: 'maybe', count: 'x' })
      throw new Error('accepted')
    } catch (e) {
      expect((e as Error).message).toMatch(/missing required argument\(s\): ref; dry_run .*; count /)
      expect((e as { kind?: string }).kind).toBe('usage')
    }
  })

  test('a required positional may not be empty or absent', () => {
    expect(problem({ ref: '' })).toMatch(/missing required argument\(s\): ref/)
    expect(problem({})).toMatch(/missing required argument\(s\): ref/)
    expect(argv({ ref: 'r' })).toEqual(['r', '--json'])
  })

  test('an undeclared argument is refused, with the near miss', () => {
    expect(problem({ ref: 'r', dryrun: true })).toMatch(
      /unknown argument\(s\) for probe: dryrun \(did you mean dry_run\?\)/,
    )
  })

  test('values that look like flags stay values', () => {
    expect(argv({ ref: '-h' })).toEqual(['--json', '--', '-h'])
    expect(argv({ ref: '--json', extra: '--', mode: '--x' })).toEqual(['--mode=--x', '--json', '--', '--json', '--'])
  })

  test('schema_version: 1 or "1"; anything else refused', () => {
    expect(() => checkSchemaVersion('t', { schema_version: 1 })).not.toThrow()
    expect(() => checkSchemaVersion('t', { schema_version: '1' })).not.toThrow()
    for (const v of [undefined, null, 0, 2, '2', 'x', true, [1], 1.5, '1.0', '01', '+1', '001']) {
      expect(() => checkSchemaVersion('t', { schema_version: v }), String(v)).toThrow(/schema_version/)
    }
  })

  test('cli: a non-empty list of strings', () => {
    expect(cliArgv({ argv: ['task', 'show', '3'] })).toEqual(['task', 'show', '3'])
    expect(() => cliArgv({ argv: ['task', 'show', 3] })).toThrow(/argv\[2\] must be a string, got a number \(3\)/)
    expect(() => cliArgv({ argv: [] })).toThrow(/non-empty list/)
    expect(() => cliArgv({ argv: 'task list' })).toThrow(/non-empty list/)
    expect(() => cliArgv({ argv: ['task', null] })).toThrow(/argv\[1\] must be a string, got null/)
    expect(() => cliArgv({ argv: ['x'], json: true })).toThrow(/unknown argument/)
  })
})

describe('the argv is validated by the command’s own parser', () => {
  const rt = () => ({ io: bufferIO(), env: {}, cwd: '/nonexistent', now: () => new Date(), services, table })
  const entry = (path: string) => table.find((c) => c.path === path) as CommandEntry
  const run = async (name: string, path: string, args: Record<string, unknown>) => {
    const paged = entry(path).flags.limit !== undefined ? { defaults: { limit: 5 } } : {}
    const t = buildTool({ name, path, description: 'd', ...paged }, table)
    return invoke(entry(path), argvOf(name, t.params, args), rt())
  }

  test('a range, an enum member and a duration are the parser’s errors, before any workspace is opened', async () => {
    for (const [path, args, message] of [
      ['task list', { limit: 0 }, /--limit must be in 1\.\./],
      ['task list', { status: ['closed'] }, /--status must be one of open, active, blocked, done/],
      ['task claim', { ref: '1', lease: 'soon' }, /--lease must be a duration/],
    ] as const) {
      const out = await run('t', path, args)
      expect(out.exitCode, path).toBe(2)
      expect(out.error?.message).toMatch(message)
    }
  })
})
