// The file system isomorphic-git is given. Its writes go straight to the final
// path; an object file cut short by a crash would then stay corrupt for good,
// because isomorphic-git never rewrites an object file that exists. Here every
// write goes to a temp file first and is renamed into place, as git does.

import * as fsp from 'node:fs/promises'
import * as path from 'node:path'
import { tempTag } from './refs.js'

async function writeFileAtomic(file: string, data: Uint8Array | string, opts?: unknown): Promise<void> {
  const tmp = path.join(path.dirname(file), `.tmp-dacli-${tempTag()}`)
  try {
    await fsp.writeFile(tmp, data, { ...(typeof opts === 'object' && opts !== null ? opts : {}), flag: 'wx' })
    await fsp.rename(tmp, file)
  } catch (e) {
    await fsp.rm(tmp, { force: true })
    throw e
  }
}

export const isoFs = {
  promises: {
    readFile: fsp.readFile,
    writeFile: writeFileAtomic,
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
}
