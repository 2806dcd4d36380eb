// Who a record commit is by. isomorphic-git reads only the repository's own
// config, so the root identity's git name and email are resolved here: the
// GIT_AUTHOR_* variables, then the repository config, then the user's config
// files (XDG, then ~/.gitconfig). An agent is named by its id and role.

import * as os from 'node:os'
import * as path from 'node:path'
import { gitConfigValue, ROOT_ID } from '../store/identity.js'
import type { Identity } from '../store/model.js'
import type { GitInfo } from './discover.js'
import { cleanIdent, type Signature } from './objects.js'

type Env = Readonly<Record<string, string | undefined>>

/** The domain of the made-up addresses dacli signs with (`.invalid` can never be delivered to). */
const DOMAIN = 'dacli.invalid'

function userConfig(repo: GitInfo | null, env: Env, key: 'name' | 'email'): string | null {
  const home = env.HOME ?? os.homedir()
  const files = [
    ...(repo ? [path.join(repo.commonDir, 'config')] : []),
    path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'git', 'config'),
    path.join(home, '.gitconfig'),
  ]
  for (const f of files) {
    const v = gitConfigValue(f, 'user', key)
    if (v !== null && v.trim() !== '') return v
  }
  return null
}

export function authorOf(who: Identity, repo: GitInfo | null, env: Env, at: Date): Signature {
  const timestamp = Math.floor(at.getTime() / 1000)
  if (who.id === ROOT_ID) {
    const name = env.GIT_AUTHOR_NAME?.trim() || userConfig(repo, env, 'name') || who.id
    const email = env.GIT_AUTHOR_EMAIL?.trim() || userConfig(repo, env, 'email') || `${who.id}@${DOMAIN}`
    return { name: cleanIdent(name) || who.id, email: cleanIdent(email), timestamp, timezoneOffset: 0 }
  }
  const name = who.role ? `${who.id} (${who.role})` : who.id
  return { name: cleanIdent(name), email: `${who.id}@${DOMAIN}`, timestamp, timezoneOffset: 0 }
}

export function committerAt(at: Date): Signature {
  return { name: 'dacli', email: `dacli@${DOMAIN}`, timestamp: Math.floor(at.getTime() / 1000), timezoneOffset: 0 }
}
