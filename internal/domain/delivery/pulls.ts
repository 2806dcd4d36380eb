// A task's pull request: which repository (the project's link, else the `origin` remote's), how the pull request
// is found (the task's branch, a pull request URL written in the task, the task's marker in a pull request's
// body), and the facts a diagnosis needs, read from GitHub through the client.

import type { GitHubClient, Pull } from '../../adapters/github/client.js'
import { cmd } from '../../base/commands.js'
import { UsageError } from '../../base/errors.js'
import type { TaskRecord } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { apiUrlOf, connect, type Session } from '../github/connect.js'
import type { GithubContext } from '../github/context.js'
import { pullMarker } from '../github/projection.js'
import { originRepo, REPO_NAME } from '../github/repository.js'
import { type Diagnosis, diagnose, noPull, type PrFacts } from './diagnosis.js'

export type FoundBy = 'branch' | 'link' | 'marker'

export interface Located {
  task: TaskRecord
  ref: string
  repo: string
  pull: Pull | null
  found_by: FoundBy | null
  searched: string[]
}

/** The repository a project's pull requests live in: its link, else the `origin` remote's. */
export async function repoOf(ctx: GithubContext, project: string): Promise<string> {
  const store = await ctx.store()
  const p = await store.readProject(project)
  const linked = p.github?.repo ?? null
  if (linked !== null && REPO_NAME.test(linked)) return linked
  const o = originRepo(store, apiUrlOf(ctx.env))
  if ('repo' in o) return o.repo
  throw new UsageError(`project "${project}" is not linked to a GitHub repository, and ${o.problem}`, {
    details: { project },
    next: [cmd(`github link ${project} --repo OWNER/NAME`)],
  })
}

/** Is the pull request's head branch in `repo` itself (not a fork's branch that may share a task branch's name)? */
export const headIn = (p: Pull, repo: string): boolean => p.head.repo?.toLowerCase() === repo.toLowerCase()

/** The branch that holds the task's work: its worktree's, else the one `branch:` keeps (FORMAT.md), or null. */
export const branchOf = (t: TaskRecord): string | null => t.worktree?.branch ?? t.branch ?? null

/** Every text of the task a person may have pasted a pull request URL into. */
function textsOf(t: TaskRecord): string[] {
  return [t.context ?? '', t.so_that ?? '', ...t.extra_sections.map((s) => s.content), ...t.log.map((l) => l.details)]
}

/** Pull request numbers of `repo` linked from the task (`…/owner/name/pull/N`), newest mention last. */
export function linkedNumbers(t: TaskRecord, repo: string): number[] {
  const out: number[] = []
  const want = repo.toLowerCase()
  for (const text of textsOf(t)) {
    for (const m of text.matchAll(/https?:\/\/[^\s/]+\/([A-Za-z0-9._-]+\/[A-Za-z0-9._-]+)\/pull\/(\d+)/g)) {
      if ((m[1] as string).toLowerCase() === want) out.push(Number(m[2]))
    }
  }
  return out
}

/** Does the pull request body end with the task's marker, as `pr open` writes it (any workspace's: a task id is unique)? */
export const markedFor = (p: Pull, taskId: string): boolean => pullMarker(p.body)?.task === taskId

/** Of several pull requests for one task: an open one, else the newest merged, else the newest. */
function pick(pulls: readonly Pull[]): Pull | null {
  const byNew = [...pulls].sort((a, b) => b.number - a.number)
  return byNew.find((p) => p.state === 'open') ?? byNew.find((p) => p.merged) ?? byNew[0] ?? null
}

export async function locate(client: GitHubClient, repo: string, t: TaskRecord): Promise<Located> {
  const ref = qualifiedRef(t)
  const searched: string[] = []
  const base = { task: t, ref, repo }
  const branch = branchOf(t)
  const owner = repo.split('/')[0] as string
  if (branch !== null) {
    searched.push(`pull requests of ${repo} from ${owner}:${branch}`)
    const p = pick(await client.listPulls(repo, { state: 'all', head: `${owner}:${branch}` }))
    if (p !== null) return { ...base, pull: p, found_by: 'branch', searched }
  }
  const linked = linkedNumbers(t, repo)
  if (linked.length > 0) {
    searched.push(`pull requests linked from the task: ${linked.map((n) => `#${n}`).join(', ')}`)
    const last = linked[linked.length - 1] as number
    return { ...base, pull: await client.pull(repo, last), found_by: 'link', searched }
  }
  searched.push(`pull request bodies of ${repo} for the marker of ${t.id}`)
  const marked = (await client.listPulls(repo, { state: 'all' })).filter((p) => markedFor(p, t.id))
  const p = pick(marked)
  return { ...base, pull: p, found_by: p === null ? null : 'marker', searched }
}

/** GitHub computes mergeability after a push: a null is asked again a few times before it is reported. */
async function settled(client: GitHubClient, repo: string, p: Pull, sleep: (ms: number) => Promise<void>) {
  let cur = p
  for (let i = 0; i < 3 && cur.state === 'open' && cur.mergeable === null; i++) {
    await sleep(250 * (i + 1))
    cur = await client.pull(repo, cur.number)
  }
  return cur
}

export async function factsOf(client: GitHubClient, repo: string, found: Pull): Promise<PrFacts> {
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
  const pull =
    found.state === 'open' ? await settled(client, repo, await client.pull(repo, found.number), sleep) : found
  if (pull.state !== 'open') return { pull, reviews: [], checks: [], statuses: [], behind: null }
  const [reviews, checks, statuses] = await Promise.all([
    client.reviews(repo, pull.number),
    client.checkRuns(repo, pull.head.sha),
    client.statuses(repo, pull.head.sha),
  ])
  const behind =
    pull.mergeable_state === 'behind' ? (await client.compare(repo, pull.head.sha, pull.base.ref)).commits : null
  return { pull, reviews, checks, statuses, behind }
}

export interface Diagnosed {
  located: Located
  diagnosis: Diagnosis
}

/** Find and diagnose a task's pull request with a connected session. */
export async function diagnoseWith(s: Session, repo: string, t: TaskRecord): Promise<Diagnosed> {
  const located = await locate(s.client, repo, t)
  if (located.pull === null) return { located, diagnosis: noPull(located.ref, located.searched) }
  const facts = await factsOf(s.client, repo, located.pull)
  located.pull = facts.pull
  const unchecked = t.acceptance.filter((a) => !a.checked).map((a) => a.n)
  return { located, diagnosis: diagnose(located.ref, facts, t.status === 'done', unchecked) }
}

/** Connect, read the task, diagnose. */
export async function diagnoseTask(ctx: GithubContext, ref: string) {
  const store = await ctx.store()
  const t = await store.readTask(ref)
  const repo = await repoOf(ctx, t.project)
  const session = await connect(ctx, { requireToken: false })
  return { session, repo, ...(await diagnoseWith(session, repo, t)) }
}
