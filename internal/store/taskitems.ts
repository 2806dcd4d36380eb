// What the index keeps per task file besides its summary, each entry checked against the file's stamp like the
// summaries (filecache.ts): the task-list item as `task list --json` prints it (`cache/items`), and each task's id,
// version and aliases (`ids/<project>` in the index: resolving a reference). A command that needs only these never builds the
// summaries of files that did not change.

import * as fs from 'node:fs'
import { type Broken, brokenOf, type Status, type TaskSummary } from '../format/model.js'
import { readTaskSummary, summaryNow } from '../format/taskfile.js'
import { type Section, type Stamp } from './filecache.js'
import { readText } from './fsio.js'
import type { Store } from './store.js'
import {
  compact,
  deduplicated,
  expand,
  fileAt,
  type Listing,
  MOVE_PASSES,
  type Paths,
  type SummarySection,
  stampKeyAt,
  type TaskFileRef,
  walkProject,
} from './taskindex.js'

/** A task file as resolving a reference needs it: where it is, its id, version and aliases (old numbers). */
export interface IdEntry {
  project: string
  status: Status
  seq: number
  slug: string
  /** Relative to the workspace root. */
  path: string
  id: string
  version: number
  aliases: number[]
}

/**
 * Every task of a project by id (copies of one id deduplicated as a listing does), each file's `[id, version,
 * aliases]` kept in `ids` beside its stamp: resolving an id, or asking whether a number is another task's alias,
 * otherwise needs every summary of the project. A file whose stamp does not match is read through the summaries
 * (the index, else the file); one that cannot be read is left out (the listing reports it).
 */
export async function listIds(
  p: Paths,
  project: string,
  ids: () => Section<unknown>,
  summaries: () => SummarySection,
): Promise<IdEntry[]> {
  // A pass that saw a file vanish is redone (MOVE_PASSES).
  for (let attempt = 1; ; attempt++) {
    const w = walkProject(p, project)
    let vanished = w.vanished
    const out: IdEntry[] = []
    const kept = w.names.length > 0 ? ids() : null
    let index: SummarySection | null = null
    for (let i = 0; i < w.names.length; i++) {
      const status = w.statuses[i] as Status
      const name = w.names[i] as string
      const key = `${status}/${name}`
      const text = kept?.textAt(key, stampKeyAt(w, i))
      const v = text === undefined ? null : parseIdEntry(text)
      // The walk took only names TASK_FILE matches (NNN-slug.md): number and slug are the name's two parts.
      const dash = name.indexOf('-')
      const at = { project, status, seq: Number(name.slice(0, dash)), slug: name.slice(dash + 1, -3) }
      if (v !== null) {
        out.push({ ...at, path: `${w.relBase}${key}`, id: v[0], version: v[1], aliases: v[2] })
        continue
      }
      index ??= summaries()
      const f = fileAt(w, i)
      const t = await summaryAt(f, index)
      if (t === null) {
        if (!fs.existsSync(f.abs)) vanished = true
        continue
      }
      kept?.setText(key, f.stamp as Stamp, JSON.stringify([t.id, t.version, t.aliases]))
      out.push({ ...at, path: t.path, id: t.id, version: t.version, aliases: [...t.aliases] })
    }
    if (!vanished || attempt >= MOVE_PASSES) return deduplicated(out).tasks
  }
}

/** A listing's tasks as IdEntry, made once per listing (a server keeps a project's listing across calls). */
const listingIds = new WeakMap<readonly TaskSummary[], IdEntry[]>()

export function idsOfListing(tasks: readonly TaskSummary[]): IdEntry[] {
  let out = listingIds.get(tasks)
  if (out === undefined) {
    out = tasks.map((t) => ({
      project: t.project,
      status: t.status,
      seq: t.seq,
      slug: t.slug,
      path: t.path,
      id: t.id,
      version: t.version,
      aliases: [...t.aliases],
    }))
    listingIds.set(tasks, out)
  }
  return out
}

/** A kept `[id, version, aliases]`, or null when it is not one (the file is read again). */
function parseIdEntry(text: string): [string, number, number[]] | null {
  try {
    const v = JSON.parse(text) as unknown
    if (
      Array.isArray(v) &&
      typeof v[0] === 'string' &&
      Number.isSafeInteger(v[1]) &&
      Array.isArray(v[2]) &&
      v[2].every((n) => Number.isSafeInteger(n))
    )
      return [v[0], v[1] as number, v[2] as number[]]
  } catch {
    // not one
  }
  return null
}

/**
 * One task file's summary: the index's entry while the file's stamp matches it, else parsed from the file (and
 * kept). Null when the file is gone or cannot be read as a task (a listing reports why).
 */
export async function summaryAt(f: TaskFileRef, index: SummarySection): Promise<TaskSummary | null> {
  let stamp = f.stamp
  if (stamp === undefined) {
    const st = fs.lstatSync(f.abs, { throwIfNoEntry: false })
    if (st === undefined || !st.isFile()) return null
    stamp = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs }
  }
  const key = `${f.status}/${f.name}`
  const hit = index.get(key, stamp)
  if (hit !== undefined) return expand(hit, f)
  try {
    const text = readText(f.abs, stamp.size)
    const summary = summaryNow(text, f) ?? (await readTaskSummary(text, f))
    index.set(key, stamp, compact(summary))
    return summary
  } catch {
    return null
  }
}

/** One task as a task list shows it: where it is, what decides between two copies of it, and its item's JSON. */
export interface ItemRow {
  id: string
  version: number
  seq: number
  status: Status
  project: string
  /** Relative to the workspace root. */
  path: string
  /** The task-list item's JSON text (what `render` made of the task's summary). */
  json: string
}

/** The kept item of one file: `<id>\t<version>\t<item JSON>`. */
export type ItemSection = Section<never>

/**
 * The task-list items of a project's tasks (deduplicated by id as listProject does, in sequence order), each the
 * JSON text `render` makes of the task's summary, kept in `items` beside the file's stamp. A file whose stamp
 * matches its entry is neither parsed nor rendered again: its text is used as it is. Any other file is taken
 * through the summaries (the index, else the file) and rendered, and its entry replaced. `render` must be a
 * function of the summary alone; the cache header names the build, so another build's items are never used.
 */
export async function listProjectItems(
  p: Paths,
  project: string,
  items: () => ItemSection,
  summaries: () => SummarySection,
  render: (t: TaskSummary) => string,
): Promise<{ rows: ItemRow[]; broken: Broken[]; duplicates: Listing['duplicates'] }> {
  for (let attempt = 1; ; attempt++) {
    const w = walkProject(p, project)
    const broken = [...w.broken]
    let vanished = w.vanished
    const rows: ItemRow[] = []
    const kept = w.names.length > 0 ? items() : null
    let index: SummarySection | null = null
    for (let i = 0; i < w.names.length; i++) {
      const status = w.statuses[i] as Status
      const name = w.names[i] as string
      const key = `${status}/${name}`
      const text = kept?.textAt(key, stampKeyAt(w, i))
      const rel = `${w.relBase}${status}/${name}`
      const seq = Number(name.slice(0, name.indexOf('-')))
      const a = text === undefined ? -1 : text.indexOf('\t')
      const b = a === -1 ? -1 : (text as string).indexOf('\t', a + 1)
      if (text !== undefined && a > 0 && b > a) {
        rows.push({
          id: text.slice(0, a),
          version: Number(text.slice(a + 1, b)),
          seq,
          status,
          project,
          path: rel,
          json: text.slice(b + 1),
        })
        continue
      }
      // Not kept, or changed since: its summary (the index's, else the file's), rendered and kept.
      const f = fileAt(w, i)
      const stamp = f.stamp as Stamp
      index ??= summaries()
      const hit = index.get(key, stamp)
      let summary: TaskSummary
      if (hit !== undefined) summary = expand(hit, f)
      else {
        try {
          const body = readText(f.abs, stamp.size)
          summary = summaryNow(body, f) ?? (await readTaskSummary(body, f))
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') vanished = true
          else broken.push(brokenOf(f.path, e))
          continue
        }
        index.set(key, stamp, compact(summary))
      }
      const json = render(summary)
      kept?.setText(key, stamp, `${summary.id}\t${summary.version}\t${json}`)
      rows.push({ id: summary.id, version: summary.version, seq, status, project, path: rel, json })
    }
    if (vanished && attempt < MOVE_PASSES) continue
    const { tasks, duplicates } = deduplicated(rows, broken)
    return { rows: tasks, broken, duplicates }
  }
}

/**
 * The task-list items of one project's tasks (or every project's), as `render` writes each task's summary, kept
 * per file in `cache/items` (listProjectItems): what `task list --json` prints, without building the summaries of
 * files that did not change.
 */
export async function listItems(
  store: Store,
  render: (t: TaskSummary) => string,
  project?: string,
): Promise<{ rows: ItemRow[]; broken: Broken[]; duplicates: Listing['duplicates'] }> {
  const slugs = project === undefined ? store.projectSlugs() : [project]
  if (project !== undefined) store.requireProject(project)
  const out: { rows: ItemRow[]; broken: Broken[]; duplicates: Listing['duplicates'] } = {
    rows: [],
    broken: [],
    duplicates: [],
  }
  const items = store.cache('items')
  const index = store.cache('index')
  if (project === undefined) items.keepSections('', slugs)
  for (const slug of slugs) {
    const l = await listProjectItems(
      store.paths(),
      slug,
      () => items.section(slug, 'used'),
      () => index.section(`tasks/${slug}`, 'used'),
      render,
    )
    for (const r of l.rows) out.rows.push(r)
    for (const b of l.broken) out.broken.push(b)
    for (const d of l.duplicates) out.duplicates.push(d)
  }
  return out
}
