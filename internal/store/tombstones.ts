// Tombstones: `projects/<p>/tasks/removed/NNN-<slug>.md`. A removed task's status
// is its folder, `removed`; its number is never reused. Lists show tombstones only
// when asked (`task list --status removed`); a reference that names one says so.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { cmd } from '../base/commands.js'
import { NotFoundError } from '../base/errors.js'
import { type Broken, brokenOf, type Status, TASK_FILE, type TaskRecord } from '../format/model.js'
import { matchRef, parseRef, qualifiedRef } from '../format/refs.js'
import { isTempName } from './fsio.js'
import type { Store } from './store.js'
import { tasksDir } from './taskindex.js'

/** The status a task file's folder gives it (`removed` for a tombstone), or null for a path outside tasks/. */
export function folderStatus(p: string): Status | 'removed' | null {
  // Asked of every task of a listing: the path is split and joined only where the separator is not `/`.
  const m = /(?:^|\/)tasks\/(open|active|blocked|done|removed)\/[^/]+$/.exec(
    path.sep === '/' ? p : p.split(path.sep).join('/'),
  )
  return m === null ? null : (m[1] as Status | 'removed')
}

export interface Tombstone {
  /** The task as it was, read from its tombstone (`path` points into tasks/removed/). */
  task: TaskRecord
  /** Who removed it and when (from its log), when recorded. */
  removed: { by: string | null; at: string | null }
}

/** Every tombstone of a project (or of every project). Unreadable ones are reported, never fatal. */
export async function listTombstones(
  store: Store,
  project?: string,
): Promise<{ tombstones: Tombstone[]; broken: Broken[] }> {
  const slugs = project === undefined ? store.projectSlugs() : [project]
  if (project !== undefined) store.requireProject(project)
  const tombstones: Tombstone[] = []
  const broken: Broken[] = []
  let parse: typeof import('../format/parsing.js').parseTaskRecord | null = null
  for (const slug of slugs) {
    const dir = path.join(tasksDir({ root: store.root, dir: store.dir }, slug), 'removed')
    let ents: fs.Dirent[]
    try {
      ents = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      continue
    }
    for (const e of ents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (!e.isFile() || !TASK_FILE.test(e.name) || isTempName(e.name)) continue
      const abs = path.join(dir, e.name)
      const rel = store.rel(abs)
      try {
        parse ??= (await import('../format/parsing.js')).parseTaskRecord
        // Parsed as `done` only to satisfy the record's type; callers read the status from the folder.
        const task = parse(fs.readFileSync(abs, 'utf8'), { project: slug, status: 'done', name: e.name, path: rel })
        const last = [...task.log].reverse().find((l) => l.verb === 'removed')
        tombstones.push({ task, removed: { by: last?.actor ?? null, at: last?.at ?? null } })
      } catch (err) {
        broken.push(brokenOf(rel, err))
      }
    }
  }
  return { tombstones, broken }
}

/** The tombstone a reference names, or null (several matches: the first by path). */
export async function findTombstone(store: Store, ref: string): Promise<Tombstone | null> {
  let r: ReturnType<typeof parseRef>
  try {
    r = parseRef(ref)
  } catch {
    return null
  }
  if (r.project !== null && !store.projectSlugs().includes(r.project)) return null
  const { tombstones } = await listTombstones(store, r.project ?? undefined)
  const hits = matchRef(
    r,
    tombstones.map((t) => ({ ...t.task, tomb: t })),
  )
  return hits[0]?.tomb ?? null
}

/** A not-found error that says the task was removed, with where its tombstone is. */
export function removedError(ref: string, t: Tombstone, cause?: unknown): NotFoundError {
  const q = qualifiedRef(t.task)
  return new NotFoundError(
    `${q} was removed${t.removed.by ? ` by ${t.removed.by}` : ''}${t.removed.at ? ` at ${t.removed.at}` : ''}; its tombstone is ${t.task.path}`,
    {
      ...(cause === undefined ? {} : { cause }),
      details: { ref, removed: { id: t.task.id, ref: q, path: t.task.path, by: t.removed.by, at: t.removed.at } },
      next: [
        cmd(`task show ${q} (shows the tombstone)`),
        cmd(`task list --status removed --project ${t.task.project}`),
      ],
    },
  )
}
