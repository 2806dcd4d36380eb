// The file system isomorphic-git is given. Its writes go straight to the final
// path; an object file cut short by a crash would then stay corrupt for good,
// because isomorphic-git never rewrites an object file that exists. Here every
// write goes to a temp file first and is renamed into place, as git does.

import * as fs from 'node:fs'
import * as fsp from 'node:fs/promises'
import * as path from 'node:path'
import { randomHex } from '../../base/entropy.js'
import { hostTag, isOwnTag } from '../../base/hosttag.js'
import type { Proc } from '../../base/system.js'

/** `.tmp-dacli-<pid>-<host tag>-<random>`; names from before the host tag have none. */
const TEMP = /^\.tmp-dacli-(\d+)(?:-([0-9a-f]{8}))?-[0-9a-f]+$/

async function writeFileAtomic(sys: Proc, file: string, data: Uint8Array | string, opts?: unknown): Promise<void> {
  const tmp = path.join(path.dirname(file), `.tmp-dacli-${sys.pid}-${hostTag(sys)}-${randomHex(4)}`)
  try {
    await fsp.writeFile(tmp, data, { ...(typeof opts === 'object' && opts !== null ? opts : {}), flag: 'wx' })
    await fsp.rename(tmp, file)
  } catch (e) {
    await fsp.rm(tmp, { force: true })
    throw e
  }
}

/** The file system isomorphic-git is given, writing as process `sys`. */
export const isoFsFor = (sys: Proc) => ({
  promises: {
    readFile: fsp.readFile,
    writeFile: (file: string, data: Uint8Array | string, opts?: unknown) => writeFileAtomic(sys, file, data, opts),
    unlink: fsp.unlink,
    readdir: fsp.readdir,
    mkdir: fsp.mkdir,
    rmdir: fsp.rmdir,
    stat: fsp.stat,
    lstat: fsp.lstat,
    readlink: fsp.readlink,
    symlink: fsp.symlink,
    chmod: fsp.chmod,
  },
})

/**
 * Temp files a killed writer left among the loose objects (`git fsck` calls them "bad sha1 file"), with
 * whether their writer is provably gone (this host, pid dead). doctor reports them (`stale-git-temp`).
 */
export function objectTemps(sys: Proc, commonDir: string): { path: string; dead: boolean }[] {
  const objects = path.join(commonDir, 'objects')
  const out: { path: string; dead: boolean }[] = []
  let dirs: string[]
  try {
    dirs = fs.readdirSync(objects).filter((d) => /^[0-9a-f]{2}$/.test(d))
  } catch {
    return out // no objects yet
  }
  for (const d of dirs) {
    let names: string[]
    try {
      names = fs.readdirSync(path.join(objects, d))
    } catch {
      continue // vanished (gc) or unreadable: git itself will say so
    }
    for (const n of names) {
      const m = TEMP.exec(n)
      if (m === null) continue
      const local = m[2] === undefined || isOwnTag(sys, m[2])
      out.push({ path: path.join(objects, d, n), dead: local && !sys.isAlive(Number(m[1])) })
    }
  }
  return out
}

/** Remove the temp files of dead writers among the loose objects (the next record does, before writing). */
export function sweepObjectTemps(sys: Proc, commonDir: string): string[] {
  const removed: string[] = []
  for (const t of objectTemps(sys, commonDir)) {
    if (!t.dead) continue
    try {
      fs.unlinkSync(t.path)
      removed.push(t.path)
    } catch {
      // swept by another process first
    }
  }
  return removed
}
