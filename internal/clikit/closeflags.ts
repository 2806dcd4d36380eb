// The flags every close takes (`task done`, `accept`): landed-not-just-done and
// the tokens an agent reports. Declared once so the two commands agree.

import { bool, int, str } from './flags.js'

export const closeFlags = {
  into: str('the trunk the branch must be on', {
    valueName: 'BRANCH',
    defaultText: 'the remote’s HEAD, else main, else master',
  }),
  branch: str('the task’s branch', { valueName: 'BRANCH', defaultText: 'its worktree’s branch' }),
  'allow-unlanded': bool('close although not landed (logged)'),
  tokens: int('output tokens the work cost', { min: 0, max: 1_000_000_000 }),
} as const
