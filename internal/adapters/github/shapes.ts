// Answers are checked before they are used: a 2xx from something that is not
// GitHub's API (a proxy's HTML page, garbage, JSON of another shape) is a
// BadResponseError naming what was wrong — never `undefined` read as "public",
// never a made-up `0 of 0`. Hand-written checks: zod stays off the run path.

import { isoSeconds } from '../../base/time.js'
import { BadResponseError } from './failure.js'

export type Visibility = 'public' | 'private' | 'internal'

export interface RepoInfo {
  /** `owner/name` as GitHub spells it. */
  full_name: string
  visibility: Visibility
}

export interface Issue {
  number: number
  title: string
  /** The body ('' when the issue has none). */
  body: string
  state: 'open' | 'closed'
  labels: string[]
  /** The title of its milestone, or null. */
  milestone: string | null
  /** The login of the author, or null when GitHub does not say (a deleted account). Untrusted text. */
  author: string | null
}

export interface RateLimit {
  limit: number
  remaining: number
  used: number | null
  /** RFC 3339 UTC. */
  reset: string | null
}

type Obj = Record<string, unknown>

export const kindOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? describeText(v) : `a ${typeof v}`

function describeText(s: string): string {
  const t = s.trim()
  if (/^<(!doctype|html|head|body)\b/i.test(t)) return 'an HTML page'
  if (t === '') return 'an empty body'
  return `text that is not JSON (${JSON.stringify(t.slice(0, 40))}${t.length > 40 ? '…' : ''})`
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0

function object(v: unknown, what: string, status: number): Obj {
  if (!isObj(v)) throw new BadResponseError(`expected ${what} (a JSON object), got ${kindOf(v)}`, status)
  return v
}

export function rateLimitOf(data: unknown, status: number): RateLimit {
  const core = object(object(data, 'the rate limit', status).resources, 'resources', status).core
  const c = object(core, 'resources.core', status)
  if (!isCount(c.limit) || !isCount(c.remaining)) {
    throw new BadResponseError('resources.core has no whole-number limit and remaining', status)
  }
  return {
    limit: c.limit,
    remaining: c.remaining,
    used: isCount(c.used) ? c.used : null,
    reset: isCount(c.reset) ? isoSeconds(c.reset) : null,
  }
}

const FULL_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/

export function repoOf(data: unknown, status: number): RepoInfo {
  const d = object(data, 'a repository', status)
  if (typeof d.full_name !== 'string' || !FULL_NAME.test(d.full_name)) {
    throw new BadResponseError(`the repository has no valid full_name (got ${kindOf(d.full_name)})`, status)
  }
  let visibility: Visibility
  if (d.visibility === 'public' || d.visibility === 'private' || d.visibility === 'internal') visibility = d.visibility
  else if (d.visibility === undefined && typeof d.private === 'boolean') visibility = d.private ? 'private' : 'public'
  else throw new BadResponseError('the repository says neither its visibility nor whether it is private', status)
  return { full_name: d.full_name, visibility }
}

/** One element of the issues list or a create/update answer; null for a pull request (the list mixes them in). */
function issueOf(raw: unknown, status: number): Issue | null {
  const r = object(raw, 'an issue', status)
  if (!(typeof r.number === 'number' && Number.isInteger(r.number) && r.number > 0)) {
    throw new BadResponseError(`an issue without a positive whole number (got ${kindOf(r.number)})`, status)
  }
  const n = r.number
  if (r.pull_request !== undefined && r.pull_request !== null) return null
  if (typeof r.title !== 'string') throw new BadResponseError(`issue #${n} has no title`, status)
  if (r.body !== undefined && r.body !== null && typeof r.body !== 'string') {
    throw new BadResponseError(`issue #${n} has a body that is not text`, status)
  }
  if (r.state !== 'open' && r.state !== 'closed')
    throw new BadResponseError(`issue #${n} has no open/closed state`, status)
  const rawLabels = r.labels ?? []
  if (!Array.isArray(rawLabels)) throw new BadResponseError(`issue #${n} has labels that are not a list`, status)
  const labels: string[] = []
  for (const l of rawLabels) {
    const name = typeof l === 'string' ? l : isObj(l) ? l.name : undefined
    if (name === undefined || name === null || name === '') continue
    if (typeof name !== 'string') throw new BadResponseError(`issue #${n} has a label that is not text`, status)
    labels.push(name)
  }
  const ms = r.milestone
  if (ms !== undefined && ms !== null && !(isObj(ms) && typeof ms.title === 'string')) {
    throw new BadResponseError(`issue #${n} has a milestone without a title`, status)
  }
  const user = r.user
  const login = isObj(user) && typeof user.login === 'string' && user.login !== '' ? user.login : null
  return {
    number: n,
    title: r.title,
    body: typeof r.body === 'string' ? r.body : '',
    state: r.state,
    labels: labels.sort(),
    milestone: isObj(ms) && typeof ms.title === 'string' && ms.title !== '' ? ms.title : null,
    author: login,
  }
}

export function issueListOf(data: unknown, status: number): Issue[] {
  if (!Array.isArray(data)) throw new BadResponseError(`expected a list of issues, got ${kindOf(data)}`, status)
  const out: Issue[] = []
  for (const raw of data) {
    const i = issueOf(raw, status)
    if (i !== null) out.push(i)
  }
  return out
}

export function createdIssueOf(data: unknown, status: number): Issue {
  const i = issueOf(data, status)
  if (i === null) throw new BadResponseError('GitHub answered with a pull request where an issue was expected', status)
  return i
}

/**
 * GitHub's pages end. A Link back to a page already read, or an empty page that links on, would be followed
 * forever: checked on each page, before the next one is requested.
 */
export class PageTrail {
  private readonly read = new Set<string>()

  check(url: string, link: unknown, data: unknown, status: number): void {
    this.read.add(new URL(url).href)
    const next = /<([^<>]+)>;\s*rel="next"/.exec(String(link ?? ''))?.[1]
    if (next === undefined) return
    if (this.read.has(new URL(next, url).href)) {
      throw new BadResponseError(
        `the issues list links back to a page already read (${new URL(next, url).search})`,
        status,
      )
    }
    if (Array.isArray(data) && data.length === 0) {
      throw new BadResponseError('an empty page of the issues list links to a further page', status)
    }
  }
}

export interface Milestone {
  number: number
  title: string
}

/** The milestones list (or one created milestone, as a list of one). */
export function milestonesOf(data: unknown, status: number): Milestone[] {
  const list = Array.isArray(data) ? data : [data]
  return list.map((raw) => {
    const m = object(raw, 'a milestone', status)
    if (!(typeof m.number === 'number' && Number.isInteger(m.number) && m.number > 0) || typeof m.title !== 'string') {
      throw new BadResponseError('a milestone without a positive number and a title', status)
    }
    return { number: m.number, title: m.title }
  })
}
