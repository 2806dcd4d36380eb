// Where the GitHub token comes from: GH_TOKEN, else GITHUB_TOKEN, else the
// output of `gh auth token` when the gh CLI is installed and logged in. The
// token is only ever held in memory and handed to the client; callers get its
// source, never its text, for anything they print.

import { execFile } from 'node:child_process'

export type TokenSource = 'GH_TOKEN' | 'GITHUB_TOKEN' | 'gh auth token'

export interface Token {
  readonly value: string
  readonly source: TokenSource
}

type Env = Readonly<Record<string, string | undefined>>

const GH_TIMEOUT_MS = 10_000

/** Ask `gh auth token` (for `hostname` when it is not github.com). Null when gh is missing or not logged in. */
function ghAuthToken(env: Env, hostname: string | null): Promise<string | null> {
  const clean: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (v !== undefined) clean[k] = v
  const args = ['auth', 'token', ...(hostname !== null && hostname !== 'github.com' ? ['--hostname', hostname] : [])]
  return new Promise((resolve) => {
    execFile('gh', args, { env: clean, timeout: GH_TIMEOUT_MS, windowsHide: true, encoding: 'utf8' }, (err, stdout) => {
      const value = typeof stdout === 'string' ? stdout.trim() : ''
      resolve(err === null && value !== '' && !/\s/.test(value) ? value : null)
    })
  })
}

export async function resolveToken(env: Env, hostname: string | null): Promise<Token | null> {
  for (const name of ['GH_TOKEN', 'GITHUB_TOKEN'] as const) {
    const v = env[name]?.trim()
    if (v !== undefined && v !== '') return { value: v, source: name }
  }
  const fromGh = await ghAuthToken(env, hostname)
  return fromGh === null ? null : { value: fromGh, source: 'gh auth token' }
}
