// The clone id: a random name for this clone, kept in its common git directory (`dacli-clone-id`), so it is never
// committed, never copied by a push or a clone, and shared by every linked worktree of the clone. Two clones with
// the same host, path and identity (containers, CI runners, copied VMs) still have different ids.

import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { createOnce } from '../../base/createonce.js'

const ID = /^c-[0-9a-f]{16}$/
const FILE = 'dacli-clone-id'

/** This clone's id as kept, without making one (a reader writes nothing); null when it has none yet. */
export function keptCloneId(commonDir: string): string | null {
  try {
    const t = fs.readFileSync(path.join(commonDir, FILE), 'utf8').trim()
    return ID.test(t) ? t : null
  } catch {
    return null
  }
}

/** This clone's id (`c-<16 hex>`), made on first use; null where the git directory cannot be written. */
export function cloneId(commonDir: string): string | null {
  const file = path.join(commonDir, FILE)
  const read = () => keptCloneId(commonDir)
  const have = read()
  if (have !== null) return have
  try {
    createOnce(file, `c-${randomBytes(8).toString('hex')}\n`, 0o644) // of two made at once, the first linked wins
  } catch {
    return null
  }
  return read()
}
