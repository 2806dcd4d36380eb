import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { formatDuration, parseDuration } from '../base/duration.js'
import { REPO_ROOT } from '../testkit/ws.js'
import { bool, type FlagSpecs, int, oneOf, parseArgv, str } from './flags.js'

const specs: FlagSpecs = {
  name: str('a value flag'),
  tag: str('a repeatable value flag', { repeatable: true }),
  count: int('an integer'),
  level: oneOf(['low', 'high'], 'an enum'),
  'dry-run': bool('a switch'),
  all: bool('another switch'),
}

describe('the documented forms (contract.md §2)', () => {
  test('--key value and --key=value', () => {
    expect(parseArgv(['--name', 'x'], specs).flags.name).toBe('x')
    expect(parseArgv(['--name=x'], specs).flags.name).toBe('x')
    expect(parseArgv(['--name='], specs).flags.name).toBe('')
  })

  test('a value starting with a dash only through = or the -- escape', () => {
    expect(parseArgv(['--name=-x'], specs).flags.name).toBe('-x')
    expect(parseArgv(['--name', '--', '-x'], specs).flags.name).toBe('-x')
    expect(parseArgv(['--name', '--', '--all'], specs).flags.name).toBe('--all')
    const bad = parseArgv(['--name', '-x'], specs)
    expect(bad.flags.name).toBeUndefined()
    expect(bad.problems[0]).toMatch(/--name requires a value/)
    expect(bad.positionals).toEqual(['-x'])
  })

  test('a boolean never consumes the next token', () => {
    const r = parseArgv(['--dry-run', '001'], specs)
    expect(r.flags['dry-run']).toBe(true)
    expect(r.positionals).toEqual(['001'])
    expect(parseArgv(['--dry-run=false'], specs).flags['dry-run']).toBe(false)
    expect(parseArgv(['--dry-run=true'], specs).flags['dry-run']).toBe(true)
    expect(parseArgv(['--dry-run=maybe'], specs).problems[0]).toMatch(/switch/)
    // The escape never gives a boolean a value: `--` then ends flag parsing.
    const esc = parseArgv(['--dry-run', '--', 'x'], specs)
    expect(esc.flags['dry-run']).toBe(true)
    expect(esc.positionals).toEqual(['x'])
  })

  test('a switch with an optional value (inlineArg): --name=VALUE gives VALUE as the next positional', () => {
    const sp: FlagSpecs = { compat: bool('a switch taking an optional PATH', { inlineArg: true }) }
    const r = parseArgv(['--compat=p.json', 'x'], sp)
    expect(r.flags.compat).toBe(true)
    expect(r.positionals).toEqual(['p.json', 'x'])
    expect(r.problems).toEqual([])
    expect(parseArgv(['--compat=false'], sp).flags.compat).toBe(false)
    expect(parseArgv(['--compat=false'], sp).positionals).toEqual([])
  })

  test('a bare -- ends flag parsing', () => {
    const r = parseArgv(['a', '--', '--all', '--name', 'x', '-h'], specs)
    expect(r.positionals).toEqual(['a', '--all', '--name', 'x', '-h'])
    expect(r.flags.all).toBeUndefined()
    expect(r.help).toBe(false)
  })

  test('repeatable flags collect in order; a repeated single flag with different values is refused', () => {
    expect(parseArgv(['--tag', 'a', '--tag=b', '--tag', '--', '-c'], specs).flags.tag).toEqual(['a', 'b', '-c'])
    expect(parseArgv(['--name', 'a', '--name', 'b'], specs).problems[0]).toMatch(/given 2 times/)
    expect(parseArgv(['--name', 'a', '--name', 'a'], specs).flags.name).toBe('a')
  })

  test('-h is the only short flag; other dash tokens are positionals', () => {
    expect(parseArgv(['-h'], specs).help).toBe(true)
    expect(parseArgv(['--help'], specs).help).toBe(true)
    expect(parseArgv(['-x', '-'], specs).positionals).toEqual(['-x', '-'])
  })

  test('typed values: integers stay exact, enums name the allowed set', () => {
    expect(parseArgv(['--count', '007'], specs).flags.count).toBe(7)
    expect(parseArgv(['--count', 'seven'], specs).problems[0]).toBe('--count must be an integer, got "seven"')
    expect(parseArgv(['--level', 'mid'], specs).problems[0]).toBe('--level must be one of low, high, got "mid"')
    // The bad value as facts, for the error's details.
    expect(parseArgv(['--level', 'mid'], specs).invalid).toEqual([
      { flag: '--level', value: 'mid', allowed: ['low', 'high'] },
    ])
    expect(parseArgv(['--count', 'x'], specs).invalid).toEqual([{ flag: '--count', value: 'x', expected: 'integer' }])
  })

  test('a negative number after an integer flag is its value; after any other flag it is not', () => {
    expect(parseArgv(['--count', '-3'], specs)).toMatchObject({ flags: { count: -3 }, positionals: [], problems: [] })
    const bounded = parseArgv(['--n', '-1'], { n: int('n', { min: 1, max: 9 }) })
    expect(bounded.problems).toEqual(['--n must be in 1..9, got -1'])
    expect(bounded.invalid).toEqual([{ flag: '--n', value: '-1', expected: 'integer', min: 1, max: 9 }])
    expect(parseArgv(['--name', '-3'], specs).problems[0]).toMatch(/--name requires a value/)
  })

  test('unknown flags are all collected, with or without values', () => {
    const r = parseArgv(['--projct', 'p', '--zz=1', '--projct'], specs)
    expect(r.unknown).toEqual(['--projct', '--zz'])
  })

  test('durations', () => {
    expect(parseDuration('90s')).toBe(90_000)
    expect(parseDuration('1h30m')).toBe(5_400_000)
    expect(parseDuration('2d')).toBe(172_800_000)
    expect(parseDuration('45')).toBe(45_000)
    for (const bad of ['', 'h', '1x', '-1h', '0s', '1h 30m']) expect(parseDuration(bad)).toBeNull()
    expect(formatDuration(5_400_000)).toBe('1h30m')
  })
})

// ---- properties (fast-check) -------------------------------------------------------------

const plain = fc.string({ minLength: 1, maxLength: 8 }).filter((s) => !s.startsWith('-'))
const anyValue = fc.string({ maxLength: 8 })

type Item =
  | { t: 'pos'; v: string }
  | { t: 'val'; name: 'name'; v: string; form: 'space' | 'eq' | 'escape' }
  | { t: 'rep'; v: string; form: 'space' | 'eq' | 'escape' }
  | { t: 'bool'; name: 'dry-run' | 'all'; v: boolean; form: 'bare' | 'eq' }

const item: fc.Arbitrary<Item> = fc.oneof(
  plain.map((v) => ({ t: 'pos' as const, v })),
  fc.tuple(anyValue, fc.constantFrom('space' as const, 'eq' as const, 'escape' as const)).map(([v, form]) => ({
    t: 'val' as const,
    name: 'name' as const,
    v,
    form: form === 'space' && (v === '' || (v.startsWith('-') && v !== '-')) ? 'eq' : form,
  })),
  fc.tuple(anyValue, fc.constantFrom('space' as const, 'eq' as const, 'escape' as const)).map(([v, form]) => ({
    t: 'rep' as const,
    v,
    form: form === 'space' && (v === '' || (v.startsWith('-') && v !== '-')) ? 'eq' : form,
  })),
  fc
    .tuple(
      fc.constantFrom('dry-run' as const, 'all' as const),
      fc.boolean(),
      fc.constantFrom('bare' as const, 'eq' as const),
    )
    .map(([name, v, form]) => ({ t: 'bool' as const, name, v: form === 'bare' ? true : v, form })),
)

function render(items: Item[]): string[] {
  const out: string[] = []
  for (const it of items) {
    if (it.t === 'pos') out.push(it.v)
    else if (it.t === 'bool') out.push(it.form === 'bare' ? `--${it.name}` : `--${it.name}=${it.v}`)
    else {
      const n = it.t === 'rep' ? 'tag' : 'name'
      if (it.form === 'eq') out.push(`--${n}=${it.v}`)
      else if (it.form === 'escape') out.push(`--${n}`, '--', it.v)
      else out.push(`--${n}`, it.v)
    }
  }
  return out
}

const corpus: string[][] = JSON.parse(readFileSync(join(REPO_ROOT, 'testdata', 'fuzz', 'parser.json'), 'utf8')).cases

describe('parser properties', () => {
  test('no token is ever lost: every positional and every value comes back', () => {
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 12 }),
        fc.option(fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 })),
        (items, tail) => {
          // A non-repeatable flag appears at most once in a well-formed call.
          const seen = new Set<string>()
          const ok = items.filter((i) => {
            if (i.t !== 'val' && i.t !== 'bool') return true
            if (seen.has(i.name)) return false
            seen.add(i.name)
            return true
          })
          const argv = [...render(ok), ...(tail === null ? [] : ['--', ...tail])]
          const r = parseArgv(argv, specs)
          expect(r.unknown).toEqual([])
          expect(r.problems).toEqual([])
          expect(r.positionals).toEqual([...ok.filter((i) => i.t === 'pos').map((i) => i.v), ...(tail ?? [])])
          const vals = ok.filter((i) => i.t === 'val')
          expect(r.flags.name).toEqual(vals.length > 0 ? (vals[0] as { v: string }).v : undefined)
          const reps = ok.filter((i) => i.t === 'rep').map((i) => i.v)
          expect(r.flags.tag).toEqual(reps.length > 0 ? reps : undefined)
          for (const b of ok.filter((i): i is Extract<Item, { t: 'bool' }> => i.t === 'bool')) {
            expect(r.flags[b.name]).toBe(b.v)
          }
        },
      ),
      { numRuns: 3000 },
    )
  })

  test('--k=v and --k -- v always agree', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(plain, { maxLength: 3 }), (v, rest) => {
        const a = parseArgv([`--name=${v}`, ...rest], specs)
        const b = parseArgv(['--name', '--', v, ...rest], specs)
        expect(b.flags).toEqual(a.flags)
        expect(b.positionals).toEqual(a.positionals)
        expect(b.problems).toEqual(a.problems)
      }),
      { numRuns: 2000 },
    )
  })

  test('a boolean never eats a token', () => {
    fc.assert(
      fc.property(fc.constantFrom('--dry-run', '--all', '--json', '--quiet'), plain, (flag, next) => {
        const r = parseArgv([flag, next], specs)
        expect(r.positionals).toEqual([next])
      }),
      { numRuns: 1000 },
    )
  })

  test('arbitrary argv never throws and every token is accounted for', () => {
    const check = (argv: string[]) => {
      const r = parseArgv(argv, specs)
      // Every token is a positional, a flag, a flag's value, or the `--` separator/escape.
      expect(r.positionals.length).toBeLessThanOrEqual(argv.length)
      for (const p of r.positionals) expect(argv).toContain(p)
    }
    for (const c of corpus) check(c)
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('--', '-h', '--name', '--tag', '--dry-run', '--all=x')), {
          maxLength: 10,
        }),
        check,
      ),
      { numRuns: 5000 },
    )
  })
})
