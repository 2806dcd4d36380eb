// Rewriting one object file (a project, note or risk) the way task files are rewritten: under a lock, re-read,
// the caller edits the frontmatter Document and the body, then an atomic write of the lossless splice
// (format/frontmatter.ts renderEdited: untouched keys, comments and unknown keys keep their bytes), never through
// a link (fsio.ts). A file that cannot be parsed is never overwritten.

import type { Document } from 'yaml'
import { FailureError, NotFoundError } from '../base/errors.js'
import { assertNoLinks, atomicWrite, readText } from './fsio.js'
import type { Store } from './store.js'

export interface ObjectEdit {
  /** The frontmatter to edit (yaml Document API). */
  readonly doc: Document
  /** The frontmatter as read. */
  readonly data: Record<string, unknown>
  /** The body; assign to change it. */
  body: string
}

/**
 * Edit `file` under the lock `scope`. `fn` edits and returns what it changed (its result), or false to write
 * nothing. Returns the result and whether the bytes changed.
 */
export async function editObjectFile<R>(
  store: Store,
  file: string,
  scope: string,
  fn: (e: ObjectEdit) => R | false,
): Promise<{ result: R | false; changed: boolean }> {
  return store.withLock(scope, async () => {
    const { parseObject, renderEdited } = await import('../format/parsing.js')
    assertNoLinks(file, store.dir)
    let text: string
    try {
      text = readText(file)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        throw new NotFoundError(`${store.rel(file)} no longer exists`, { details: { path: store.rel(file) } })
      throw e
    }
    let parsed: ReturnType<typeof parseObject>
    try {
      parsed = parseObject(text)
    } catch (e) {
      throw new FailureError(`${store.rel(file)} cannot be parsed: ${(e as Error).message}`, {
        details: { path: store.rel(file) },
        next: ['fix the file by hand (dacli never overwrites an unparseable file)'],
      })
    }
    const edit: ObjectEdit = { doc: parsed.doc.clone(), data: parsed.data, body: parsed.split.body }
    const result = fn(edit)
    if (result === false) return { result, changed: false }
    const out = renderEdited(parsed, edit.doc, edit.body)
    if (out === text) return { result, changed: false }
    atomicWrite(store.system, file, out)
    return { result, changed: true }
  })
}
