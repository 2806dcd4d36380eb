// The flag that sets a task's touches: checked here before anything is written (labels: internal/features/shared/labels.ts).

import { UsageError } from '../../base/errors.js'
import { str } from '../../clikit/flags.js'

export const touchFlag = str('a path or glob it touches', {
  repeatable: true,
  valueName: 'GLOB',
})
/** Touches entries, checked (picomatch is loaded only when some are given); duplicates dropped, order kept. */
export async function checkTouches(list: readonly string[] | undefined, flag = '--touches'): Promise<string[]> {
  if (list === undefined || list.length === 0) return []
  const { globProblem } = await import('../../domain/plan/overlap.js')
  for (const g of list) {
    const problem = globProblem(g)
    if (problem !== null) {
      throw new UsageError(`${flag} "${g.slice(0, 80)}" ${problem}`, {
        details: { flag, value: g },
        next: [`${flag} src/auth/** (a path or glob relative to the repository root)`],
      })
    }
  }
  return [...new Set(list)]
}
