// Overlap of touches globs: soundness against picomatch itself (property), and the tricky globs by name.

import fc from 'fast-check'
import picomatch from 'picomatch/posix.js'
import { describe, expect, test } from 'vitest'
import { covers, entriesOverlap, globProblem, overlapOf } from './overlap.js'

const SEGMENTS = ['a', 'b', 'ab', 'x.ts', 'x.md', '.env', 'auth', 'src']
const GLOB_SEGMENTS = [
  ...SEGMENTS,
  '*',
  '**',
  '?',
  'a*',
  '*b',
  '*.ts',
  '*.md',
  '{a,b}',
  '{auth,src}',
  '[ab]',
  'x.{ts,md}',
  '@(a|b)',
  '+(a)',
  '!(a)',
  '?b',
]

const path = fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 4 }).map((s) => s.join('/'))
const glob = fc.array(fc.constantFrom(...GLOB_SEGMENTS), { minLength: 1, maxLength: 4 }).map((s) => s.join('/'))

describe('globs that can share a path are always found to overlap', () => {
  test('property: a path both globs match (picomatch, dotfiles included) means overlap', () => {
    fc.assert(
      fc.property(glob, glob, fc.array(path, { minLength: 1, maxLength: 30 }), (g1, g2, paths) => {
        const m1 = picomatch(g1, { dot: true })
        const m2 = picomatch(g2, { dot: true })
        if (paths.some((p) => m1(p) && m2(p))) expect(entriesOverlap(g1, g2), `${g1} vs ${g2}`).toBe(true)
      }),
      { numRuns: 3000 },
    )
    // Found by this property (seed 636807411): picomatch lets `a/**/!(a)` match `a` itself.
    expect(picomatch('a/**/!(a)', { dot: true })('a') && picomatch('a*', { dot: true })('a')).toBe(true)
    expect(entriesOverlap('a/**/!(a)', 'a*')).toBe(true)
  })

  test('property: overlap is symmetric, and a glob overlaps itself', () => {
    fc.assert(
      fc.property(glob, glob, (g1, g2) => {
        expect(entriesOverlap(g1, g2)).toBe(entriesOverlap(g2, g1))
        expect(entriesOverlap(g1, g1)).toBe(true)
      }),
      { numRuns: 1000 },
    )
  })

  test('property: a changed path and a glob meet exactly when picomatch says the glob matches it', () => {
    fc.assert(
      fc.property(glob, path, (g, p) => {
        const got = overlapOf({ patterns: [g], paths: [] }, { patterns: [], paths: [p] }) !== null
        expect(got).toBe(
          picomatch(g, { dot: true })(p) || (picomatch(`${g}/**`, { dot: true })(p) && !picomatch.scan(g).isGlob),
        )
      }),
      { numRuns: 2000 },
    )
  })
})

describe('tricky globs by name', () => {
  const cases: [string, string, boolean][] = [
    ['src/auth/**', 'src/auth/login.ts', true],
    ['src/auth/**', 'src/billing/**', false],
    ['src/**/*.ts', 'src/auth/**', true],
    ['src/**/*.ts', 'src/**/*.md', false],
    ['src/**', 'src', true],
    ['src/auth', 'src/auth/x/y.ts', true],
    ['src/auth/', 'src/auth/deep/file.ts', true],
    ['./src/a.ts', 'src/*.ts', true],
    ['docs/*.md', 'docs/api/x.md', false],
    ['docs/**/*.md', 'docs/api/x.md', true],
    ['src/{auth,billing}/**', 'src/billing/pay.ts', true],
    ['src/{auth,billing}/**', 'src/users/**', false],
    ['src/*.{ts,tsx}', 'src/app.tsx', true],
    ['src/*.{ts,tsx}', 'src/app.css', false],
    ['lib/?.js', 'lib/ab.js', false],
    ['lib/?.js', 'lib/a.js', true],
    ['**/.env', 'config/.env', true],
    ['**', 'anything/at/all', true],
    ['a/b', 'a/bc', false],
    ['a/*', 'a/b/c', false],
    ['pkg/[ab]/x', 'pkg/a/x', true],
    ['pkg/[ab]/x', 'pkg/c/y', false],
    ['test/@(unit|e2e)/**', 'test/unit/a.test.ts', true],
    ['src/\\*literal', 'src/*literal', true],
  ]
  test.each(cases)('%s vs %s → %s', (a, b, want) => {
    expect(entriesOverlap(a, b)).toBe(want)
    expect(entriesOverlap(b, a)).toBe(want)
  })

  test('covers: a plain path covers itself and what is below it, nothing beside it', () => {
    expect(covers('src/auth', 'src/auth/a.ts')).toBe(true)
    expect(covers('src/auth', 'src/auth')).toBe(true)
    expect(covers('src/auth', 'src/authz/a.ts')).toBe(false)
    expect(covers('src/*.ts', 'src/.hidden.ts')).toBe(true)
  })

  test('overlapOf names both sides', () => {
    expect(
      overlapOf(
        { patterns: ['src/auth/**', 'docs/x.md'], paths: [] },
        { patterns: ['README.md'], paths: ['src/auth/login.ts', 'src/other.ts'] },
      ),
    ).toEqual({ mine: ['src/auth/**'], theirs: ['src/auth/login.ts'] })
    expect(overlapOf({ patterns: [], paths: ['a.ts'] }, { patterns: [], paths: ['a.ts'] })).toEqual({
      mine: ['a.ts'],
      theirs: ['a.ts'],
    })
    expect(overlapOf({ patterns: ['a/**'], paths: [] }, { patterns: ['b/**'], paths: ['c.ts'] })).toBeNull()
  })

  test('what is refused as a touches entry', () => {
    expect(globProblem('src/**')).toBeNull()
    expect(globProblem('')).toMatch(/empty/)
    expect(globProblem('/etc/passwd')).toMatch(/absolute/)
    expect(globProblem('../x')).toMatch(/leaves/)
    expect(globProblem('src/../../x')).toMatch(/leaves/)
    expect(globProblem('!src/**')).toMatch(/negation/)
    expect(globProblem('src\\a')).toMatch(/backslash/)
    expect(globProblem('a\u0007b')).toMatch(/control/)
    expect(globProblem(' a')).toMatch(/space/)
  })
})
