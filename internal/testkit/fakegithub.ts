// A fake GitHub REST API for tests: a real node:http server on 127.0.0.1 (random
// port) implementing the endpoints dacli uses, so the real Octokit client runs
// against it through GITHUB_API_URL — nothing is mocked. It records every call
// (tests assert "zero write calls" and "no duplicate issue"), and injects
// faults on chosen calls: an error status (5xx, or 403/429 with rate-limit
// headers), a write that is applied before its answer is lost, or a delay long
// enough to trip the client's timeout.

import * as http from 'node:http'
import type { AddressInfo } from 'node:net'

export type Visibility = 'public' | 'private' | 'internal'

export interface FakeIssue {
  number: number
  title: string
  body: string | null
  state: 'open' | 'closed'
  labels: string[]
  user: string
  /** A pull request (the issues list includes them; dacli must ignore them). */
  pull_request?: boolean
  comments: { id: number; body: string; user: string }[]
}

export interface FakeRepo {
  owner: string
  name: string
  visibility: Visibility
  issues: FakeIssue[]
}

export interface Call {
  method: string
  path: string
  query: Record<string, string>
  status: number
  body: unknown
  authorization: string | null
}

export interface Fault {
  method?: string
  /** Matched against the path (no query). */
  path?: RegExp
  /** Fail the nth matching call (1-based; default 1) … */
  nth?: number
  /** … and this many consecutive matching calls from there (default 1). */
  times?: number
  /** Answer status (default 502). */
  status?: number
  headers?: Record<string, string>
  message?: string
  /** Perform the write first, then answer with the fault (the work happened, the answer was lost). */
  afterApply?: boolean
  /** Hold the answer this long (a hung server; trips the client's timeout). */
  delayMs?: number
}

interface ArmedFault extends Fault {
  seen: number
}

export interface FakeOptions {
  token?: string
  /** The login that authors issues created through the API. */
  login?: string
  rateLimit?: number
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  if (res.destroyed || res.writableEnded) return
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
  res.end(JSON.stringify(body))
}

export class FakeGitHub {
  readonly calls: Call[] = []
  readonly repos = new Map<string, FakeRepo>()
  readonly token: string
  readonly login: string
  rateLimit: { limit: number; remaining: number; reset: number }
  private faults: ArmedFault[] = []
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

  /** The environment a dacli run needs to talk to this fake. */
  env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    return {
      GITHUB_API_URL: this.url,
      GH_TOKEN: this.token,
      GITHUB_TOKEN: undefined,
      DACLI_GITHUB_WRITE_INTERVAL_MS: '0',
      ...extra,
    }
  }

  addRepo(fullName: string, visibility: Visibility = 'private'): FakeRepo {
    const [owner, name] = fullName.split('/') as [string, string]
    const repo: FakeRepo = { owner, name, visibility, issues: [] }
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
    const full: FakeIssue = {
      number: repo.issues.length + 1,
      body: null,
      state: 'open',
      labels: [],
      user: 'alice',
      comments: [],
      ...issue,
    }
    repo.issues.push(full)
    return full
  }

  /** Arm a fault; it fires on the matching calls it names, then disarms. */
  fail(fault: Fault): void {
    this.faults.push({ ...fault, seen: 0 })
  }

  clearFaults(): void {
    this.faults = []
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
      this.handle(req, res).catch((e: unknown) => json(res, 500, { message: `fake crashed: ${String(e)}` }))
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

  private armedFor(method: string, path: string): ArmedFault | null {
    for (const f of this.faults) {
      if (f.method !== undefined && f.method !== method) continue
      if (f.path !== undefined && !f.path.test(path)) continue
      f.seen++
      const first = f.nth ?? 1
      if (f.seen >= first && f.seen < first + (f.times ?? 1)) return f
    }
    return null
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
    const send = (status: number, data: unknown, headers: Record<string, string> = {}) => {
      call.status = status
      json(res, status, data, { ...this.rateHeaders(), ...headers })
    }

    const fault = this.armedFor(method, url.pathname)
    if (fault?.delayMs !== undefined) await new Promise((r) => setTimeout(r, fault.delayMs))
    const answerFault = () =>
      send(fault?.status ?? 502, { message: fault?.message ?? 'Server Error (injected)' }, fault?.headers ?? {})
    if (fault && !fault.afterApply) return answerFault()

    // Authentication: a wrong token is always 401; no token only reads /rate_limit and public repositories.
    const auth = call.authorization
    const authed = auth === `token ${this.token}` || auth === `bearer ${this.token}` || auth === `Bearer ${this.token}`
    if (auth !== null && !authed) return send(401, { message: 'Bad credentials' })
    if (authed && url.pathname !== '/rate_limit') this.rateLimit.remaining = Math.max(0, this.rateLimit.remaining - 1)

    if (url.pathname === '/rate_limit' && method === 'GET') {
      const core = { ...this.rateLimit, used: this.rateLimit.limit - this.rateLimit.remaining }
      return send(200, { resources: { core }, rate: core })
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
      user: { login: i.user },
      html_url: `http://${host}/${full}/issues/${i.number}`,
      ...(i.pull_request ? { pull_request: { url: `http://${host}/${full}/pull/${i.number}` } } : {}),
    })

    if (m[3] === undefined) {
      if (method !== 'GET') return send(404, { message: 'Not Found' })
      return send(200, {
        name: repo.name,
        full_name: full,
        owner: { login: repo.owner },
        private: repo.visibility !== 'public',
        visibility: repo.visibility,
        html_url: `http://${host}/${full}`,
      })
    }

    if (m[4] === undefined) {
      if (method === 'GET') return fault ? answerFault() : this.listIssues(url, repo, host, send, issueJSON)
      if (method === 'POST') {
        if (!authed) return send(401, { message: 'Requires authentication' })
        const b = (body ?? {}) as { title?: unknown; body?: unknown; labels?: unknown }
        if (typeof b.title !== 'string' || b.title === '') {
          return send(422, {
            message: 'Validation Failed',
            errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }],
          })
        }
        const issue: FakeIssue = {
          number: repo.issues.length + 1,
          title: b.title,
          body: typeof b.body === 'string' ? b.body : null,
          state: 'open',
          labels: labelNames(b.labels),
          user: this.login,
          comments: [],
        }
        repo.issues.push(issue)
        if (fault) return answerFault()
        return send(201, issueJSON(issue))
      }
      return send(404, { message: 'Not Found' })
    }

    const issue = repo.issues.find((i) => i.number === Number(m[4]))
    if (issue === undefined) return send(404, { message: 'Not Found' })
    if (m[5] !== undefined) {
      if (method === 'GET') return send(200, issue.comments)
      if (method === 'POST') {
        const text = (body as { body?: unknown } | null)?.body
        if (typeof text !== 'string') return send(422, { message: 'Validation Failed' })
        const c = { id: issue.comments.length + 1, body: text, user: this.login }
        issue.comments.push(c)
        if (fault) return answerFault()
        return send(201, c)
      }
      return send(404, { message: 'Not Found' })
    }
    if (method === 'GET') return send(200, issueJSON(issue))
    if (method === 'PATCH') {
      if (!authed) return send(401, { message: 'Requires authentication' })
      const b = (body ?? {}) as { title?: unknown; body?: unknown; labels?: unknown; state?: unknown }
      if (typeof b.title === 'string') issue.title = b.title
      if (typeof b.body === 'string') issue.body = b.body
      if (b.labels !== undefined) issue.labels = labelNames(b.labels)
      if (b.state === 'open' || b.state === 'closed') issue.state = b.state
      if (fault) return answerFault()
      return send(200, issueJSON(issue))
    }
    return send(404, { message: 'Not Found' })
  }

  private listIssues(
    url: URL,
    repo: FakeRepo,
    host: string,
    send: (s: number, d: unknown, h?: Record<string, string>) => void,
    issueJSON: (i: FakeIssue) => unknown,
  ): void {
    const per = Math.min(Math.max(Number(url.searchParams.get('per_page') ?? 30) || 30, 1), 100)
    const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1)
    const state = url.searchParams.get('state') ?? 'open'
    // GitHub's default order: newest first.
    const asc = url.searchParams.get('direction') === 'asc'
    const all = repo.issues
      .filter((i) => state === 'all' || i.state === state)
      .sort((a, b) => (asc ? a.number - b.number : b.number - a.number))
    const last = Math.max(1, Math.ceil(all.length / per))
    const link = (p: number, rel: string) => {
      const q = new URLSearchParams(url.searchParams)
      q.set('page', String(p))
      q.set('per_page', String(per))
      return `<http://${host}${url.pathname}?${q}>; rel="${rel}"`
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
