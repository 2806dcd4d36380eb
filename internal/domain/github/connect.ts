// Connecting a command to GitHub: the API URL (GITHUB_API_URL), the token
// (GH_TOKEN, GITHUB_TOKEN, `gh auth token`), the tunables (DACLI_GITHUB_*), and
// the Octokit-backed client — loaded with import() so only github commands pay
// for Octokit. Everything is read from ctx.env, never from the process.

import type { GitHubClient } from '../../adapters/github/client.js'
import { resolveToken, type TokenSource } from '../../adapters/github/token.js'
import { cmd } from '../../base/commands.js'
import { classifiedError, FailureError, UsageError } from '../../base/errors.js'
import { VERSION } from '../../base/version.js'
import type { Store } from '../../store/store.js'
import { DEFAULT_REMOTE_TIMEOUT_MS } from '../../store/workspace.js'
import type { GithubContext } from './context.js'

type Env = GithubContext['env']

const DEFAULT_API_URL = 'https://api.github.com'

export type WaitListener = (ms: number, why: string) => void

export interface Session {
  readonly client: GitHubClient
  readonly apiUrl: string
  readonly tokenSource: TokenSource | null
  /** Who hears about the retry policy's waits (default: a progress line each; a progress bar takes them over). */
  onWait(listener: WaitListener | null): void
}

export const waitText = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)}s`)

/** GITHUB_API_URL without a trailing slash (default https://api.github.com). */
export function apiUrlOf(env: Env): string {
  const raw = env.GITHUB_API_URL?.trim()
  if (raw === undefined || raw === '') return DEFAULT_API_URL
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new UsageError(`GITHUB_API_URL is not a URL: ${JSON.stringify(raw.slice(0, 200))}`, {
      next: ['unset GITHUB_API_URL to use https://api.github.com'],
    })
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    throw new UsageError(`GITHUB_API_URL must be an http(s) URL, got ${u.protocol}`)
  }
  return raw.replace(/\/+$/, '')
}

function wholeFrom(env: Env, name: string, fallback: number, unit: string, min = 0): number {
  const raw = env[name]?.trim()
  if (raw === undefined || raw === '') return fallback
  if (!/^\d{1,12}$/.test(raw) || Number(raw) < min) {
    throw new UsageError(
      `${name} must be a whole number of ${unit}${min > 0 ? ` (at least ${min})` : ''}, got "${raw.slice(0, 40)}"`,
      {
        next: [`unset ${name} to use the default (${fallback})`],
      },
    )
  }
  return Number(raw)
}

/**
 * The tunables, from the environment (tests shorten them; people rarely need to). A request's timeout is the
 * workspace's `remote_timeout` (`DACLI_GITHUB_TIMEOUT_MS` overrides it).
 */
function tunables(env: Env, remoteTimeoutMs: number) {
  return {
    timeoutMs: Math.max(wholeFrom(env, 'DACLI_GITHUB_TIMEOUT_MS', remoteTimeoutMs, 'milliseconds'), 1),
    writeIntervalMs: wholeFrom(env, 'DACLI_GITHUB_WRITE_INTERVAL_MS', 1_000, 'milliseconds'),
    retry: {
      maxAttempts: wholeFrom(env, 'DACLI_GITHUB_MAX_ATTEMPTS', 5, 'attempts', 1),
      backoffMs: wholeFrom(env, 'DACLI_GITHUB_BACKOFF_MS', 1_000, 'milliseconds'),
      budgetMs: wholeFrom(env, 'DACLI_GITHUB_RETRY_BUDGET_MS', 600_000, 'milliseconds'),
    },
  }
}

function hostOf(apiUrl: string): string | null {
  try {
    const h = new URL(apiUrl).hostname.toLowerCase()
    return h === 'api.github.com' ? 'github.com' : h
  } catch {
    return null
  }
}

/** Progress lines on stderr for people (none under --json, where stderr is reserved for the error envelope). */
export function progress(ctx: GithubContext): (message: string) => void {
  return ctx.json ? () => {} : (m) => ctx.notes.note(m)
}

/** `remote_timeout` of the workspace; its default where there is none (`github doctor` outside one). */
async function remoteTimeout(ctx: GithubContext): Promise<number> {
  let store: Store
  try {
    store = await ctx.store()
  } catch (e) {
    // A workspace whose config is refused stays refused (exit 2); no workspace at all takes the default.
    if (classifiedError(e)?.kind === 'not_found') return DEFAULT_REMOTE_TIMEOUT_MS
    throw e
  }
  return store.config.remote_timeout_ms
}

export async function connect(ctx: GithubContext, opts: { requireToken: boolean }): Promise<Session> {
  const apiUrl = apiUrlOf(ctx.env)
  const t = tunables(ctx.env, await remoteTimeout(ctx))
  const token = await resolveToken(ctx.env, hostOf(apiUrl))
  if (token === null && opts.requireToken) {
    throw new FailureError('no GitHub token: set GH_TOKEN or GITHUB_TOKEN, or log in with `gh auth login`', {
      details: { looked_at: ['GH_TOKEN', 'GITHUB_TOKEN', 'gh auth token'] },
      next: ['export GH_TOKEN=<a token with the repo scope>', 'gh auth login', cmd('github doctor')],
    })
  }
  const { createClient } = await import('../../adapters/github/client.js')
  const say = progress(ctx)
  const lines: WaitListener = (ms, why) => say(`${why}: retrying in ${waitText(ms)}…`)
  let listener = lines
  const client = createClient({
    apiUrl,
    token: token?.value ?? null,
    ...t,
    userAgent: `dacli/${VERSION}`,
    onWait: (ms, why) => listener(ms, why),
  })
  return {
    client,
    apiUrl,
    tokenSource: token?.source ?? null,
    onWait: (l) => {
      listener = l ?? lines
    },
  }
}
