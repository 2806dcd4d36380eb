// The flags every close takes (`task done`, `accept`): landed-not-just-done and
// the tokens an agent reports. Declared once so the two commands agree.

import { bool, int, str } from './flags.js'

export const closeFlags = {
  into: str('trunk the task’s branch must have landed on (default: the remote’s HEAD, else main, else master)', {
    valueName: 'BRANCH',
  }),
  branch: str('the branch holding the task’s work (default: its worktree’s branch)', { valueName: 'BRANCH' }),
  'allow-unlanded': bool('close even though the branch has commits trunk does not have (logged as unlanded)'),
  tokens: int('output tokens you spent on the task (for dacli metrics)', { min: 0, max: 1_000_000_000 }),
} as const
