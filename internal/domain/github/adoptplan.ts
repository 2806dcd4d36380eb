// Adopting GitHub issues as tasks: which issue
// becomes a task, links to one, or is left alone. Pure: the same function
// decides for the preview and for the apply, so a dry run cannot drift from
// the real pull.
//
// Per issue, in issue-number order, the first rule that fits:
//   mapped to a task of the project                 → already_mapped
//   body carries any dacli marker                   → skipped ("dacli marker": some dacli's projection)
//   closed                                          → skipped ("closed issue")
//   exact title match with a free open/active task  → link ("exact title match")
//   exact title match, every such task taken        → refused ("exact match already taken")
//   near-duplicate title of an open/active task     → refused ("possible duplicate")
//   otherwise                                       → create

import { nearestDuplicate } from '../../base/similarity.js'
import { type Acceptance, extractAcceptance } from './acceptance.js'

export interface IssueFacts {
  number: number
  title: string
  body: string
  state: 'open' | 'closed'
}

export interface TaskFacts {
  id: string
  seq: number
  title: string
  status: string
  github: { issue: number | null; repo: string | null } | null
}

export type Category = 'create' | 'link' | 'already_mapped' | 'refused' | 'skipped'
export const CATEGORIES: readonly Category[] = ['create', 'link', 'already_mapped', 'refused', 'skipped']

export interface Planned<I extends IssueFacts = IssueFacts> {
  issue: I
  outcome: Category
  /** The task it maps to, links to, or collides with. */
  taskId: string | null
  /** Title similarity with that task (1 = exact). */
  score: number | null
  reason: string | null
  acceptance: Acceptance
}

const DACLI_MARKER = '<!-- dacli:'

/** `owner/name` comparison: GitHub names are case-insensitive. */
export const sameRepo = (a: string | null, b: string | null) =>
  a !== null && b !== null && a.toLowerCase() === b.toLowerCase()

const norm = (t: string) => t.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()

/** Issue number → the task of the project mapped to it in `repo` (a block without a repo counts as this one). */
function mappedIssues<T extends TaskFacts>(tasks: readonly T[], repo: string): Map<number, T> {
  const out = new Map<number, T>()
  for (const t of [...tasks].sort((a, b) => a.seq - b.seq)) {
    const g = t.github
    if (g === null || g.issue === null) continue
    if (g.repo !== null && !sameRepo(g.repo, repo)) continue
    if (!out.has(g.issue)) out.set(g.issue, t)
  }
  return out
}

export function classify<I extends IssueFacts>(
  issues: readonly I[],
  tasks: readonly TaskFacts[],
  repo: string,
  /** Tasks of other projects linked to the same repository that map its issues: theirs are already mapped. */
  elsewhere: readonly TaskFacts[] = [],
): Planned<I>[] {
  const mapped = mappedIssues([...tasks, ...elsewhere], repo)
  const live = tasks.filter((t) => t.status === 'open' || t.status === 'active').sort((a, b) => a.seq - b.seq)
  const claimed = new Set<string>()
  const out: Planned<I>[] = []
  for (const issue of [...issues].sort((a, b) => a.number - b.number)) {
    const base = { issue, taskId: null, score: null, reason: null, acceptance: extractAcceptance(issue.body) }
    const owner = mapped.get(issue.number)
    if (owner !== undefined) {
      out.push({ ...base, outcome: 'already_mapped', taskId: owner.id })
      continue
    }
    if (issue.body.includes(DACLI_MARKER)) {
      out.push({ ...base, outcome: 'skipped', reason: 'dacli marker' })
      continue
    }
    if (issue.state === 'closed') {
      out.push({ ...base, outcome: 'skipped', reason: 'closed issue' })
      continue
    }
    const exact = live.filter((t) => norm(t.title) === norm(issue.title))
    if (exact.length > 0) {
      const free = exact.find((t) => (t.github?.issue ?? null) === null && !claimed.has(t.id))
      if (free !== undefined) {
        claimed.add(free.id)
        out.push({ ...base, outcome: 'link', taskId: free.id, score: 1, reason: 'exact title match' })
      } else {
        const taken = exact[0] as TaskFacts
        out.push({ ...base, outcome: 'refused', taskId: taken.id, score: 1, reason: 'exact match already taken' })
      }
      continue
    }
    const twin = nearestDuplicate(issue.title, live)
    if (twin !== null) {
      // The token sets' Jaccard similarity; 1 means the exact title (above), so the same words in another form
      // (reordered, a plural, a stop-word more) score just under it.
      const score = Math.min(0.999, Math.round(twin.jaccard * 1000) / 1000)
      out.push({ ...base, outcome: 'refused', taskId: twin.id, score, reason: 'possible duplicate' })
      continue
    }
    out.push({ ...base, outcome: 'create' })
  }
  return out
}
