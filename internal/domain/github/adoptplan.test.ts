// The adoption plan's score: 1 is the exact title (case and spaces aside); the same words in another form — a plural,
// another order, a stop-word more — are a possible duplicate scored just under it, so a caller can tell the two apart.

import { expect, test } from 'vitest'
import { classify } from './adoptplan.js'

const task = (seq: number, title: string) => ({
  id: `t-${seq}`,
  seq,
  title,
  status: 'open',
  github: null,
})
const issue = (number: number, title: string) => ({ number, title, body: '', state: 'open' as const })

test('an exact title scores 1; the same words in another form score under 1', () => {
  const plan = classify(
    [issue(1, 'Beta  FEATURE'), issue(2, 'Beta features'), issue(3, 'Delta improvement to the caching')],
    [task(1, 'Beta feature'), task(2, 'Delta improvement to caching')],
    'acme/widgets',
  )
  expect(plan.map((p) => [p.issue.number, p.outcome, p.reason, p.score])).toEqual([
    [1, 'link', 'exact title match', 1],
    [2, 'refused', 'possible duplicate', 0.999],
    [3, 'refused', 'possible duplicate', 0.999],
  ])
})
