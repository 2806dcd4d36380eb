// The metrics arithmetic on hand-made histories: the edges the CLI tests do not reach.

import { describe, expect, test } from 'vitest'
import { failuresOf, type HistoryLine, measure, median, type TaskHistory, tokensOf, wallSeconds } from './metrics.js'

const line = (at: number | null, verb: string, details = ''): HistoryLine => ({ at, verb, details })
const task = (id: string, ...log: HistoryLine[]): TaskHistory => ({ id, log })

describe('metrics arithmetic', () => {
  test('median of odd and even counts; none is null', () => {
    expect(median([])).toBeNull()
    expect(median([5])).toBe(5)
    expect(median([9, 1, 5])).toBe(5)
    expect(median([10, 1, 4, 3])).toBe(3.5)
  })

  test('attested ticks before a reopen do not make the later verified close unverified', () => {
    const t = task(
      't-1',
      line(0, 'claimed'),
      line(1, 'attested', '1 (no --verify)'),
      line(2, 'done', '1/1 criteria'),
      line(3, 'reopened', 'regressed'),
      line(4, 'verified', '"true" exit 0'),
      line(5, 'done', '1/1 criteria'),
    )
    expect(failuresOf(t)).toEqual({
      reopened: 1,
      'lease-expired': 0,
      'unverified-close': 1,
      'unlanded-override': 0,
      blocked: 0,
    })
  })

  test('adopting a task nobody held is not a claim taken over', () => {
    const t = task(
      't-1',
      line(0, 'taken-over', 'from nobody (accept --force)'),
      line(1, 'taken-over', 'from a-x-abcdef (lease expired) on origin'),
    )
    expect(failuresOf(t)['lease-expired']).toBe(1)
  })

  test('wall time needs a dated claim before a dated close', () => {
    expect(wallSeconds(task('t', line(0, 'claimed'), line(90_000, 'done')))).toBe(90)
    expect(wallSeconds(task('t', line(null, 'claimed'), line(90_000, 'done')))).toBeNull()
    expect(wallSeconds(task('t', line(0, 'claimed'), line(null, 'done')))).toBeNull()
    expect(wallSeconds(task('t', line(5000, 'claimed'), line(1000, 'done')))).toBeNull()
    expect(wallSeconds(task('t', line(0, 'done')))).toBeNull()
  })

  test('tokens: only well-formed reports count; none reported is null, not 0', () => {
    expect(tokensOf(task('t', line(0, 'tokens', 'output 12'), line(1, 'tokens', 'output 30')))).toBe(42)
    expect(tokensOf(task('t', line(0, 'tokens', 'output -5'), line(1, 'tokens', 'output 1e9')))).toBeNull()
    expect(tokensOf(task('t', line(0, 'done')))).toBeNull()
  })

  test('the window: a finish with an unreadable stamp is left out of a window, kept without one', () => {
    const undated = task('t-1', line(0, 'claimed'), line(null, 'done'))
    const all = measure({ done: [undated], removed: [], answered: new Map(), since: null })
    expect(all.tasks_finished).toBe(1)
    expect(all.wall_time.samples).toBe(0)
    const windowed = measure({ done: [undated], removed: [], answered: new Map(), since: 0 })
    expect(windowed.tasks_finished).toBe(0)
    expect(windowed.completion).toEqual({ value: null, samples: 0 })
    expect(windowed.failures).toEqual({ classes: null, samples: 0 })
  })

  test('only removals yield completion 0 — a measured zero, with its samples', () => {
    const m = measure({ done: [], removed: [task('t-2', line(10, 'removed'))], answered: new Map(), since: 5 })
    expect(m.completion).toEqual({ value: 0, samples: 1 })
    expect(m.retry).toEqual({ value: null, samples: 0 })
    expect(m.human_intervention).toEqual({ value: null, samples: 0 })
  })
})
