// Who a record commit is by. The root identity signs as the person: the
// GIT_AUTHOR_* variables, then user.name/user.email as git reads them
// (config.ts). An agent is named by its id and role.

import { userIdent } from '../../adapters/git/config.js'
import type { GitInfo } from '../../adapters/git/discover.js'
import { cleanIdent, type Signature } from '../../adapters/git/objects.js'
import type { Identity } from '../../format/model.js'
import { ROOT_ID } from '../../format/model.js'

type Env = Readonly<Record<string, string | undefined>>

/** The domain of the made-up addresses dacli signs with (`.invalid` can never be delivered to). */
const DOMAIN = 'dacli.invalid'

export function authorOf(who: Identity, repo: GitInfo | null, env: Env, at: Date): Signature {
  const timestamp = Math.floor(at.getTime() / 1000)
  if (who.id === ROOT_ID) {
    const name = env.GIT_AUTHOR_NAME?.trim() || userIdent(repo?.commonDir ?? null, env, 'name') || who.id
    const email =
      env.GIT_AUTHOR_EMAIL?.trim() || userIdent(repo?.commonDir ?? null, env, 'email') || `${who.id}@${DOMAIN}`
    return { name: cleanIdent(name) || who.id, email: cleanIdent(email), timestamp, timezoneOffset: 0 }
  }
  const name = who.role ? `${who.id} (${who.role})` : who.id
  return { name: cleanIdent(name), email: `${who.id}@${DOMAIN}`, timestamp, timezoneOffset: 0 }
}

export function committerAt(at: Date): Signature {
  return { name: 'dacli', email: `dacli@${DOMAIN}`, timestamp: Math.floor(at.getTime() / 1000), timezoneOffset: 0 }
}
