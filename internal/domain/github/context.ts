// What the GitHub use-cases need of the command that runs them. A clikit Context is one; the domain names only
// these members, so it never depends on the kernel above it.

import type { Notes } from '../../base/notes.js'
import type { Store } from '../../store/store.js'

export type Env = Readonly<Record<string, string | undefined>>

export interface GithubContext {
  readonly env: Env
  /** Under --json, people's notes are not printed (warnings still are). */
  readonly json: boolean
  readonly notes: Notes
  now(): Date
  store(): Promise<Store>
}
