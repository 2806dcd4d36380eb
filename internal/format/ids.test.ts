// Names that become paths: a property over arbitrary strings (no accepted name leaves its folder) and the
// slugs dacli derives from titles.

import * as path from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { UsageError } from '../base/errors.js'
import { checkText, checkTitle, isId, safeSegment, slugify } from './ids.js'

const accepted = (name: string) => {
  try {
    safeSegment(name, 'name')
    return true
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError)
    return false
  }
}

describe('safeSegment', () => {
  test('any accepted name is one plain segment: it stays inside its folder and is not hidden (property)', () => {
    const root = path.resolve('/workspace/.dacli/projects')
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[a-z0-9._/\\-]{0,12}$/)), (name) => {
        if (!accepted(name)) return
        const p = path.resolve(root, name)
        expect(path.dirname(p)).toBe(root)
        expect(path.basename(p)).toBe(name)
        expect(name.startsWith('.')).toBe(false)
      }),
      { numRuns: 2000 },
    )
  })

  test.each(['', '.', '..', '../x', 'a/b', 'a\\b', '.hidden', 'A', 'a b', 'x\u0000y', 'é', 'a..b', 'x'.repeat(101)])(
    'refuses %j with exit 2',
    (name) => {
      expect(accepted(name)).toBe(false)
    },
  )

  test.each(['-dash', '_under'])('refuses %j saying it must start with a letter or digit', (name) => {
    expect(() => safeSegment(name, 'queue name')).toThrow(
      `queue name ${JSON.stringify(name)} must start with a lower-case letter or a digit`,
    )
  })

  test.each(['ledger', 'v1.2', 'a_b-c', '0', 'x'.repeat(100)])('accepts %j', (name) => {
    expect(accepted(name)).toBe(true)
  })
})

describe('slugify', () => {
  test('every slug it makes is a safe segment, for any title (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (title) => {
        expect(accepted(slugify(title))).toBe(true)
        expect(slugify(title).length).toBeLessThanOrEqual(60)
      }),
      { numRuns: 2000 },
    )
  })

  test('words, accents folded, cut at a dash within the limit; a title with no letters still gets a slug', () => {
    expect(slugify('Ledger: Write Path!')).toBe('ledger-write-path')
    expect(slugify('Café déjà vu')).toBe('cafe-deja-vu')
    const long = 'Reconcile every ledger write path before the month end close runs overnight'
    expect(slugify(long)).toBe('reconcile-every-ledger-write-path-before-the-month-end-close')
    expect(slugify('日本語')).toMatch(/^u[0-9a-f]{8}$/)
    expect(slugify('日本語')).toBe(slugify('日本語'))
    expect(slugify('日本語')).not.toBe(slugify('中文'))
  })
})

describe('titles and text', () => {
  test('a title is trimmed; control characters and newlines are refused, tabs kept', () => {
    expect(checkTitle('  A title\twith a tab ')).toBe('A title\twith a tab')
    for (const bad of ['', '   ', 'a\nb', 'a\u0000b', 'a\u001bb', 'x'.repeat(501)]) {
      expect(() => checkTitle(bad), JSON.stringify(bad)).toThrow(UsageError)
    }
    expect(() => checkTitle('a\nb', 'acceptance criterion')).toThrow(/: an acceptance criterion is one line/)
    expect(() => checkTitle('a\nb')).toThrow(/: a title is one line/)
  })
  test('free text keeps newlines and tabs, refuses other control characters', () => {
    expect(checkText('a\nb\tc\r\n', 'body')).toBe('a\nb\tc\r\n')
    for (const bad of ['a\u0000', 'a\u0007', 'a\u001b[31m', 'a\u007f']) expect(() => checkText(bad, 'body')).toThrow()
  })
})

describe('ids read from files', () => {
  test('each kind has its format; a traversal never passes', () => {
    expect(isId('task', 't-01KBX3Q5M7E2RJ4T8W6YVZ0N1Q')).toBe(true)
    expect(isId('task', 't-01kbx3q5m7e2rj4t8w6yvz0n1q')).toBe(false)
    expect(isId('event', 'q-01KBX3Q5M7E2RJ4T8W6YVZ0N1Q')).toBe(true)
    expect(isId('agent', 'a-root')).toBe(true)
    expect(isId('agent', 'a-../../x')).toBe(false)
    expect(isId('project', 'a..b')).toBe(false)
    expect(isId('project', 42)).toBe(false)
  })
})
