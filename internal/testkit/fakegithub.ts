// A fake GitHub REST API for tests: a real node:http server on 127.0.0.1 (random
// port) implementing the endpoints dacli uses, so the real Octokit client runs
// against it through GITHUB_API_URL — nothing is mocked. It records every call
// (tests assert "zero write calls" and "no duplicate issue") and injects the
// faults of fakefaults.ts: armed ones on chosen calls, or seeded chaos.

import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { type ArmedFault, armedFor, type Chaos, chaosFault, type Fault, seeded } from './fakefaults.js'
import {
  addPullTo,
  type FakeCheck,
  type FakePull,
  type FakeReview,
  handlePulls,
  newPullState,
  type PullState,
  shaOf,
} from './fakepulls.js'

export type { Chaos, FakeCheck, FakePull, FakeReview, Fault, PullState }
export type Visibility = 'public' | 'private' | 'internal'

export interface FakeIssue {
  number: number
  title: string
  body: string | null
  state: 'open' | 'closed'
  labels: string[]
  /** The number of its milestone (see FakeRepo.milestones), or null. */
  milestone?: number | null
  user: string
  /** A pull request (the issues list includes them; dacli must ignore them). */
  pull_request?: boolean
  comments: { id: number; body: string; user: string }[]
  /** RFC 3339; `since` filters the issues list on updated_at, as GitHub does. */
  created_at: string
  updated_at: string
}

export interface FakeRepo {
  owner: string
  name: string
  visibility: Visibility
  issues: FakeIssue[]
  /** Pull requests, reviews, checks and branch protection (fakepulls.ts). */
  pr: PullState
  milestones: { number: number; title: string; state: 'open' | 'closed' }[]
}

export interface Call {
  method: string
  path: string
  query: Record<string, string>
  status: number
  body: unknown
  authorization: string | null
}

export interface FakeOptions {
  token?: string
  /** The login that authors issues created through the API. */
  login?: string
  rateLimit?: number
}

type Send = (status: number, data: unknown, headers?: Record<string, string>) => void

const iso = () => new Date().toISOString()

export class FakeGitHub {
  readonly calls: Call[] = []
  readonly repos = new Map<string, FakeRepo>()
  readonly token: string
  readonly login: string
  rateLimit: { limit: number; remaining: number; reset: number }
  /** Where the issues list's `Link` header points (default: this server); a hostile server points it elsewhere. */
  linkBase: string | null = null
  private faults: ArmedFault[] = []
  private chaos: { c: Chaos; random: () => number } | null = null
  private server: http.Server | null = null
  private port = 0

  constructor(opts: FakeOptions = {}) {
    this.token = opts.token ?? 'ghp_fakeTestToken0123456789abcdefABCDEF'
    this.login = opts.login ?? 'dacli-bot'
    const limit = opts.rateLimit ?? 5000
    this.rateLimit = { limit, remaining: limit, reset: Math.floor(Date.now() / 1000) + 3600 }
  }

  static async start(opts: FakeOptions = {}): Promise<FakeGitHub> {
    const f = new FakeGitHub(opts)
    await f.listen()
    return f
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  /** The environment a dacli run needs to talk to this fake (no write spacing, millisecond backoff). */
  env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    return {
      GITHUB_API_URL: this.url,
      GH_TOKEN: this.token,
      GITHUB_TOKEN: undefined,
      DACLI_GITHUB_WRITE_INTERVAL_MS: '0',
      DACLI_GITHUB_BACKOFF_MS: '5',
      ...extra,
    }
  }

  addRepo(fullName: string, visibility: Visibility = 'private'): FakeRepo {
    const [owner, name] = fullName.split('/') as [string, string]
    const repo: FakeRepo = { owner, name, visibility, issues: [], milestones: [], pr: newPullState() }
    this.repos.set(fullName.toLowerCase(), repo)
    return repo
  }

  repo(fullName: string): FakeRepo {
    const r = this.repos.get(fullName.toLowerCase())
    if (r === undefined) throw new Error(`fake: no repository ${fullName}`)
    return r
  }

  addIssue(fullName: string, issue: Partial<FakeIssue> & { title: string }): FakeIssue {
    const repo = this.repo(fullName)
    const now = iso()
    const full: FakeIssue = {
      number: repo.issues.length + 1,
      body: null,
      state: 'open',
      labels: [],
      user: 'alice',
      comments: [],
      created_at: now,
      updated_at: now,
      ...issue,
    }
    repo.issues.push(full)
    return full
  }

  /** Back the repository with a bare git repository: heads, mergeability and merges come from it. */
  useGit(fullName: string, gitDir: string): void {
    this.repo(fullName).pr.gitDir = gitDir
  }

  /** A pull request (numbered with the issues, as GitHub does). */
  addPull(
    fullName: string,
    f: { title: string; head: string; base?: string; body?: string | null; draft?: boolean },
  ): FakePull {
    const i = this.addIssue(fullName, { title: f.title, body: f.body ?? null, pull_request: true })
    return addPullTo(this.repo(fullName).pr, i.number, {
      title: f.title,
      body: f.body ?? null,
      head: f.head,
      base: f.base ?? 'main',
      draft: f.draft ?? false,
    })
  }

  pull(fullName: string, number: number): FakePull {
    const p = this.repo(fullName).pr.pulls.find((x) => x.number === number)
    if (p === undefined) throw new Error(`fake: no pull request #${number} in ${fullName}`)
    return p
  }

  review(fullName: string, number: number, user: string, state: FakeReview['state']): void {
    this.pull(fullName, number).reviews.push({ user, state, submitted_at: new Date().toISOString() })
  }

  /** The check runs of a branch's (or a sha's) current commit. */
  setChecks(fullName: string, ref: string, runs: FakeCheck[]): void {
    const s = this.repo(fullName).pr
    s.checks.set(shaOf(s, ref) ?? ref, runs)
  }

  setStatuses(
    fullName: string,
    ref: string,
    statuses: { context: string; state: 'pending' | 'success' | 'failure' | 'error' }[],
  ): void {
    const s = this.repo(fullName).pr
    s.statuses.set(shaOf(s, ref) ?? ref, statuses)
  }

  /** Arm a fault; it fires on the matching calls it names, then disarms. */
  fail(fault: Fault): void {
    this.faults.push({ ...fault, seen: 0 })
  }

  /** Fail a random share of calls from now on (seeded: replayable). */
  setChaos(c: Chaos): void {
    this.chaos = { c, random: seeded(c.seed) }
  }

  clearFaults(): void {
    this.faults = []
    this.chaos = null
  }

  writes(): Call[] {
    return this.calls.filter((c) => c.method !== 'GET' && c.method !== 'HEAD')
  }

  resetCalls(): void {
    this.calls.length = 0
  }

  async close(): Promise<void> {
    const s = this.server
    if (s === null) return
    this.server = null
    s.closeAllConnections()
    await new Promise<void>((r) => s.close(() => r()))
  }

  private listen(): Promise<void> {
    const server = http.createServer((req, res) => {
      this.handle(req, res).catch((e: unknown) => {
        if (res.headersSent || res.destroyed) return
        res.writeHead(500, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ message: `fake crashed: ${String(e)}` }))
      })
    })
    this.server = server
    return new Promise((resolve) => {
      server.listen(0, '127.0.0.1', () => {
        this.port = (server.address() as AddressInfo).port
        resolve()
      })
    })
  }

  private rateHeaders(): Record<string, string> {
    const r = this.rateLimit
    return {
      'x-ratelimit-limit': String(r.limit),
      'x-ratelimit-remaining': String(r.remaining),
      'x-ratelimit-used': String(r.limit - r.remaining),
      'x-ratelimit-reset': String(r.reset),
      'x-ratelimit-resource': 'core',
    }
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const method = req.method ?? 'GET'
    let raw = ''
    for await (const chunk of req) raw += chunk
    let body: unknown = null
    if (raw !== '') {
      try {
        body = JSON.parse(raw)
      } catch {
        body = raw
      }
    }
    const call: Call = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0,
      body,
      authorization: req.headers.authorization ?? null,
    }
    this.calls.push(call)
    const write = (status: number, text: string, headers: Record<string, string>) => {
      call.status = status
      if (res.destroyed || res.writableEnded) return
      res.writeHead(status, { ...this.rateHeaders(), ...headers })
      res.end(text)
    }
    const send: Send = (status, data, headers = {}) =>
      write(status, JSON.stringify(data), { 'content-type': 'application/json; charset=utf-8', ...headers })

    const chaos = this.chaos
    const fault =
      armedFor(this.faults, method, url.pathname) ??
      (chaos === null ? null : chaosFault(chaos.c, chaos.random, method, url.pathname))
    const answerFault = async () => {
      if (fault?.delayMs !== undefined) await new Promise((r) => setTimeout(r, fault.delayMs))
      const headers = { 'content-type': fault?.contentType ?? 'application/json; charset=utf-8', ...fault?.headers }
      const text = fault?.body ?? JSON.stringify({ message: fault?.message ?? 'Server Error (injected)' })
      write(fault?.status ?? 502, text, headers)
    }
    if (fault && !fault.afterApply) return answerFault()
    // A fault that applies first: the route below does the work, then answers with the fault.
    const reply: Send = fault ? () => void answerFault() : send

    // Authentication: a wrong token is always 401; no token only reads /rate_limit and public repositories.
    const auth = call.authorization
    const authed = auth === `token ${this.token}` || auth === `bearer ${this.token}` || auth === `Bearer ${this.token}`
    if (auth !== null && !authed) return send(401, { message: 'Bad credentials' })
    if (authed && url.pathname !== '/rate_limit') this.rateLimit.remaining = Math.max(0, this.rateLimit.remaining - 1)

    if (url.pathname === '/rate_limit' && method === 'GET') {
      const core = { ...this.rateLimit, used: this.rateLimit.limit - this.rateLimit.remaining }
      return reply(200, { resources: { core }, rate: core })
    }

    const pm = /^\/repos\/([^/]+)\/([^/]+)(\/(?:pulls|commits|compare)(?:\/.*)?)$/.exec(url.pathname)
    if (pm) {
      const prRepo = this.repos.get(`${pm[1]}/${pm[2]}`.toLowerCase())
      if (prRepo === undefined || (!authed && prRepo.visibility !== 'public'))
        return send(404, { message: 'Not Found' })
      const host = req.headers.host ?? `127.0.0.1:${this.port}`
      const handled = handlePulls({
        state: prRepo.pr,
        owner: prRepo.owner,
        htmlBase: `http://${host}/${prRepo.owner}/${prRepo.name}`,
        url: `http://${host}${url.pathname}`,
        method,
        rest: pm[3] as string,
        query: url.searchParams,
        body,
        authed,
        send: reply,
        newNumber: (title, text) =>
          this.addIssue(`${prRepo.owner}/${prRepo.name}`, { title, body: text, pull_request: true, user: this.login })
            .number,
      })
      if (handled) return
      return send(404, { message: 'Not Found' })
    }

    const ms = /^\/repos\/([^/]+)\/([^/]+)\/milestones$/.exec(url.pathname)
    const msRepo = ms ? this.repos.get(`${ms[1]}/${ms[2]}`.toLowerCase()) : undefined
    if (ms && msRepo !== undefined && (authed || msRepo.visibility === 'public')) {
      const json = (x: FakeRepo['milestones'][number]) => ({ number: x.number, title: x.title, state: x.state })
      if (method === 'GET') return reply(200, msRepo.milestones.map(json))
      if (method !== 'POST' || !authed) return send(404, { message: 'Not Found' })
      const title = (body as { title?: unknown } | null)?.title
      if (typeof title !== 'string' || title === '') return send(422, { message: 'Validation Failed' })
      if (msRepo.milestones.some((x) => x.title === title))
        return send(422, { message: 'Validation Failed', errors: [{ resource: 'Milestone', code: 'already_exists' }] })
      const made = { number: msRepo.milestones.length + 1, title, state: 'open' as const }
      msRepo.milestones.push(made)
      return reply(201, json(made))
    }

    const m = /^\/repos\/([^/]+)\/([^/]+)(\/issues(?:\/(\d+)(\/comments)?)?)?$/.exec(url.pathname)
    const repo = m ? this.repos.get(`${m[1]}/${m[2]}`.toLowerCase()) : undefined
    if (!m || repo === undefined || (!authed && repo.visibility !== 'public'))
      return send(404, { message: 'Not Found' })
    const full = `${repo.owner}/${repo.name}`
    const host = req.headers.host ?? `127.0.0.1:${this.port}`
    const issueJSON = (i: FakeIssue) => ({
      number: i.number,
      title: i.title,
      body: i.body,
      state: i.state,
      labels: i.labels.map((name) => ({ name })),
      milestone: (() => {
        const x = repo.milestones.find((y) => y.number === i.milestone)
        return x === undefined ? null : { number: x.number, title: x.title, state: x.state }
      })(),
      user: { login: i.user },
      created_at: i.created_at,
      updated_at: i.updated_at,
      html_url: `http://${host}/${full}/issues/${i.number}`,
      ...(i.pull_request ? { pull_request: { url: `http://${host}/${full}/pull/${i.number}` } } : {}),
    })

    if (m[3] === undefined) {
      if (method !== 'GET') return send(404, { message: 'Not Found' })
      return reply(200, {
        name: repo.name,
        full_name: full,
        owner: { login: repo.owner },
        private: repo.visibility !== 'public',
        visibility: repo.visibility,
        html_url: `http://${host}/${full}`,
      })
    }

    if (m[4] === undefined) {
      if (method === 'GET') return this.listIssues(url, repo, this.linkBase ?? `http://${host}`, reply, issueJSON)
      if (method !== 'POST') return send(404, { message: 'Not Found' })
      if (!authed) return send(401, { message: 'Requires authentication' })
      const b = (body ?? {}) as { title?: unknown; body?: unknown; labels?: unknown; milestone?: unknown }
      if (typeof b.milestone === 'number' && !repo.milestones.some((x) => x.number === b.milestone))
        return send(422, { message: 'Validation Failed', errors: [{ resource: 'Issue', field: 'milestone' }] })
      if (typeof b.title !== 'string' || b.title === '') {
        return send(422, {
          message: 'Validation Failed',
          errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }],
        })
      }
      const issue = this.addIssue(full, {
        title: b.title,
        body: typeof b.body === 'string' ? b.body : null,
        labels: labelNames(b.labels),
        milestone: typeof b.milestone === 'number' ? b.milestone : null,
        user: this.login,
      })
      return reply(201, issueJSON(issue))
    }

    const issue = repo.issues.find((i) => i.number === Number(m[4]))
    if (issue === undefined) return send(404, { message: 'Not Found' })
    if (m[5] !== undefined) {
      if (method === 'GET') return reply(200, issue.comments)
      if (method !== 'POST') return send(404, { message: 'Not Found' })
      const text = (body as { body?: unknown } | null)?.body
      if (typeof text !== 'string') return send(422, { message: 'Validation Failed' })
      const c = { id: issue.comments.length + 1, body: text, user: this.login }
      issue.comments.push(c)
      return reply(201, c)
    }
    if (method === 'GET') return reply(200, issueJSON(issue))
    if (method !== 'PATCH') return send(404, { message: 'Not Found' })
    if (!authed) return send(401, { message: 'Requires authentication' })
    const b = (body ?? {}) as {
      title?: unknown
      body?: unknown
      labels?: unknown
      state?: unknown
      milestone?: unknown
    }
    if (typeof b.milestone === 'number' && !repo.milestones.some((x) => x.number === b.milestone))
      return send(422, { message: 'Validation Failed', errors: [{ resource: 'Issue', field: 'milestone' }] })
    if (typeof b.milestone === 'number' || b.milestone === null) issue.milestone = b.milestone
    if (typeof b.title === 'string') issue.title = b.title
    if (typeof b.body === 'string') issue.body = b.body
    if (b.labels !== undefined) issue.labels = labelNames(b.labels)
    if (b.state === 'open' || b.state === 'closed') issue.state = b.state
    issue.updated_at = iso()
    return reply(200, issueJSON(issue))
  }

  private listIssues(url: URL, repo: FakeRepo, base: string, send: Send, issueJSON: (i: FakeIssue) => unknown): void {
    const q = url.searchParams
    const per = Math.min(Math.max(Number(q.get('per_page') ?? 30) || 30, 1), 100)
    const page = Math.max(Number(q.get('page') ?? 1) || 1, 1)
    const state = q.get('state') ?? 'open'
    const since = q.get('since')
    const creator = q.get('creator')
    // GitHub's default order: newest first.
    const asc = q.get('direction') === 'asc'
    const all = repo.issues
      .filter((i) => state === 'all' || i.state === state)
      .filter((i) => since === null || Date.parse(i.updated_at) >= Date.parse(since))
      .filter((i) => creator === null || i.user.toLowerCase() === creator.toLowerCase())
      .sort((a, b) => (asc ? a.number - b.number : b.number - a.number))
    const last = Math.max(1, Math.ceil(all.length / per))
    const link = (p: number, rel: string) => {
      const next = new URLSearchParams(q)
      next.set('page', String(p))
      next.set('per_page', String(per))
      return `<${base}${url.pathname}?${next}>; rel="${rel}"`
    }
    const links = page < last ? [link(page + 1, 'next'), link(last, 'last')] : []
    send(
      200,
      all.slice((page - 1) * per, page * per).map(issueJSON),
      links.length > 0 ? { link: links.join(', ') } : {},
    )
  }
}

function labelNames(v: unknown): string[] {
  if (!Array.isArray(v)) return []
  return v
    .map((l) =>
      typeof l === 'string' ? l : typeof l === 'object' && l !== null ? String((l as { name?: unknown }).name) : '',
    )
    .filter((l) => l !== '')
}
