// The fake GitHub's pull requests: pulls (list, read, create, update, merge), reviews, check runs, commit statuses and
// compare. With a bare repository behind the fake repository (`FakeGitHub.useGit`), heads, mergeability,
// how far a head is behind its base, and merges are computed from real git refs and real merges; without one,
// from the fields a test sets. A pull request shares the issue numbers, as on GitHub.

import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'

export interface FakeReview {
  user: string
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED'
  submitted_at: string
}

export interface FakeCheck {
  name: string
  status: 'queued' | 'in_progress' | 'completed'
  conclusion: 'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | null
}

export interface FakePull {
  number: number
  title: string
  body: string | null
  state: 'open' | 'closed'
  draft: boolean
  merged: boolean
  merged_at: string | null
  merge_commit_sha: string | null
  /** Branch names in the repository. */
  head: string
  /** The fork the head branch is in (`owner/name`); absent: the repository itself. */
  headRepo?: string
  base: string
  reviews: FakeReview[]
  requested_reviewers: string[]
  /** Forces mergeability (null: computing); undefined: computed from git (true without git). */
  mergeable?: boolean | null
  created_at: string
  updated_at: string
}

export interface PullState {
  pulls: FakePull[]
  /** By commit sha. */
  checks: Map<string, FakeCheck[]>
  statuses: Map<string, { context: string; state: 'pending' | 'success' | 'failure' | 'error' }[]>
  /** A bare repository the refs are read from and merges are made in, or null. */
  gitDir: string | null
  /** Approvals GitHub's branch protection requires (mergeable_state `blocked` below it). */
  requiredReviews: number
  /** Branch protection requires the head to be up to date with its base (mergeable_state `behind`). */
  requireUpToDate: boolean
}

export const newPullState = (): PullState => ({
  pulls: [],
  checks: new Map(),
  statuses: new Map(),
  gitDir: null,
  requiredReviews: 0,
  requireUpToDate: false,
})

type Send = (status: number, data: unknown, headers?: Record<string, string>) => void

const gitEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_'))),
  GIT_AUTHOR_NAME: 'GitHub',
  GIT_AUTHOR_EMAIL: 'noreply@github.invalid',
  GIT_COMMITTER_NAME: 'GitHub',
  GIT_COMMITTER_EMAIL: 'noreply@github.invalid',
}
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', dir, ...args], { encoding: 'utf8', env: gitEnv }).trim()
const gitTry = (dir: string, ...args: string[]) => {
  const r = spawnSync('git', ['--git-dir', dir, ...args], { encoding: 'utf8', env: gitEnv })
  return { code: r.status ?? 1, out: String(r.stdout).trim() }
}

/** A branch's (or sha's) commit: from git when there is a repository, else a stable made-up sha. */
export function shaOf(s: PullState, ref: string): string | null {
  if (s.gitDir === null) return createHash('sha1').update(`ref:${ref}`).digest('hex')
  const r = gitTry(s.gitDir, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`)
  return r.code === 0 ? r.out : null
}

function mergeableOf(s: PullState, p: FakePull): boolean | null {
  if (p.mergeable !== undefined) return p.mergeable
  if (s.gitDir === null || p.state !== 'open') return true
  return gitTry(s.gitDir, 'merge-tree', '--write-tree', p.base, p.head).code === 0
}

const count = (s: PullState, range: string) =>
  s.gitDir === null ? 0 : Number(gitTry(s.gitDir, 'rev-list', '--count', range).out || '0')

function latestReviews(p: FakePull): FakeReview[] {
  const by = new Map<string, FakeReview>()
  for (const r of p.reviews) if (r.state !== 'COMMENTED') by.set(r.user, r)
  return [...by.values()]
}

function checksFail(s: PullState, sha: string): boolean {
  const runs = s.checks.get(sha) ?? []
  const sts = s.statuses.get(sha) ?? []
  return (
    runs.some((c) => c.conclusion === 'failure' || c.conclusion === 'timed_out' || c.conclusion === 'cancelled') ||
    sts.some((x) => x.state === 'failure' || x.state === 'error')
  )
}

function mergeableState(s: PullState, p: FakePull): string {
  if (p.state !== 'open') return 'unknown'
  if (p.draft) return 'draft'
  const m = mergeableOf(s, p)
  if (m === null) return 'unknown'
  if (!m) return 'dirty'
  if (s.requireUpToDate && count(s, `${p.head}..${p.base}`) > 0) return 'behind'
  const approvals = latestReviews(p).filter((r) => r.state === 'APPROVED').length
  if (approvals < s.requiredReviews || latestReviews(p).some((r) => r.state === 'CHANGES_REQUESTED')) return 'blocked'
  const sha = shaOf(s, p.head)
  if (sha !== null && checksFail(s, sha)) return 'unstable'
  return 'clean'
}

const headOwner = (p: FakePull, owner: string) => p.headRepo?.split('/')[0] ?? owner

export function pullJSON(s: PullState, p: FakePull, base: string, owner: string) {
  const headSha = shaOf(s, p.head) ?? p.merge_commit_sha ?? '0'.repeat(40)
  const own = new URL(base).pathname.slice(1)
  const headRepo = p.headRepo ?? own
  return {
    number: p.number,
    html_url: `${base}/pull/${p.number}`,
    title: p.title,
    body: p.body,
    state: p.state,
    draft: p.draft,
    merged: p.merged,
    merged_at: p.merged_at,
    merge_commit_sha: p.merge_commit_sha,
    head: { ref: p.head, sha: headSha, label: `${headOwner(p, owner)}:${p.head}`, repo: { full_name: headRepo } },
    base: {
      ref: p.base,
      sha: shaOf(s, p.base) ?? '0'.repeat(40),
      label: `${owner}:${p.base}`,
      repo: { full_name: own },
    },
    mergeable: p.state === 'open' ? mergeableOf(s, p) : null,
    mergeable_state: mergeableState(s, p),
    requested_reviewers: p.requested_reviewers.map((login) => ({ login })),
    created_at: p.created_at,
    updated_at: p.updated_at,
  }
}

/** Merge a pull request's head into its base in the bare repository; the new commit's sha. */
function mergeInGit(s: PullState, p: FakePull, method: string): string {
  if (s.gitDir === null) return createHash('sha1').update(`merge:${p.number}`).digest('hex')
  const dir = s.gitDir
  const tree = git(dir, 'merge-tree', '--write-tree', p.base, p.head).split('\n')[0] as string
  const baseSha = git(dir, 'rev-parse', p.base)
  const headSha = git(dir, 'rev-parse', p.head)
  const message =
    method === 'merge' ? `Merge pull request #${p.number} from ${p.head}\n\n${p.title}` : `${p.title} (#${p.number})`
  const parents = method === 'merge' ? ['-p', baseSha, '-p', headSha] : ['-p', baseSha]
  const commit = git(dir, 'commit-tree', tree, ...parents, '-m', message)
  git(dir, 'update-ref', `refs/heads/${p.base}`, commit, baseSha)
  return commit
}

export interface PullRequestContext {
  state: PullState
  owner: string
  /** `http://host/owner/name`. */
  htmlBase: string
  /** The request's URL without its query (`http://host/repos/owner/name/…`), for `Link` headers. */
  url: string
  method: string
  /** The path after `/repos/owner/name`. */
  rest: string
  query: URLSearchParams
  body: unknown
  authed: boolean
  send: Send
  /** A new issue number for a pull request (shared with issues), and the issue that stands for it. */
  newNumber(title: string, body: string | null): number
}

const iso = () => new Date().toISOString()

/** One page of a list as GitHub serves it (`per_page` default 30, at most 100) and its `Link` to the next and last. */
function paged<T>(c: PullRequestContext, all: readonly T[]): { items: T[]; headers: Record<string, string> } {
  const per = Math.min(Math.max(Number(c.query.get('per_page') ?? 30) || 30, 1), 100)
  const page = Math.max(Number(c.query.get('page') ?? 1) || 1, 1)
  const last = Math.max(1, Math.ceil(all.length / per))
  const link = (n: number, rel: string) => {
    const q = new URLSearchParams(c.query)
    q.set('page', String(n))
    q.set('per_page', String(per))
    return `<${c.url}?${q}>; rel="${rel}"`
  }
  const items = all.slice((page - 1) * per, page * per)
  return { items, headers: page < last ? { link: `${link(page + 1, 'next')}, ${link(last, 'last')}` } : {} }
}

/** Answer a request under /repos/{owner}/{name}/(pulls|commits|compare); false when the path is not one of them. */
export function handlePulls(c: PullRequestContext): boolean {
  const s = c.state
  const { send } = c
  let m = /^\/commits\/([^/]+)\/(check-runs|status)$/.exec(c.rest)
  if (m !== null && c.method === 'GET') {
    const sha = shaOf(s, decodeURIComponent(m[1] as string)) ?? (m[1] as string)
    if (m[2] === 'check-runs') {
      const runs = s.checks.get(sha) ?? []
      const pg = paged(
        c,
        runs.map((r, i) => ({ id: i + 1, ...r })),
      )
      send(200, { total_count: runs.length, check_runs: pg.items }, pg.headers)
    } else {
      const sts = s.statuses.get(sha) ?? []
      const state = sts.some((x) => x.state === 'failure' || x.state === 'error')
        ? 'failure'
        : sts.some((x) => x.state === 'pending') || sts.length === 0
          ? 'pending'
          : 'success'
      const pg = paged(c, sts)
      send(200, { state, sha, total_count: sts.length, statuses: pg.items, url: c.url }, pg.headers)
    }
    return true
  }
  m = /^\/compare\/(.+)$/.exec(c.rest)
  if (m !== null && c.method === 'GET') {
    const [base = '', head = ''] = decodeURIComponent(m[1] as string).split('...')
    if (shaOf(s, base) === null || shaOf(s, head) === null) {
      send(404, { message: 'Not Found' })
      return true
    }
    const lines =
      s.gitDir === null ? '' : gitTry(s.gitDir, 'log', '--reverse', '--format=%H%x09%s', `${base}..${head}`).out
    const commits = lines
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [sha, ...subject] = l.split('\t')
        return { sha, commit: { message: subject.join('\t') } }
      })
    const ahead = count(s, `${base}..${head}`)
    const behind = count(s, `${head}..${base}`)
    const status =
      ahead === 0 && behind === 0 ? 'identical' : behind === 0 ? 'ahead' : ahead === 0 ? 'behind' : 'diverged'
    send(200, { status, ahead_by: ahead, behind_by: behind, total_commits: ahead, commits })
    return true
  }
  if (!c.rest.startsWith('/pulls')) return false
  const json = (p: FakePull) => pullJSON(s, p, c.htmlBase, c.owner)
  if (c.rest === '/pulls') {
    if (c.method === 'GET') {
      const state = c.query.get('state') ?? 'open'
      const head = c.query.get('head')
      const list = s.pulls
        .filter((p) => state === 'all' || p.state === state)
        .filter((p) => head === null || `${headOwner(p, c.owner)}:${p.head}`.toLowerCase() === head.toLowerCase())
        .sort((a, b) => b.number - a.number)
      send(200, list.map(json))
      return true
    }
    if (c.method !== 'POST') return notFound(send)
    if (!c.authed) return answer(send, 401, { message: 'Requires authentication' })
    const b = (c.body ?? {}) as { title?: unknown; body?: unknown; head?: unknown; base?: unknown; draft?: unknown }
    if (typeof b.title !== 'string' || typeof b.head !== 'string' || typeof b.base !== 'string') {
      return answer(send, 422, {
        message: 'Validation Failed',
        errors: [{ resource: 'PullRequest', code: 'missing_field' }],
      })
    }
    const head = b.head.includes(':') ? (b.head.split(':')[1] as string) : b.head
    if (shaOf(s, head) === null || shaOf(s, b.base) === null) {
      return answer(send, 422, {
        message: 'Validation Failed',
        errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }],
      })
    }
    if (s.pulls.some((p) => p.state === 'open' && p.head === head && p.base === b.base)) {
      return answer(send, 422, { message: `Validation Failed: A pull request already exists for ${c.owner}:${head}.` })
    }
    const body = typeof b.body === 'string' ? b.body : null
    const p = addPullTo(s, c.newNumber(b.title, body), {
      title: b.title,
      body,
      head,
      base: b.base,
      draft: b.draft === true,
    })
    send(201, json(p))
    return true
  }
  m = /^\/pulls\/(\d+)(\/reviews|\/merge)?$/.exec(c.rest)
  const p = m === null ? undefined : s.pulls.find((x) => x.number === Number(m?.[1]))
  if (m === null || p === undefined) return notFound(send)
  if (m[2] === undefined) {
    if (c.method === 'GET') return answer(send, 200, json(p))
    if (c.method !== 'PATCH') return notFound(send)
    if (!c.authed) return answer(send, 401, { message: 'Requires authentication' })
    const b = (c.body ?? {}) as { title?: unknown; body?: unknown; state?: unknown }
    if (typeof b.title === 'string') p.title = b.title
    if (typeof b.body === 'string') p.body = b.body
    if (p.merged === false && (b.state === 'open' || b.state === 'closed')) p.state = b.state
    p.updated_at = iso()
    return answer(send, 200, json(p))
  }
  if (m[2] === '/reviews') {
    if (c.method !== 'GET') return notFound(send)
    const pg = paged(
      c,
      p.reviews.map((r, i) => ({ id: i + 1, user: { login: r.user }, state: r.state, submitted_at: r.submitted_at })),
    )
    send(200, pg.items, pg.headers)
    return true
  }
  if (c.method !== 'PUT') return notFound(send)
  if (!c.authed) return answer(send, 401, { message: 'Requires authentication' })
  const b = (c.body ?? {}) as { sha?: unknown; merge_method?: unknown }
  const method = typeof b.merge_method === 'string' ? b.merge_method : 'merge'
  if (!['merge', 'squash', 'rebase'].includes(method)) return answer(send, 422, { message: 'Invalid merge_method' })
  const headSha = shaOf(s, p.head)
  if (typeof b.sha === 'string' && b.sha !== headSha) {
    return answer(send, 409, { message: 'Head branch was modified. Review and try the merge again.' })
  }
  const ms = mergeableState(s, p)
  if (p.state !== 'open' || !['clean', 'unstable', 'has_hooks'].includes(ms)) {
    return answer(send, 405, { message: 'Pull Request is not mergeable' })
  }
  const sha = mergeInGit(s, p, method)
  p.state = 'closed'
  p.merged = true
  p.merged_at = iso()
  p.merge_commit_sha = sha
  p.updated_at = iso()
  send(200, { sha, merged: true, message: 'Pull Request successfully merged' })
  return true
}

export function addPullTo(
  s: PullState,
  number: number,
  f: { title: string; body: string | null; head: string; base: string; draft: boolean },
): FakePull {
  const now = iso()
  const p: FakePull = {
    number,
    ...f,
    state: 'open',
    merged: false,
    merged_at: null,
    merge_commit_sha: null,
    reviews: [],
    requested_reviewers: [],
    created_at: now,
    updated_at: now,
  }
  s.pulls.push(p)
  return p
}

function notFound(send: Send): true {
  send(404, { message: 'Not Found' })
  return true
}

function answer(send: Send, status: number, data: unknown): true {
  send(status, data)
  return true
}
