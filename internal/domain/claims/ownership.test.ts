// The ownership policy and the cycle search as values: the lifecycle tests (features/task) prove the same rules
// end to end, through the files they write.

import { describe, expect, test } from 'vitest'
import { findCycle } from '../plan/cycle.js'
import { claimStanding, closeVerdict, mayReopen, mayRewrite, removalHolds } from './ownership.js'

const rw = (id: string) => ({ id, grant: 'rw' as const })
const ro = (id: string) => ({ id, grant: 'ro' as const })

describe('who may rewrite a task', () => {
  const readOnly = new Set(['a-reader-000001'])
  test('an rw owner, or any rw identity on an unowned task or one a read-only identity owns', () => {
    expect(mayRewrite('a-dev-000001', rw('a-dev-000001'), readOnly)).toBe(true)
    expect(mayRewrite(null, rw('a-dev-000002'), readOnly)).toBe(true)
    expect(mayRewrite('a-reader-000001', rw('a-dev-000002'), readOnly)).toBe(true)
  })
  test('never another rw identity’s task; never a read-only caller, not even on its own task', () => {
    expect(mayRewrite('a-dev-000001', rw('a-dev-000002'), readOnly)).toBe(false)
    expect(mayRewrite(null, ro('a-reader-000001'), readOnly)).toBe(false)
    expect(mayRewrite('a-reader-000001', ro('a-reader-000001'), readOnly)).toBe(false)
  })
})

describe('where a claim stands', () => {
  const roster = {
    retired: new Set(['a-gone-000001']),
    known: new Set(['a-root', 'a-me-000001', 'a-you-000001', 'a-gone-000001']),
  }
  test('free, yours, held by a live claim', () => {
    expect(claimStanding(null, 'a-me-000001', false, roster)).toEqual({ kind: 'free' })
    expect(claimStanding('a-me-000001', 'a-me-000001', true, roster)).toEqual({ kind: 'yours' })
    expect(claimStanding('a-you-000001', 'a-me-000001', false, roster)).toEqual({
      kind: 'held',
      owner: 'a-you-000001',
    })
  })
  test('an expired lease or a retired owner may be taken over, saying which', () => {
    expect(claimStanding('a-you-000001', 'a-me-000001', true, roster)).toEqual({
      kind: 'takeover',
      from: 'a-you-000001',
      why: 'lease expired',
    })
    expect(claimStanding('a-gone-000001', 'a-me-000001', false, roster)).toEqual({
      kind: 'takeover',
      from: 'a-gone-000001',
      why: 'owner retired',
    })
  })
  test('an owner no agent file names is missing: its live claim may be taken over, saying so', () => {
    expect(claimStanding('a-lost-000001', 'a-me-000001', false, roster)).toEqual({
      kind: 'takeover',
      from: 'a-lost-000001',
      why: 'owner missing',
    })
  })
})

describe('closing', () => {
  const box = (n: number, checked: boolean) => ({ n, text: `criterion ${n}`, checked })
  test('every box checked closes; none closes only when the caller allows it, marked unverified', () => {
    expect(closeVerdict([box(1, true), box(2, true)], false)).toEqual({ kind: 'close', unverified: false })
    expect(closeVerdict([], false)).toEqual({ kind: 'no-criteria' })
    expect(closeVerdict([], true)).toEqual({ kind: 'close', unverified: true })
  })
  test('unchecked boxes are named in order, whatever the override', () => {
    expect(closeVerdict([box(1, false), box(2, true), box(3, false)], true)).toEqual({
      kind: 'unmet',
      unmet: [
        { n: 1, text: 'criterion 1' },
        { n: 3, text: 'criterion 3' },
      ],
    })
  })
  test('only done or blocked reopens; removal is held by an active or done status and by dependents', () => {
    expect(['open', 'active', 'blocked', 'done'].filter(mayReopen)).toEqual(['blocked', 'done'])
    expect(removalHolds('open', [])).toEqual([])
    expect(removalHolds('done', ['p/002-b', 'p/003-c'])).toEqual(['it is done', 'p/002-b, p/003-c depend on it'])
    // One dependent: the verb agrees with it.
    expect(removalHolds('open', ['ledger/008-x'])).toEqual(['ledger/008-x depends on it'])
  })
})

describe('the cycle search', () => {
  const t = (id: string, ...on: string[]) => ({
    id,
    project: 'p',
    seq: id.charCodeAt(0) - 96,
    slug: `task-${id}`,
    depends_on: on.map((o) => ({ on: o })),
  })
  const all = [t('a'), t('b', 'a'), t('c', 'b'), t('d')]
  test('a new dependency that loops back is named from the task round to it', () => {
    expect(findCycle('a', ['c'], all)).toEqual(['a', 'c', 'b', 'a'])
    expect(findCycle('a', ['a'], all)).toEqual(['a', 'a'])
  })
  test('no loop, no cycle; a dependency on an unknown id ends the walk there', () => {
    expect(findCycle('a', ['d'], all)).toBeNull()
    expect(findCycle('d', ['c', 'x'], all)).toBeNull()
  })
  test('a dependency written by hand in another reference form is followed too', () => {
    // b and c name their predecessors as a person writes them: `p/001`, `002-task-b`.
    const hand = [t('a'), t('b', 'p/001'), t('c', '002-task-b'), t('d', 'task-c')]
    expect(findCycle('a', ['c'], hand)).toEqual(['a', 'c', 'b', 'a'])
    expect(findCycle('a', ['4'], hand)).toEqual(['a', 'd', 'c', 'b', 'a'])
  })
})
