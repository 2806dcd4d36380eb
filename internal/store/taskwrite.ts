// Writing task files: one task rewritten under its lock, a task moved to its tombstone, a new task created
// under the project's sequence lock. Each re-reads under the lock and writes atomically.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { ConflictError, NotFoundError } from '../base/errors.js'
import { assemble, parseData, readObject } from '../format/flat.js'
import { editFront, type FrontEdit } from '../format/flatedit.js'
import { appendToSection } from '../format/markdown.js'
import type { Status, TaskRecord, TaskSummary } from '../format/model.js'
import { STATUSES, stamp, taskFileName } from '../format/model.js'
import { supersededBy, taskIdInText } from '../format/rawtask.js'
import { qualifiedRef } from '../format/refs.js'
import { recordOf, sameDependency } from '../format/taskfile.js'
import { assertNoLinks, atomicWrite, linkOnPath, readText, removeFile, sweepTemps } from './fsio.js'
import type { ChangeEntry } from './journal.js'
import { type Store, unreadableTask } from './store.js'
import type { TaskFileRef } from './taskindex.js'
import { tasksDir, usedSeqs } from './taskindex.js'

/** A task file being rewritten under its lock (editTaskFile): what a command may change, and how. */
export interface TaskEdit {
  /** The task as read under the lock. */
  readonly before: TaskRecord
  /** Set a top-level frontmatter key: a scalar in place, a list or a map in block style. */
  set(key: string, value: unknown): void
  /** Remove a top-level frontmatter key. */
  delete(key: string): void
  /** Set a top-level key to a map in flow style (`claim: {by: a-x, at: …}`), or a list of them one per line. */
  setFlow(key: string, value: Record<string, unknown> | Record<string, unknown>[]): void
  /** Merge `values` into the block map under `key`, keeping its other keys (the `github:` block). */
  setBlock(key: string, values: Record<string, unknown>): void
  /** The body, and the status folder the task is in; assign to change them. */
  body: string
  status: Status
  /** Append a `## Log` line. */
  log(verb: string, details?: string): void
  readonly actor: string
  readonly now: Date
}

/** The parsing half of the store (yaml and friends), loaded on first need. */
const parsing = () => import('../format/parsing.js')

/**
 * Rewrite one task under its lock: re-read it, let `fn` edit it, bump `version`,
 * write atomically (moving it between status folders if its status changed).
 * `fn` returns false to write nothing (an `unchanged` outcome).
 */
export async function editTaskFile<R>(
  store: Store,
  target: TaskFileRef & { id?: string },
  actor: string,
  fn: (edit: TaskEdit) => Promise<R | false> | R | false,
): Promise<{ result: R | false; task: TaskRecord; changed: boolean }> {
  const id = target.id ?? (await store.readTaskFile(target)).id
  return store.withLock(`task-${id}`, async () => {
    let file: TaskFileRef | null = fs.existsSync(target.abs) ? target : null
    if (file !== null) {
      const probe = await store.readTaskFile(file)
      if (probe.id !== id) file = null
    }
    file ??= await store.findById(id, target.project)
    if (file === null) throw new NotFoundError(`task ${id} disappeared while it was being changed`)
    // The plain frontmatter dacli writes is read and rewritten without the YAML library (flatedit.ts); other
    // files, and edits that renderer is not certain of, take the library path, which writes the same bytes.
    const text = parseUnderLock(store, (t) => t, file)
    const flat = parsedAs(file, () => flatTask(text, file))
    let library = flat === null ? await libraryRead(file, text) : null
    const { record, split } = flat ?? (library as NonNullable<typeof library>)
    const now = store.now()
    const logLines: string[] = []
    const edits: FrontEdit[] = []
    const edit: TaskEdit = {
      before: record,
      body: split.body,
      status: record.status,
      actor,
      now,
      set: (key, value) => edits.push({ op: 'set', key, value }),
      delete: (key) => edits.push({ op: 'delete', key }),
      // An item of `depends_on` a person wrote as `ref` or `ref:SS` is the same dependency as dacli's `{on, type}`.
      setFlow: (key, value) =>
        edits.push({ op: 'flow', key, value, ...(key === 'depends_on' ? { same: sameDependency } : {}) }),
      setBlock: (key, value) => edits.push({ op: 'block', key, value }),
      log(verb, details = '') {
        logLines.push(
          `- ${stamp(now)} ${actor} ${verb}${details === '' ? '' : ` ${details.replace(/\s*\n\s*/g, ' ')}`}`,
        )
      },
    }
    const result = await fn(edit)
    if (result === false) return { result, task: record, changed: false }
    if (logLines.length > 0) edit.body = appendToSection(edit.body, 'Log', logLines)
    edits.push({ op: 'set', key: 'version', value: record.version + 1 })
    const front = flat === null ? null : editFront(flat.split.front, flat.data, edits)
    let out: string
    if (front !== null) out = assemble(split, front, edit.body)
    else {
      library ??= await libraryRead(file, text)
      const doc = library.parsed.doc.clone()
      library.applyEdits(doc, edits)
      out = library.renderEdited(library.parsed, doc, edit.body)
    }
    const dest =
      edit.status === file.status
        ? file
        : {
            ...file,
            status: edit.status,
            abs: path.join(tasksDir(store.paths(), file.project), edit.status, file.name),
            path: store.rel(path.join(tasksDir(store.paths(), file.project), edit.status, file.name)),
          }
    atomicWrite(store.system, dest.abs, out)
    // The old copy goes last: a crash before this leaves two copies, and the newer version wins.
    // Copies left by an earlier interrupted move go too.
    const removed = removeCopies(store, file.project, file.name, id, dest.status, text)
    sweepProject(store, file.project)
    const after = recordOf(await parseData(out), locationOf(dest))
    // Copies beside the one rewritten (an earlier interrupted move): what this invocation read is read again.
    if (removed.some((s) => s !== file.status)) store.forget(file.project)
    else store.wrote(file, dest, after)
    store.journal(taskChangeOf(record, after, actor, logLines))
    return { result, task: after, changed: true }
  })
}

/** A task file read by the subset reader (flat.ts): its record and parts, or null when it needs the library. */
function flatTask(text: string, f: TaskFileRef) {
  const parsed = readObject(text)
  return parsed === null ? null : { ...parsed, record: recordOf(parsed, locationOf(f)) }
}

/** A task file read by the YAML library, with the library's rewriting half. */
async function libraryRead(file: TaskFileRef, text: string) {
  const { applyEdits, parseTaskFull, renderEdited } = await parsing()
  const { record, parsed } = parsedAs(file, () => parseTaskFull(text, file))
  return { record, split: parsed.split, parsed, applyEdits, renderEdited }
}

/** A parse of a task file under its lock; a file dacli will not rewrite (see unreadableTask) refuses. */
function parsedAs<T>(file: TaskFileRef, parse: () => T): T {
  try {
    return parse()
  } catch (e) {
    throw unreadableTask(file.path, e)
  }
}

const locationOf = (f: TaskFileRef) => ({ project: f.project, status: f.status, name: f.name, path: f.path })

/** The task file as read under its lock; a file dacli will not rewrite (see unreadableTask) refuses. */
function parseUnderLock<T>(store: Store, parse: (text: string, f: TaskFileRef) => T, file: TaskFileRef): T {
  return parsedAs(file, () => {
    assertNoLinks(file.abs, store.dir)
    return parse(readText(file.abs), file)
  })
}

/** Move a task to `tasks/removed/` as a tombstone (its number is never reused). */
export async function tombstoneTaskFile(
  store: Store,
  target: TaskFileRef & { id?: string },
  actor: string,
): Promise<TaskRecord> {
  const id = target.id ?? (await store.readTaskFile(target)).id
  return store.withLock(`task-${id}`, async () => {
    const file = fs.existsSync(target.abs) ? target : await store.findById(id, target.project)
    if (file === null) throw new NotFoundError(`task ${id} disappeared while it was being removed`)
    const { applyEdits, parseTaskFull, renderEdited, recordOfText } = await parsing()
    const { record, parsed } = parseUnderLock(store, parseTaskFull, file)
    const now = stamp(store.now())
    const doc = parsed.doc.clone()
    applyEdits(doc, [
      { op: 'flow', key: 'removed', value: { by: actor, at: now } },
      { op: 'set', key: 'version', value: record.version + 1 },
    ])
    const text = renderEdited(parsed, doc, appendToSection(parsed.split.body, 'Log', [`- ${now} ${actor} removed`]))
    const dest = path.join(tasksDir(store.paths(), file.project), 'removed', file.name)
    atomicWrite(store.system, dest, text)
    removeCopies(store, file.project, file.name, id, 'removed', text)
    sweepProject(store, file.project)
    store.forget(file.project)
    store.journal({
      kind: 'task.moved',
      ref: qualifiedRef(record),
      id,
      project: record.project,
      actor,
      summary: `removed (was ${record.status})`,
      from: record.status,
      to: 'removed',
    })
    return recordOfText(text, { ...file, path: store.rel(dest) })
  })
}

/** Remove dead writers' temp files from every task folder of a project (a write elsewhere in it would not). */
function sweepProject(store: Store, project: string): void {
  for (const status of [...STATUSES, 'removed'])
    sweepTemps(store.system, path.join(tasksDir(store.paths(), project), status))
}

/**
 * Remove copies of task `id` named `name` from every status folder but `keep` (only files that carry that id and
 * that `read`, the copy being rewritten, carries forward: supersededBy). The folders they were removed from.
 */
function removeCopies(store: Store, project: string, name: string, id: string, keep: string, read: string): Status[] {
  const removed: Status[] = []
  for (const status of STATUSES) {
    if (status === keep) continue
    const other = path.join(tasksDir(store.paths(), project), status, name)
    let text: string
    try {
      if (linkOnPath(other, store.dir) !== null) continue // never read or remove through a link
      text = readText(other) // a FIFO or device of that name is refused, never waited on
    } catch {
      continue
    }
    // Only a copy the one just rewritten carried forward goes; one with work of its own stays (doctor reports it).
    if (taskIdInText(text) === id && supersededBy(text, read)) {
      removeFile(other)
      removed.push(status)
    }
  }
  return removed
}

/** What a new task file holds, made from the project's tasks as they are under the sequence lock. */
export type TaskFileBuilder = (existing: readonly TaskSummary[]) => {
  slug: string
  text: string
  data: Record<string, unknown>
  body: string
}

/** Allocate the next sequence number and create a task file, under the project's sequence lock. */
export async function createTaskFile(store: Store, project: string, build: TaskFileBuilder): Promise<TaskRecord> {
  store.requireProject(project)
  return store.withLock(`seq-${project}`, async () => {
    store.forget(project) // list afresh under the lock: another process may have added a task
    const listing = await store.listTasks(project)
    const used = usedSeqs(store.paths(), project)
    for (const t of listing.tasks) for (const a of t.aliases) used.add(a)
    const seq = used.size === 0 ? 1 : Math.max(...used) + 1
    const { slug, text, data, body } = build(listing.tasks)
    const name = taskFileName(seq, slug)
    const abs = path.join(tasksDir(store.paths(), project), 'open', name)
    try {
      atomicWrite(store.system, abs, text, { exclusive: true })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new ConflictError(`${store.rel(abs)} already exists`, { cause: e })
      }
      throw e
    }
    sweepProject(store, project)
    store.forget(project)
    // The record comes from the data just written, not from parsing it back (no YAML library needed).
    const created = recordOf(
      { data, split: { body } },
      {
        project,
        status: 'open',
        name,
        path: store.rel(abs),
      },
    )
    store.journal({
      kind: 'task.created',
      ref: qualifiedRef(created),
      id: created.id,
      project,
      actor: created.created_by,
      summary: created.title,
    })
    return created
  })
}

/** The journal line for one task rewrite: a claim taken or released, a move between folders, or a change. */
function taskChangeOf(
  before: TaskRecord,
  after: TaskRecord,
  actor: string,
  logLines: readonly string[],
): Omit<ChangeEntry, 'at'> {
  // Log lines read `- <stamp> <actor> <verb> <details>`: the summary is what they say after the actor.
  const said = logLines.map((l) => l.split(' ').slice(3).join(' ')).join('; ') || 'edited'
  const base = { ref: qualifiedRef(after), id: after.id, project: after.project, actor }
  const moved = before.status !== after.status ? { from: before.status, to: after.status } : {}
  if (after.owner !== null && after.owner !== before.owner && after.status !== 'done')
    return { kind: 'claim.taken', ...base, summary: `${after.owner}: ${said}`, ...moved }
  if (before.claim !== null && after.claim === null && after.owner === null && after.status !== 'done')
    return { kind: 'claim.released', ...base, summary: said, ...moved }
  if (before.status !== after.status)
    return { kind: 'task.moved', ...base, summary: `${before.status} → ${after.status}: ${said}`, ...moved }
  return { kind: 'task.changed', ...base, summary: said }
}
