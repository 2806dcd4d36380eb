// Editing a project file's frontmatter in place: under the project's lock,
// re-read, let the caller edit the yaml Document, then write atomically with
// the lossless splice (untouched keys, comments and the body keep their bytes).

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Document } from 'yaml'
import { FailureError } from '../../base/errors.js'
import { atomicWrite } from '../../store/fsio.js'
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
  const file = path.join(store.requireProject(slug), 'project.md')
  return store.withLock(`project-${slug}`, async () => {
    const { parseObject, renderEdited } = await import('../../format/parsing.js')
    const text = fs.readFileSync(file, 'utf8')
    let parsed: ReturnType<typeof parseObject>
    try {
      parsed = parseObject(text)
    } catch (e) {
      throw new FailureError(`${store.rel(file)} cannot be parsed: ${(e as Error).message}`, {
        details: { path: store.rel(file) },
        next: ['fix the file by hand (dacli never overwrites an unparseable file)'],
      })
    }
    const doc = parsed.doc.clone()
    if (!fn(doc, parsed.data)) return false
    const out = renderEdited(parsed, doc, parsed.split.body)
    if (out === text) return false
    atomicWrite(store.system, file, out)
    store.journal({
      kind: 'project.changed',
      ref: slug,
      id: `p-${slug}`,
      project: slug,
      actor: null,
      summary: 'edited',
    })
    return true
  })
}
