// Task references (FORMAT.md, References): every written form, qualified or not, and what an ambiguous or
// missing one answers.

import { describe, expect, test } from 'vitest'
import { NotFoundError, UsageError } from '../base/errors.js'
import { type Candidate, matchRef, parseRef, pickOne, qualifiedRef, resolveAmong } from './refs.js'

const ULID = '01KBX3Q5M7E2RJ4T8W6YVZ0N1Q'
type T = Candidate & { id: string }
const tasks: T[] = [
  { id: `t-${ULID}`, project: 'ledger', seq: 7, slug: 'write-shim' },
  { id: 't-01KBX3Q5M7E2RJ4T8W6YVZ0N1R', project: 'ledger', seq: 12, slug: 'audit', aliases: [8] },
  { id: 't-01KBX3Q5M7E2RJ4T8W6YVZ0N1S', project: 'docs', seq: 7, slug: 'write-shim' },
  { id: 't-01KBX3Q5M7E2RJ4T8W6YVZ0N1T', project: 'docs', seq: 8, slug: 'intro' },
]
const find = (ref: string) => matchRef(parseRef(ref), tasks).map(qualifiedRef)

describe('parseRef', () => {
  test.each([
    ['7', { project: null, kind: 'seq', seq: 7 }],
    ['007', { project: null, kind: 'seq', seq: 7 }],
    ['007-write-shim', { project: null, kind: 'seq-slug', seq: 7, slug: 'write-shim' }],
    ['Write-Shim', { project: null, kind: 'slug', slug: 'write-shim' }],
    [`t-${ULID}`, { project: null, kind: 'id', id: `t-${ULID}` }],
    [`T-${ULID.toLowerCase()}`, { project: null, kind: 'id', id: `t-${ULID}` }],
    [ULID, { project: null, kind: 'id', id: `t-${ULID}` }],
    ['ledger/7', { project: 'ledger', kind: 'seq', seq: 7 }],
    ['  ledger/007-write-shim ', { project: 'ledger', kind: 'seq-slug', seq: 7, slug: 'write-shim' }],
  ])('%j', (ref, want) => {
    expect(parseRef(ref)).toMatchObject(want)
  })

  test.each(['', '   ', '/7', 'ledger/', 'a/b/c'])('%j is a usage error', (ref) => {
    expect(() => parseRef(ref)).toThrow(UsageError)
  })
})

describe('matching and picking', () => {
  test('each form finds its task among the candidates it is given (the caller scopes by project)', () => {
    expect(find(`t-${ULID}`)).toEqual(['ledger/007-write-shim'])
    expect(
      matchRef(
        parseRef('ledger/7'),
        tasks.filter((t) => t.project === 'ledger'),
      ).map(qualifiedRef),
    ).toEqual(['ledger/007-write-shim'])
    expect(find('write-shim')).toEqual(['ledger/007-write-shim', 'docs/007-write-shim'])
    expect(find('12-audit')).toEqual(['ledger/012-audit'])
  })

  test('a number that is one task’s alias and another’s live number matches both (never silently one)', () => {
    expect(find('8').sort()).toEqual(['docs/008-intro', 'ledger/012-audit'])
    expect(find('8-audit')).toEqual(['ledger/012-audit'])
  })

  test('pickOne: one match is the task; none is not-found (4); several is a usage error (2) naming them', () => {
    expect(pickOne('x', [tasks[0] as T])).toBe(tasks[0])
    expect(() => pickOne('nope', [])).toThrow(NotFoundError)
    const e = (() => {
      try {
        pickOne('8', matchRef(parseRef('8'), tasks))
      } catch (err) {
        return err as UsageError
      }
      throw new Error('expected an ambiguity error')
    })()
    expect(e).toBeInstanceOf(UsageError)
    expect(e.details.candidates).toEqual(['docs/008-intro', 'ledger/012-audit'])
    expect(e.details.tasks).toEqual([
      { ref: 'docs/008-intro', id: 't-01KBX3Q5M7E2RJ4T8W6YVZ0N1T', matched: 'reference' },
      { ref: 'ledger/012-audit', id: 't-01KBX3Q5M7E2RJ4T8W6YVZ0N1R', matched: 'alias' },
    ])
    // The CLI turns given/closest into the caller's own command with each full reference.
    expect(e.details.given).toBe('8')
    expect(e.details.closest).toEqual([{ value: 'docs/008-intro' }, { value: 'ledger/012-audit' }])
  })

  test('resolveAmong prefers the given project for a bare form and never throws', () => {
    expect(resolveAmong(tasks, 'write-shim', 'docs')?.project).toBe('docs')
    expect(resolveAmong(tasks, 'write-shim')).toBeNull()
    expect(resolveAmong(tasks, 'a/b/c')).toBeNull()
    expect(resolveAmong(tasks, 'ledger/12')?.slug).toBe('audit')
  })
})
