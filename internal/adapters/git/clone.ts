// The clone id: a random name for this clone, kept in its common git directory (`dacli-clone-id`), so it is never
// committed, never copied by a push or a clone, and shared by every linked worktree of the clone. Two clones with
// the same host, path and identity (containers, CI runners, copied VMs) still have different ids.

import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'

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
  const id = `c-${randomBytes(8).toString('hex')}`
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`
  try {
    fs.writeFileSync(tmp, `${id}\n`, { flag: 'wx', mode: 0o644 })
    // link() fails if another process made it first: then theirs is the id.
    try {
      fs.linkSync(tmp, file)
    } catch {
      // someone else's id won
    }
  } catch {
    return null
  } finally {
    fs.rmSync(tmp, { force: true })
  }
  return read()
}
