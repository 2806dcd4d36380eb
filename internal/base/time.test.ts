import { expect, test } from 'vitest'
import { epochOfStamp } from './time.js'

test('epochOfStamp reads RFC 3339 UTC stamps and nothing else', () => {
  expect(epochOfStamp('2026-12-01T05:30:00Z')).toBe(Date.UTC(2026, 11, 1, 5, 30, 0))
  expect(epochOfStamp('2026-12-01T05:30:00.250Z')).toBe(Date.UTC(2026, 11, 1, 5, 30, 0, 250))
  for (const bad of [
    '1',
    '',
    'yesterday',
    '2026-02-30T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-12-01 05:30:00Z',
    '2026-12-01T05:30:00+01:00',
    '2026-12-01T24:00:00Z',
  ])
    expect(epochOfStamp(bad), bad).toBeNull()
})
