// The checks behind `github doctor`: which repository (the named project's link, else the only linked project's,
// else the `origin` remote's), then the token, the API, the repository, its visibility against the recorded
// consent, and the rate limit — each a {name, ok, detail}, a failed one never stopping the rest.

import type { RateLimit, RepoInfo } from '../../adapters/github/client.js'
import type { TokenSource } from '../../adapters/github/token.js'
import { cmd } from '../../base/commands.js'
import { apiUrlOf, connect } from './connect.js'
import type { GithubContext } from './context.js'
import { originRepo, sameRepo } from './repository.js'

export interface Check {
  name: string
  ok: boolean
  detail: string
}

export interface Setup {
  project: string | null
  /** owner/name as checked (GitHub's spelling when the repository answered), or null when none could be determined. */
  repository: string | null
  repository_source: 'project' | 'only-linked-project' | 'origin' | null
  api_url: string
  token_source: TokenSource | null
  visibility: RepoInfo['visibility'] | null
  rate_limit: RateLimit | null
  checks: Check[]
}

const statusOf = (e: unknown): number | null => {
  const s = (e as { details?: { status?: unknown } }).details?.status
  return typeof s === 'number' ? s : null
}
const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** Check the GitHub setup for the project `named` (else the only linked one, else the origin remote). */
export async function checkSetup(ctx: GithubContext, named: string | undefined): Promise<Setup> {
  const store = await ctx.store()
  const apiUrl = apiUrlOf(ctx.env)
  let project: string | null = null
  let repo: string | null = null
  let source: Setup['repository_source'] = null
  let consent: string | null = null
  let repoProblem = ''
  if (named !== undefined) {
    const p = await store.readProject(named)
    project = named
    if (p.github?.repo) {
      repo = p.github.repo
      consent = p.github.public_confirmed
      source = 'project'
    } else repoProblem = `project "${named}" is not linked (${cmd(`github link ${named}`)})`
  } else {
    const linked = (await store.listProjects()).projects.filter((p) => p.github?.repo)
    const only = linked.length === 1 ? linked[0] : undefined
    if (only?.github?.repo) {
      project = only.slug
      repo = only.github.repo
      consent = only.github.public_confirmed
      source = 'only-linked-project'
    } else {
      const o = originRepo(store, apiUrl)
      if ('repo' in o) {
        repo = o.repo
        source = 'origin'
      } else if (linked.length > 1) {
        repoProblem = `${linked.length} projects are linked; name one (${cmd('github doctor <project>')})`
      } else repoProblem = `no project is linked and ${o.problem}`
    }
  }

  const s = await connect(ctx, { requireToken: false })
  const token: Check = {
    name: 'token',
    ok: s.tokenSource !== null,
    detail:
      s.tokenSource === null
        ? 'no token: set GH_TOKEN or GITHUB_TOKEN, or run `gh auth login`'
        : `from ${s.tokenSource}`,
  }
  let rl: RateLimit | null = null
  let api: Check
  try {
    rl = await s.client.rateLimit()
    api = { name: 'api', ok: true, detail: `${apiUrl} answered` }
    if (s.tokenSource !== null) token.detail += ', accepted by GitHub'
  } catch (e) {
    if (statusOf(e) === 401) {
      api = { name: 'api', ok: true, detail: `${apiUrl} answered` }
      token.ok = false
      token.detail = `from ${s.tokenSource}, but GitHub rejected it (401)`
    } else api = { name: 'api', ok: false, detail: messageOf(e) }
  }

  let live: RepoInfo | null = null
  let repository: Check
  if (repo === null) repository = { name: 'repository', ok: false, detail: repoProblem }
  else if (!api.ok)
    repository = { name: 'repository', ok: false, detail: `${repo}: not checked (the api check failed)` }
  else {
    try {
      live = await s.client.repository(repo)
      repository = { name: 'repository', ok: true, detail: `${live.full_name} (from ${source})` }
    } catch (e) {
      repository = { name: 'repository', ok: false, detail: messageOf(e) }
    }
  }

  let visibility: Check
  if (live === null) visibility = { name: 'visibility', ok: false, detail: 'unknown: the repository was not resolved' }
  else if (live.visibility !== 'public') visibility = { name: 'visibility', ok: true, detail: live.visibility }
  else if (sameRepo(consent, live.full_name)) {
    visibility = { name: 'visibility', ok: true, detail: `public; consent recorded for ${live.full_name}` }
  } else {
    visibility = {
      name: 'visibility',
      ok: false,
      detail: `public, and no consent recorded for ${live.full_name}: github push will refuse (${cmd(`github link ${project ?? '<project>'} --repo ${live.full_name} --allow-public`)})`,
    }
  }

  const rate: Check =
    rl === null
      ? { name: 'rate_limit', ok: false, detail: 'unknown: the rate limit could not be read (see the api check)' }
      : {
          name: 'rate_limit',
          ok: rl.remaining > 0,
          detail: `${rl.remaining} of ${rl.limit} requests left${rl.reset === null ? '' : `; resets at ${rl.reset}`}`,
        }
  return {
    project,
    repository: live?.full_name ?? repo,
    repository_source: source,
    api_url: apiUrl,
    token_source: s.tokenSource,
    visibility: live?.visibility ?? null,
    rate_limit: rl,
    checks: [token, api, repository, visibility, rate],
  }
}
