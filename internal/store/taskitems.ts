// What the index keeps per task file besides its summary, each entry checked against the file's stamp like the
// summaries (filecache.ts): the task-list item as `task list --json` prints it (`cache/items`), and each task's id,
// version and aliases (`ids/<project>` in the index: resolving a reference). A command that needs only these never builds the
// summaries of files that did not change.

import * as fs from 'node:fs'
import { FailureError } from '../base/errors.js'
import { type Broken, brokenOf, type Status, type TaskRecord, type TaskSummary } from '../format/model.js'
import { readTaskSummary, summaryNow } from '../format/taskfile.js'
import { compact, expand } from './compact.js'
import type { Section, Stamp } from './filecache.js'
import { projectsIn } from './projects.js'
import type { Store } from './store.js'
import {
  type DuplicateCopy,
  deduplicated,
  fileAt,
  filesOf,
  listTaskFiles,
  MOVE_PASSES,
  type Paths,
  readTaskText,
  type SummarySection,
  setStampAt,
  stampTaken,
  type TaskFileRef,
  textAtWalk,
  type Walk,
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
 * Which entries of a project's ids a reader wants (listIds): `kept` tells from an entry's kept text, without parsing
 * it, whether the entry may be one (false: it is not); `entry` decides for the entries made.
 */
export interface IdWant {
  kept(text: string): boolean
  entry(e: IdEntry): boolean
}

/** The entries of one task id: its kept text starts with the id (`["t-…",`), as JSON writes an id (no escapes). */
export const idIs = (id: string): IdWant => {
  const head = `${JSON.stringify(id)},`
  return { kept: (text) => text.startsWith(head, 1), entry: (e) => e.id === id }
}

/** The entries of tasks that keep an old number (after a renumbering merge): a kept text not ending `,[]]`. */
export const HOLDS_ALIASES: IdWant = { kept: (text) => !text.endsWith(',[]]'), entry: (e) => e.aliases.length > 0 }

/**
 * Every task of a project by id (copies of one id deduplicated as a listing does), each file's `[id, version,
 * aliases]` kept in `ids` beside its stamp: resolving an id, or asking whether a number is another task's alias,
 * otherwise needs every summary of the project. A file whose stamp does not match is read through the summaries
 * (the index, else the file); one that cannot be read is left out (the listing reports it). With the ids, the walk
 * they were read from: the project's task files as they were then (`walked`: one this invocation took, reused).
 * With `want`, only the entries wanted, deduplicated among themselves: an entry whose kept text says it is not
 * wanted is never parsed (a copy of a wanted id is wanted too, so no copy is missed by the deduplication).
 */
export async function listIds(
  p: Paths,
  project: string,
  ids: () => Section<unknown>,
  summaries: () => SummarySection,
  want?: IdWant,
  walked?: Walk,
): Promise<{ ids: IdEntry[]; walk: Walk }> {
  const got = await perFile<IdEntry>(
    p,
    project,
    ids,
    summaries,
    (text, at) => {
      const v = parseIdEntry(text)
      if (v === null) return null
      const { status, seq, slug, path } = at
      return { project, status, seq, slug, path, id: v[0], version: v[1], aliases: v[2] }
    },
    (t, at) => {
      const { status, seq, slug, path } = at
      return {
        value: { project, status, seq, slug, path, id: t.id, version: t.version, aliases: [...t.aliases] },
        text: JSON.stringify([t.id, t.version, t.aliases]),
      }
    },
    walked,
    want === undefined ? undefined : (text) => !want.kept(text),
  )
  return { ids: want === undefined ? got.values : got.values.filter(want.entry), walk: got.walk }
}

/**
 * The ids of a project and the walk they came from, after this process rewrote one task file (`from`, now `to`:
 * the same name, perhaps in another status folder), brought up to date for that file alone: its entry and its
 * walk stamp (one `lstat` of the new file). Null when they cannot be (the file was not in them, the id differs, the
 * new file is not there, or its place was already taken in the walk): then they are read again.
 */
export function idsAfterWrite(
  kept: { ids: IdEntry[]; walk: Walk },
  from: TaskFileRef,
  to: TaskFileRef,
  task: { id: string; version: number; aliases: readonly number[] },
): { ids: IdEntry[]; walk: Walk } | null {
  const { ids } = kept
  const i = ids.findIndex((e) => e.path === from.path)
  if (i === -1 || ids[i]?.id !== task.id) return null
  const walk = walkAfterWrite(kept.walk, from, to)
  if (walk === null) return null
  const was = ids[i] as IdEntry
  const entry: IdEntry = { ...was, status: to.status, path: to.path, version: task.version, aliases: [...task.aliases] }
  return { ids: ids.map((e, j) => (j === i ? entry : e)), walk }
}

/**
 * A walk after this process rewrote task file `from` as `to` (idsAfterWrite): that file's place and stamp (one
 * `lstat` of the new file). Null when it cannot be (the file was not in it, the new one is not there, or its place
 * was already taken).
 */
export function walkAfterWrite(w: Walk, from: TaskFileRef, to: TaskFileRef): Walk | null {
  let k = -1
  let taken = false
  for (let j = 0; j < w.names.length; j++) {
    if (w.names[j] !== from.name) continue
    if (w.statuses[j] === from.status) k = j
    else if (w.statuses[j] === to.status) taken = true
  }
  if (k === -1 || taken) return null
  const st = fs.lstatSync(to.abs, { throwIfNoEntry: false })
  if (st === undefined || !st.isFile()) return null
  const statuses = [...w.statuses]
  statuses[k] = to.status
  const stamps = [...w.stamps]
  stamps.splice(4 * k, 4, st.size, st.mtimeMs, st.ino, st.ctimeMs)
  return { ...w, statuses, stamps }
}

/**
 * A listing's tasks as IdEntry: the summaries themselves, which hold every field of one (a server brings a
 * project's listing up to date at every call after a change, and copying a thousand entries each time was most of
 * what its heap grew by). Read only, as the summaries are.
 */
export const idsOfListing = (tasks: readonly TaskSummary[]): readonly IdEntry[] => tasks

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
 * One task file's summary, the `nth` asked for alone in this invocation (a shown task's dependencies, its parent).
 * The first few (FEW_MISSES) are parsed from their files, as perFile reads a few missed files: the project's
 * summaries section is 300 kB at 1,000 tasks. Later ones are the index's entry while the file's stamp matches it,
 * else parsed from the file (and kept). Null when the file is gone or cannot be read as a task (a listing says why).
 */
export async function summaryAlone(
  f: TaskFileRef,
  nth: number,
  summaries: () => SummarySection,
): Promise<TaskSummary | null> {
  const index = nth <= FEW_MISSES ? null : summaries()
  let at = f
  if (f.stamp === undefined) {
    const st = fs.lstatSync(f.abs, { throwIfNoEntry: false })
    if (st === undefined || !st.isFile()) return null
    at = { ...f, stamp: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs } }
  }
  const got = await summaryOrWhy(at, index)
  return isSummary(got) ? got : null
}

const isSummary = (g: TaskSummary | Broken | 'gone'): g is TaskSummary => typeof g !== 'string' && 'id' in g

/**
 * The summary of a walked file (its stamp taken): the index's entry while the stamp matches it, else parsed from
 * the file and kept. 'gone' when the file is no longer there (moved while listing); what is wrong with it when it
 * cannot be read as a task.
 */
async function summaryOrWhy(f: TaskFileRef, index: SummarySection | null): Promise<TaskSummary | Broken | 'gone'> {
  const key = `${f.status}/${f.name}`
  const hit = f.stamp === undefined || index === null ? undefined : index.get(key, f.stamp)
  if (hit !== undefined) return expand(hit, f)
  try {
    const body = readTaskText(f)
    const summary = summaryNow(body, f) ?? (await readTaskSummary(body, f))
    index?.set(key, f.stamp as Stamp, compact(summary))
    return summary
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : brokenOf(f.path, e)
  }
}

/** Where a walked task file is: the parts of an entry its name and folder give. */
interface Place {
  project: string
  status: Status
  seq: number
  slug: string
  /** Relative to the workspace root. */
  path: string
}

/** How many missed files a per-file reader may read from themselves rather than through the project's summaries. */
const FEW_MISSES = 8

/**
 * One value per task file of a project, kept per file in `kept` beside the file's stamp (deduplicated by id as
 * listProject does, in sequence order). A file whose stamp matches its entry is served by `fromKept` from the
 * entry's text alone (null: the entry is not one, and the file is taken as changed), unless `skip` says from that text
 * that it is not wanted (left out, nothing made). Any other file is made by
 * `fromSummary` from its summary, and its entry replaced: while at most FEW_MISSES files are missed (edited since,
 * by hand or by the last command: their summaries' entries are as old as theirs), each summary is read from its
 * file and the summaries are never opened; more, and they are taken through the summaries (the index's, else the
 * file's: a section opened to keep `all`, as only the files `kept` missed are looked up there). A pass
 * that saw a file vanish is redone (MOVE_PASSES); a file that cannot be read as a task is in `broken`. `walk` is
 * the pass the values come from (`walked`: the first pass, when this invocation took one already).
 */
async function perFile<T extends Place & { id: string; version: number }>(
  p: Paths,
  project: string,
  kept: () => Section<unknown>,
  summaries: () => SummarySection,
  fromKept: (text: string, at: Place) => T | null,
  fromSummary: (t: TaskSummary, at: Place) => { value: T; text: string },
  walked?: Walk,
  skip?: (text: string) => boolean,
): Promise<{ values: T[]; broken: Broken[]; duplicates: DuplicateCopy[]; walk: Walk }> {
  for (let attempt = 1; ; attempt++) {
    const section = kept()
    // Nothing kept for the project in either (a cold cache): every file is read, its stamp taken from the open file.
    let index: SummarySection | null = section.isEmpty() ? summaries() : null
    const w = attempt === 1 && walked !== undefined ? walked : walkProject(p, project, !index?.isEmpty())
    const broken = [...w.broken]
    let vanished = w.vanished
    // In the walk's order: served from `kept`, or (undefined) missed there.
    const slots: (T | undefined)[] = []
    const missed: [number, Place][] = []
    for (let i = 0; i < w.names.length; i++) {
      const status = w.statuses[i] as Status
      const name = w.names[i] as string
      const key = `${status}/${name}`
      const text = stampTaken(w, i) ? textAtWalk(section, key, w, i) : undefined
      if (text !== undefined && skip?.(text)) {
        slots.push(undefined) // valid, and not wanted: nothing is made of it
        continue
      }
      // The walk took only names TASK_FILE matches (NNN-slug.md): number and slug are the name's two parts.
      const dash = name.indexOf('-')
      const seq = Number(name.slice(0, dash))
      const at: Place = { project, status, seq, slug: name.slice(dash + 1, -3), path: `${w.relBase}${key}` }
      const served = text === undefined ? null : fromKept(text, at)
      slots.push(served ?? undefined)
      if (served === null) missed.push([i, at])
    }
    // A few files missed are read from themselves: reading the project's summaries (1,000 at 10k) to find entries
    // as old as theirs costs more, and a listing served wholly from `kept` has no use for them.
    if (index === null && missed.length > FEW_MISSES) index = summaries()
    for (const [i, at] of missed) {
      const f = fileAt(w, i)
      const got = await summaryOrWhy(f, index)
      if (!stampTaken(w, i) && f.stamp !== undefined) setStampAt(w, i, f.stamp)
      if (got === 'gone') vanished = true
      else if (!isSummary(got)) broken.push(got)
      else {
        const made = fromSummary(got, at)
        section.setText(`${at.status}/${w.names[i]}`, f.stamp as Stamp, made.text)
        slots[i] = made.value
      }
    }
    const values = slots.filter((v): v is T => v !== undefined)
    if (vanished && attempt < MOVE_PASSES) continue
    // The summaries were looked up only for the files `kept` missed, so the section keeps every entry; the walk
    // saw every file there is, so the entries of files that are gone (moved to another folder, removed) go.
    if (index !== null && !vanished) index.keep(w.names.map((n, i) => `${w.statuses[i]}/${n}`))
    const { tasks, duplicates } = deduplicated(values, broken)
    return { values: tasks, broken, duplicates, walk: w }
  }
}

/** One task as a task list shows it: where it is, what decides between two copies of it, and its item's JSON. */
export interface ItemRow {
  id: string
  version: number
  seq: number
  status: Status
  project: string
  slug: string
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
 * matches its entry is neither parsed nor rendered again: its text is used as it is. Any other file is read as
 * perFile says (a few from themselves, many through the summaries) and rendered, and its entry replaced. `render`
 * must be a function of the summary alone; the cache header names the build, so another build's items are never
 * used.
 */
export async function listProjectItems(
  p: Paths,
  project: string,
  items: () => ItemSection,
  summaries: () => SummarySection,
  render: (t: TaskSummary) => string,
): Promise<{ rows: ItemRow[]; broken: Broken[]; duplicates: DuplicateCopy[] }> {
  const got = await perFile<ItemRow>(
    p,
    project,
    items,
    summaries,
    (text, at) => {
      const a = text.indexOf('\t')
      const b = a === -1 ? -1 : text.indexOf('\t', a + 1)
      if (a <= 0 || b <= a) return null
      const { status, seq, slug, path } = at
      return {
        project,
        status,
        seq,
        slug,
        path,
        id: text.slice(0, a),
        version: Number(text.slice(a + 1, b)),
        json: text.slice(b + 1),
      }
    },
    (t, at) => {
      const json = render(t)
      const { status, seq, slug, path } = at
      return {
        value: { project, status, seq, slug, path, id: t.id, version: t.version, json },
        text: `${t.id}\t${t.version}\t${json}`,
      }
    },
  )
  return { rows: got.values, broken: got.broken, duplicates: got.duplicates }
}

/**
 * The task-list items of one project's tasks (or every project's), as `render` writes each task's summary, kept
 * per file in `cache/items` (listProjectItems): what `task list --json` prints, without building the summaries of
 * files that did not change. Every project's come with the folders under projects/ that are not read as projects
 * (a folder without project.md, a link …): their tasks are not among the rows, and that is said.
 */
export async function listItems(
  store: Store,
  render: (t: TaskSummary) => string,
  project?: string,
): Promise<{ rows: ItemRow[]; broken: Broken[]; duplicates: DuplicateCopy[] }> {
  // The one walk of projects/ that gives the slugs gives what it could not take as a project, too.
  const { slugs, broken: folders } = projectsIn(store, project)
  const out: { rows: ItemRow[]; broken: Broken[]; duplicates: DuplicateCopy[] } = {
    rows: [],
    broken: [...folders],
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
      () => index.section(`tasks/${slug}`, 'all'),
      render,
    )
    for (const r of l.rows) out.rows.push(r)
    for (const b of l.broken) out.broken.push(b)
    for (const d of l.duplicates) out.duplicates.push(d)
  }
  return out
}

/**
 * Full records of a project's tasks, each read by `read` (the record cache, else the file), copies of one id
 * deduplicated; a pass that saw a file vanish is redone (MOVE_PASSES).
 */
export async function listProjectRecords(
  p: Paths,
  project: string,
  read: (f: TaskFileRef) => Promise<TaskRecord>,
  walked?: Walk,
): Promise<{ records: TaskRecord[]; broken: Broken[] }> {
  for (let attempt = 1; ; attempt++) {
    // The walk this invocation listed the project from, when it took every file's stamp; else a walk of its own.
    const listed =
      attempt === 1 && walked !== undefined && walked.stamps.every(Number.isFinite)
        ? { files: filesOf(walked), broken: walked.broken, vanished: walked.vanished }
        : listTaskFiles(p, project, { stat: true })
    const got: TaskRecord[] = []
    const broken: Broken[] = [...listed.broken]
    let vanished = listed.vanished
    for (const f of listed.files) {
      try {
        got.push(await read(f))
      } catch (e) {
        if (!fs.existsSync(f.abs)) vanished = true
        else broken.push(brokenOf(f.path, e instanceof FailureError && e.cause !== undefined ? e.cause : e))
      }
    }
    if (vanished && attempt < MOVE_PASSES) continue
    return { records: deduplicated(got).tasks, broken }
  }
}
