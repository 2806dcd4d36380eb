// The object files of a notes or risks folder, as a listing walks them: by name, each found a regular file by one
// lstat (which gives the stamp a cache validates it by), with what cannot be one reported in its place. The notes
// listing and the search index walk them alike.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { byText } from '../base/order.js'
import { type Broken, brokenOf } from '../format/model.js'
import { type Stamp, stampFrom } from './filecache.js'
import { isTempName, LinkError, linkOnPath } from './fsio.js'
import type { Store } from './store.js'

/** An object file of a folder, found a regular file by its lstat (which gave its stamp). */
export interface FolderFile {
  /** Its name in the folder. */
  name: string
  /** Absolute path. */
  file: string
  /** Path from the workspace root. */
  rel: string
  stamp: Stamp
}

/**
 * The object files of a folder (`*.md`, no dot or temp file), by name, with what cannot be one in its place (a
 * link, a special file); a folder reached through a link or one that cannot be read is one skip (a missing folder
 * holds nothing).
 */
export function folderFiles(store: Store, dir: string): (FolderFile | { skip: Broken })[] {
  let names: string[]
  const link = linkOnPath(dir, store.dir)
  if (link !== null) return [{ skip: brokenOf(store.rel(link), new LinkError(link)) }]
  try {
    names = fs.readdirSync(dir).sort(byText)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    return [{ skip: brokenOf(store.rel(dir), e) }]
  }
  const relDir = store.rel(dir)
  const out: (FolderFile | { skip: Broken })[] = []
  for (const n of names) {
    if (!n.endsWith('.md') || n.startsWith('.') || isTempName(n)) continue
    // One lstat tells a link or a special file from a regular one and gives the stamp the cache validates by.
    const file = `${dir}${path.sep}${n}`
    const rel = `${relDir}/${n}`
    const st = fs.lstatSync(file, { throwIfNoEntry: false })
    if (st === undefined) continue // removed while listing
    if (st.isSymbolicLink())
      out.push({ skip: { path: rel, reason: 'symbolic link (not followed)', code: 'symlink-in-workspace' } })
    else if (!st.isFile())
      out.push({ skip: { path: rel, reason: 'not a regular file (not read)', code: 'special-file' } })
    else out.push({ name: n, file, rel, stamp: stampFrom(st) })
  }
  return out
}
