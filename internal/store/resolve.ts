// Resolving a task reference to one task file: file names answer sequence and slug forms without parsing;
// ids and aliases need the cached summaries. A reference that matches nothing says what is near it.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { closest } from '../base/closest.js'
import { cmd } from '../base/commands.js'
import { MAX_SUGGESTIONS } from '../base/distance.js'
import { FailureError, NotFoundError } from '../base/errors.js'
import { safeSegment } from '../format/ids.js'
import type { Broken, TaskSummary } from '../format/model.js'
import { matchRef, type ParsedRef, parseRef, pickOne, qualifiedRef } from '../format/refs.js'
import { fileRefOf, REFUSED_CONTENT, type Store } from './store.js'
import type { TaskFileRef } from './taskindex.js'
import { HOLDS_ALIASES, type IdEntry, type IdWant, idIs } from './taskitems.js'

/**
 * Resolve a reference to one task file. File names answer sequence and slug
 * forms without parsing; ids and aliases need the cached summaries.
 * `prefer` resolves an unqualified reference inside that project first.
 */
export async function resolveRef(
  store: Store,
  ref: string,
  opts: { prefer?: string } = {},
): Promise<TaskFileRef & { id?: string }> {
  const r = parseRef(ref)
  if (r.project !== null) {
    safeSegment(r.project, 'project slug')
    try {
      store.requireProject(r.project)
    } catch (e) {
      // `ledgr/2`: the closest projects, with the rest of the reference kept.
      const near = (e as NotFoundError).details?.closest
      if (Array.isArray(near)) {
        ;(e as NotFoundError).details.given = ref
        ;(e as NotFoundError).details.closest = near.map((c: { value: string }) => ({
          value: `${c.value}/${r.form}`,
        }))
      }
      throw e
    }
  }
  const scopes = r.project !== null ? [r.project] : store.projectSlugs()
  // Each task's id, aliases and place, read per file through the index (store.idsIn): no summary is built.
  const candidatesIn = async (projects: string[], want?: IdWant) => {
    const out: IdEntry[] = []
    for (const p of projects) out.push(...(await (want === undefined ? store.idsIn(p) : store.idsWhere(p, want))))
    return out
  }
  const tryScopes = async (projects: string[]): Promise<(TaskFileRef & { id?: string })[]> => {
    if (r.kind !== 'id') {
      // A bare number may also be another task's alias (a renumbering merge): then it names both. The tasks that
      // keep old numbers are looked for first (every task's ids only when there are some: which copy of a task
      // counts is decided among them all), so the files below come from the same walk of each project.
      const all =
        r.kind === 'seq' && (await candidatesIn(projects, HOLDS_ALIASES)).length > 0 ? await candidatesIn(projects) : []
      // Only the files whose name can match (a reference of these forms names a file by its number and slug): a
      // reference object is made for them alone, not for each file of the project.
      const files: TaskFileRef[] = []
      for (const p of projects) files.push(...(await store.taskFiles(p, nameCanMatch(r))))
      // Copies: a server's file references are kept across calls.
      const hits = matchRef(r, files).map((h) => ({ ...h }))
      // One file name in two folders (an interrupted move, a bad merge): let the listing pick the copy.
      const names = new Set(hits.map((h) => `${h.project}/${h.name}`))
      if (hits.length > 0 && names.size === hits.length) {
        if (r.kind !== 'seq') return hits
        const live = new Set(hits.map((h) => h.path))
        const aliased = all.filter((s) => !live.has(s.path) && s.aliases.includes(r.seq as number))
        if (aliased.length === 0) return hits
        const ids = new Map(all.map((s) => [s.path, s.id]))
        return [
          ...hits.map((h) => ({ ...h, id: ids.get(h.path) ?? '' })),
          ...aliased.map((s) => ({ ...fileRefOf(store.root, s), id: s.id })),
        ]
      }
    }
    // Ids and aliases: consult each task's id and aliases (an id: only that id's entries are made).
    const cands = await candidatesIn(projects, r.kind === 'id' ? idIs(r.id as string) : undefined)
    return matchRef(r, cands).map((s) => ({ ...fileRefOf(store.root, s), id: s.id }))
  }
  if (r.project === null && opts.prefer !== undefined && scopes.includes(opts.prefer)) {
    const local = await tryScopes([opts.prefer])
    if (local.length === 1) return local[0] as TaskFileRef
  }
  const hits = await tryScopes(scopes)
  if (hits.length === 0) {
    if (r.kind === 'id') await refuseUnreadableId(store, r.id as string, scopes)
    // A removed task is not found, but the error says so and where its tombstone is.
    const { findTombstone, removedError } = await import('./tombstones.js')
    const tomb = await findTombstone(store, ref)
    throw tomb === null ? await noTaskMatches(store, ref, r, scopes) : removedError(ref, tomb)
  }
  if (hits.length > 1 && hits.some((h) => h.id === undefined)) {
    // Ambiguous by file name: the refusal names each task's id as well as its reference (read for these projects
    // only, on this path alone).
    const ids = new Map<string, string>()
    for (const p of new Set(hits.map((h) => h.project))) for (const e of await store.idsIn(p)) ids.set(e.path, e.id)
    const named = hits.map((h) => {
      const id = h.id ?? ids.get(h.path)
      return id === undefined ? h : { ...h, id }
    })
    return pickOne(ref, named)
  }
  return pickOne(ref, hits)
}

/** Whether a task file's name (`NNN-slug.md`) can match a reference by number, by number and slug, or by slug. */
function nameCanMatch(r: ParsedRef): (name: string) => boolean {
  const seqOf = (name: string) => Number(name.slice(0, name.indexOf('-')))
  const slugOf = (name: string) => name.slice(name.indexOf('-') + 1, -3)
  if (r.kind === 'seq') return (name) => seqOf(name) === r.seq
  if (r.kind === 'seq-slug') return (name) => seqOf(name) === r.seq && slugOf(name) === r.slug
  return (name) => slugOf(name) === r.slug
}

/**
 * A task id that no listed task has may still be a task dacli refused to read (a wrong-typed field,
 * bytes that are not UTF-8): then the answer is "unreadable task file" (1), never "no such task" (4).
 */
async function refuseUnreadableId(store: Store, id: string, scopes: readonly string[]): Promise<void> {
  for (const p of scopes) {
    const b = refusedFileOf(store, id, (await store.listTasks(p)).broken)
    if (b !== null) {
      throw new FailureError(`unreadable task file ${b.path}: ${b.reason}`, {
        details: { path: b.path, code: b.code },
        next: ['fix the file by hand (dacli never overwrites an unreadable file)', cmd('doctor')],
      })
    }
  }
}

/**
 * The task file among `broken` that dacli read and refused (a wrong-typed field, bytes that are not UTF-8) whose
 * frontmatter says `id: <id>`, or null: what a task id that no listed task has may still name.
 */
export function refusedFileOf(store: Store, id: string, broken: readonly Broken[]): Broken | null {
  // Only a task id (`t-<ULID>` or the bare ULID) names a file by its `id:` line; anything else names none.
  const ulid = /^(?:t-)?([0-9A-HJKMNP-TV-Z]{26})$/i.exec(id.trim())?.[1]
  if (ulid === undefined) return null
  const line = new RegExp(`^id:[ \\t]*["']?t-${ulid.toUpperCase()}["']?[ \\t]*$`, 'm')
  for (const b of broken) {
    // Only files that were read and refused (never a link, a pipe or a second copy: nothing to match).
    if (!REFUSED_CONTENT.has(b.code)) continue
    let head = ''
    try {
      head = fs.readFileSync(path.join(store.root, b.path), 'latin1').slice(0, 4096)
    } catch {
      continue // a link, a pipe, gone: nothing to match
    }
    if (line.test(head)) return b
  }
  return null
}

/** Not found, with the closest tasks in scope (by number, slug and title words) for "did you mean". */
async function noTaskMatches(
  store: Store,
  ref: string,
  r: ParsedRef,
  scopes: readonly string[],
): Promise<NotFoundError> {
  const tasks: TaskSummary[] = []
  for (const p of scopes) tasks.push(...(await store.listTasks(p)).tasks)
  const short = (t: TaskSummary) => `${t.project}/${t.seq}`
  let near: TaskSummary[] = []
  if (r.kind === 'seq') {
    near = tasks
      .filter((t) => Math.abs(t.seq - (r.seq as number)) <= 2)
      .sort((a, b) => Math.abs(a.seq - (r.seq as number)) - Math.abs(b.seq - (r.seq as number)) || a.seq - b.seq)
      .slice(0, MAX_SUGGESTIONS)
  } else if (r.kind !== 'id') {
    const q = r.slug ?? r.form
    near = closest(
      q,
      tasks.map((t) => ({ value: short(t), names: [t.slug], title: t.title, t })),
    ).map((c) => c.t)
  }
  // Folders under projects/ that are not read as projects (no project.md, a link …) were not searched: said, since
  // the task may be in one of them.
  const unread = r.project === null ? store.projectEntries().broken : []
  const also = unread.length === 0 ? '' : ` (not searched: ${unread.map((b) => `${b.path}, ${b.reason}`).join('; ')})`
  return new NotFoundError(`no task matches "${ref}"${also}`, {
    details: {
      ref,
      given: ref,
      closest: near.map((t) => ({ value: short(t), ref: qualifiedRef(t), title: t.title })),
      ...(unread.length === 0 ? {} : { skipped: unread }),
    },
    next: [cmd('task list'), cmd('task list --project <project>'), ...(unread.length === 0 ? [] : [cmd('doctor')])],
  })
}
