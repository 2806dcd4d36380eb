// Task references (FORMAT.md, References): `t-<ULID>`, the bare ULID, the
// sequence (`7`, `007`), `NNN-slug` or the slug, each optionally qualified as
// `<project>/<form>`. A bare form that matches in two projects is ambiguous
// (exit 2, listing the qualified candidates).

import { cmd } from '../base/commands.js'
import { NotFoundError, UsageError } from '../base/errors.js'
import { seqText } from './model.js'

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/i

export interface ParsedRef {
  project: string | null
  form: string
  kind: 'id' | 'seq' | 'seq-slug' | 'slug'
  id?: string
  seq?: number
  slug?: string
}

export function parseRef(ref: string): ParsedRef {
  const raw = ref.trim()
  if (raw === '') throw new UsageError('empty task reference')
  let project: string | null = null
  let form = raw
  const slash = raw.indexOf('/')
  if (slash !== -1) {
    project = raw.slice(0, slash)
    form = raw.slice(slash + 1)
    if (project === '' || form === '' || form.includes('/')) {
      throw new UsageError(`malformed task reference "${raw}" (use <project>/<ref>)`)
    }
  }
  if (/^t-/i.test(form) && ULID.test(form.slice(2)))
    return { project, form, kind: 'id', id: `t-${form.slice(2).toUpperCase()}` }
  if (ULID.test(form) && !/^\d+$/.test(form)) return { project, form, kind: 'id', id: `t-${form.toUpperCase()}` }
  if (/^\d+$/.test(form)) return { project, form, kind: 'seq', seq: Number(form) }
  const m = /^(\d+)-(.+)$/.exec(form)
  if (m) return { project, form, kind: 'seq-slug', seq: Number(m[1]), slug: m[2] as string }
  return { project, form, kind: 'slug', slug: form.toLowerCase() }
}

export interface Candidate {
  id?: string
  project: string
  seq: number
  slug: string
  aliases?: readonly number[]
}

export const qualifiedRef = (c: { project: string; seq: number; slug: string }) =>
  `${c.project}/${seqText(c.seq)}-${c.slug}`

/** Candidates matching by file name (seq, NNN-slug, slug) or by id when ids are known. */
export function matchRef<C extends Candidate>(r: ParsedRef, cands: readonly C[]): C[] {
  switch (r.kind) {
    case 'id':
      return cands.filter((c) => c.id === r.id)
    case 'seq':
      // A number that is live on one task and an alias of another (after a renumbering merge) matches both:
      // the reference is ambiguous, never silently the live one.
      return cands.filter((c) => c.seq === r.seq || c.aliases?.includes(r.seq as number))
    case 'seq-slug': {
      const exact = cands.filter((c) => c.seq === r.seq && c.slug === r.slug)
      return exact.length > 0 ? exact : cands.filter((c) => c.slug === r.slug && c.aliases?.includes(r.seq as number))
    }
    case 'slug':
      return cands.filter((c) => c.slug === r.slug)
  }
}

/** Exactly one match, or a typed error. */
export function pickOne<C extends Candidate>(ref: string, matches: readonly C[]): C {
  if (matches.length === 1) return matches[0] as C
  if (matches.length === 0) {
    throw new NotFoundError(`no task matches "${ref}"`, {
      details: { ref },
      next: [cmd('task list'), cmd('task list --project <project>')],
    })
  }
  const candidates = [...new Set(matches.map(qualifiedRef))].sort()
  const r = parseRef(ref)
  const tasks = matches
    .map((m) => ({
      ref: qualifiedRef(m),
      id: m.id ?? null,
      matched: r.kind === 'seq' && m.seq !== r.seq ? ('alias' as const) : ('reference' as const),
    }))
    .sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0))
  const listed = tasks.map((t) =>
    [t.ref, t.id, t.matched === 'alias' ? `formerly number ${r.seq}` : ''].filter(Boolean).join(' '),
  )
  // `given` and `closest` make the CLI suggest the caller's own command with each full reference (didyoumean).
  throw new UsageError(`task reference "${ref}" is ambiguous: ${listed.join('; ')}`, {
    details: { ref, candidates, tasks, given: ref, closest: candidates.map((value) => ({ value })) },
    next: candidates.slice(0, 5).map((c) => cmd(`task show ${c}`)),
  })
}

/**
 * Resolve a reference among already-listed tasks (no disk access): the planners
 * resolve every dependency this way. Prefers the given project for unqualified
 * forms; null when nothing or more than one task matches.
 */
export function resolveAmong<C extends Candidate & { id: string }>(
  cands: readonly C[],
  ref: string,
  prefer?: string,
): C | null {
  let r: ParsedRef
  try {
    r = parseRef(ref)
  } catch {
    return null
  }
  const scope = r.project === null ? cands : cands.filter((c) => c.project === r.project)
  if (r.project === null && prefer !== undefined) {
    const local = matchRef(
      r,
      scope.filter((c) => c.project === prefer),
    )
    if (local.length === 1) return local[0] as C
  }
  const hits = matchRef(r, scope)
  return hits.length === 1 ? (hits[0] as C) : null
}
