// Editing a project file in place (store/objedit.ts: under the project's lock, the lossless splice).

import * as path from 'node:path'
import type { Document } from 'yaml'
import { editObjectFile, type ObjectEdit } from '../../store/objedit.js'
import type { Store } from '../../store/store.js'

/**
 * Edit `projects/<slug>/project.md`. `fn` edits `doc` (its `data` is the frontmatter as read)
 * and returns false to write nothing. Returns whether the file changed.
 */
export async function editProjectFrontmatter(
  store: Store,
  slug: string,
  fn: (doc: Document, data: Record<string, unknown>) => boolean,
): Promise<boolean> {
  return (await editProject(store, slug, null, (e) => fn(e.doc, e.data))).changed
}

/** Edit a project's file (frontmatter and body); journals `project.changed` when its bytes changed. */
export async function editProject<R>(
  store: Store,
  slug: string,
  actor: string | null,
  fn: (e: ObjectEdit) => R | false,
  summary = 'edited',
): Promise<{ result: R | false; changed: boolean }> {
  const file = path.join(store.requireProject(slug), 'project.md')
  const r = await editObjectFile(store, file, `project-${slug}`, fn)
  if (r.changed) {
    store.journal({ kind: 'project.changed', ref: slug, id: `p-${slug}`, project: slug, actor, summary })
  }
  return r
}
