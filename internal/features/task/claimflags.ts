// The flags that choose who arbitrates a claim: shared by
// claim, release, renew and done.

import { bool, str } from '../../clikit/flags.js'

export const arbitrationFlags = {
  remote: str('the claims remote', {
    valueName: 'R',
    defaultText: 'claims.remote in config.yml; none: this clone only',
  }),
  local: bool('this clone only'),
} as const
