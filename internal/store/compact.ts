// The compact form of a task summary the workspace index keeps: one JSON array per task file, fields by position
// (the file's location gives the rest), and its expansion back to a summary.

import type { TaskSummary } from '../format/model.js'
import type { TaskFileRef } from './taskindex.js'

/**
 * The summary fields the index keeps, by position (the file's location gives seq, slug, project, status and
 * path). Positions from OWNER on hold 0 for the field's default (none of them can be 0 otherwise), and
 * trailing defaults are left out: the index stays small and every entry parses into one array.
 */
const FIELDS = [
  'id',
  'title',
  'version',
  'acceptance_done',
  'acceptance_total',
  'owner',
  'claim',
  'priority',
  'estimate',
  'depends_on',
  'parent',
  'aliases',
  'github',
  'created',
  'created_by',
  'tags',
  'unverified',
  'blocked_by',
  'worktree',
  'touches',
  'labels',
  'milestone',
] as const
const OWNER = FIELDS.indexOf('owner')

/** A summary as the index keeps it (see FIELDS). */
export type Compact = unknown[]

const isDefault = (v: unknown) => v === null || v === false || (Array.isArray(v) && v.length === 0)

export function compact(s: TaskSummary): Compact {
  const out = FIELDS.map((k, i) => (i >= OWNER && isDefault(s[k]) ? 0 : s[k]))
  while (out.length > OWNER && out[out.length - 1] === 0) out.pop()
  return out
}

/** The value at position `i`, or the field's default. */
function at<T>(c: Compact, i: number, dflt: T): T {
  const v = c[i]
  return v === undefined || v === 0 ? dflt : (v as T)
}

/**
 * The one empty list every expanded summary without dependencies, aliases or tags shares (frozen: a summary is
 * read, never changed in place), rather than three new ones per task of a 10,000-task listing.
 */
const NONE: readonly never[] = Object.freeze([])

export function expand(c: Compact, f: Pick<TaskFileRef, 'seq' | 'slug' | 'project' | 'status' | 'path'>): TaskSummary {
  return {
    id: c[0] as string,
    seq: f.seq,
    slug: f.slug,
    project: f.project,
    status: f.status,
    path: f.path,
    title: c[1] as string,
    owner: at(c, 5, null),
    claim: at(c, 6, null),
    priority: at(c, 7, null),
    estimate: at(c, 8, null),
    depends_on: at(c, 9, NONE as never[]),
    parent: at(c, 10, null),
    version: c[2] as number,
    aliases: at(c, 11, NONE as never[]),
    github: at(c, 12, null),
    created: at(c, 13, null),
    created_by: at(c, 14, null),
    tags: at(c, 15, NONE as never[]),
    acceptance_done: c[3] as number,
    acceptance_total: c[4] as number,
    unverified: at(c, 16, false),
    blocked_by: at(c, 17, null),
    worktree: at(c, 18, null),
    touches: at(c, 19, NONE as never[]),
    labels: at(c, 20, NONE as never[]),
    milestone: at(c, 21, null),
  }
}

/** A kept summary's text as the compact array, or undefined when it is not one (the file is read again). */
export function compactOf(text: string): Compact | undefined {
  try {
    const v = JSON.parse(text) as unknown
    return Array.isArray(v) && typeof v[0] === 'string' && typeof v[1] === 'string' ? v : undefined
  } catch {
    return undefined
  }
}
