// doctor's findings for what interrupted work leaves behind: locks and temp files of writers that are gone,
// git objects half-written by a killed record, and the other side's copies a record pull left to resolve.

import { conflictCopies, conflictHint } from '../../store/conflicts.js'
import { findTemps } from '../../store/fsio.js'
import { listLocks } from '../../store/lock.js'
import type { Store } from '../../store/store.js'
import type { DoctorDocT } from './json.js'

type Finding = DoctorDocT['findings'][number]

export async function leftoverFindings(store: Store): Promise<Finding[]> {
  const out: Finding[] = gone(
    listLocks(store.system, store.locksDir),
    'stale-lock',
    'harmless: the next command that needs it takes it over',
    (l) => [
      store.rel(l.file),
      `left by ${l.holder ? `pid ${l.holder.pid} on ${l.holder.host} at ${l.holder.time}` : 'an unknown holder'}, which is gone`,
    ],
  )
  const temps = findTemps(store.system, store.dir)
  out.push(
    ...gone(
      temps.filter((t) => t.swept),
      'stale-temp',
      'harmless: the next write in that folder removes it',
      (t) => [store.rel(t.path), 'a half-written temp file whose writer is gone'],
    ),
    // One written on another host (or not named as dacli names them) is never swept: only a person removes it.
    ...gone(
      temps.filter((t) => !t.swept),
      'stale-temp',
      'dacli never removes it (written on another host, or not named as dacli names its temp files): delete it by hand once no write is under way',
      (t) => [store.rel(t.path), 'a temp file dacli cannot tell is being written'],
    ),
  )
  out.push(...(await gitTempFindings(store)))
  for (const c of conflictCopies(store.dir)) {
    out.push({
      code: 'record-conflict',
      severity: 'error',
      subject: store.rel(c.copy),
      message: `the other side's version of ${store.rel(c.original)}, left by a record pull that found both sides changed it`,
      hint: conflictHint(store.rel(c.original)),
    })
  }
  return out
}

/** Temp files a killed `record` left among git's loose objects (git fsck: "bad sha1 file"). */
async function gitTempFindings(store: Store): Promise<Finding[]> {
  if (store.git === null) return []
  const { objectTemps } = await import('../../adapters/git/isofs.js')
  return gone(
    objectTemps(store.system, store.git.commonDir),
    'stale-git-temp',
    'harmless to dacli: the next dacli record removes it (or delete it by hand)',
    (t) => [
      store.rel(t.path),
      'a half-written git object left by a record that was killed; git fsck reports it as a bad sha1 file',
    ],
  )
}

/** A warning for each leftover whose writer is gone; `about` names its subject and says what it is. */
function gone<T extends { dead: boolean }>(
  items: readonly T[],
  code: string,
  hint: string,
  about: (x: T) => [subject: string, message: string],
): Finding[] {
  return items
    .filter((x) => x.dead)
    .map((x) => {
      const [subject, message] = about(x)
      return { code, severity: 'warning', subject, message, hint }
    })
}
