// Durable file writes: a temp file in the same folder, fsync, rename, fsync the
// folder (format.md, Concurrency). Readers ignore temp files; the next writer in
// a folder removes temp files whose writer is dead.

import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import { hostname } from 'node:os'
import * as path from 'node:path'
import { FailureError } from './errors.js'

export const TEMP_MARK = '.dacli-tmp-'
/** `.<name>.dacli-tmp-<pid>-<host hash>-<random>` */
const TEMP_RE = /^\..*\.dacli-tmp-(\d+)-([0-9a-f]{8})-[0-9a-f]+$/

const HOST_TAG = Buffer.from(hostname()).toString('hex').slice(0, 8).padEnd(8, '0')

export function isTempName(name: string): boolean {
  return name.includes(TEMP_MARK)
}

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function fsyncDir(dir: string): void {
  let fd: number | undefined
  try {
    fd = fs.openSync(dir, 'r')
    fs.fsyncSync(fd)
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** Write `content` to `file` atomically and durably. With `exclusive`, fail (EEXIST) when the file exists. */
export function atomicWrite(file: string, content: string | Buffer, opts: { exclusive?: boolean } = {}): void {
  const dir = path.dirname(file)
  fs.mkdirSync(dir, { recursive: true })
  sweepTemps(dir) // the next writer in a folder removes what dead writers left behind
  const tmp = path.join(
    dir,
    `.${path.basename(file)}${TEMP_MARK}${process.pid}-${HOST_TAG}-${randomBytes(4).toString('hex')}`,
  )
  const fd = fs.openSync(tmp, 'wx', 0o644)
  try {
    fs.writeSync(fd, typeof content === 'string' ? Buffer.from(content, 'utf8') : content)
    fs.fsyncSync(fd)
  } catch (e) {
    fs.closeSync(fd)
    fs.rmSync(tmp, { force: true })
    throw new FailureError(`could not write ${file}`, { cause: e })
  }
  fs.closeSync(fd)
  try {
    if (opts.exclusive) {
      // link() fails when the target exists, which rename() would silently replace.
      fs.linkSync(tmp, file)
      fs.unlinkSync(tmp)
    } else {
      fs.renameSync(tmp, file)
    }
  } catch (e) {
    fs.rmSync(tmp, { force: true })
    throw e
  }
  fsyncDir(dir)
}

/** Remove temp files in `dir` whose writer (same host) is no longer alive. Returns the names removed. */
export function sweepTemps(dir: string): string[] {
  const removed: string[] = []
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return removed
  }
  for (const n of names) {
    const m = TEMP_RE.exec(n)
    if (m === null || m[2] !== HOST_TAG || pidAlive(Number(m[1]))) continue
    try {
      fs.unlinkSync(path.join(dir, n))
      removed.push(n)
    } catch {
      // Another process swept it first.
    }
  }
  return removed
}

/** Temp files anywhere under `root` (doctor's `stale-temp`), with whether their writer looks dead. */
export function findTemps(root: string): { path: string; dead: boolean }[] {
  const out: { path: string; dead: boolean }[] = []
  const walk = (dir: string) => {
    let ents: fs.Dirent[]
    try {
      ents = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of ents) {
      const p = path.join(dir, e.name)
      // `worktrees/` holds task checkouts (coordination.md), not workspace files.
      if (e.isDirectory() && !e.isSymbolicLink()) {
        if (dir !== root || e.name !== 'worktrees') walk(p)
      } else if (isTempName(e.name)) {
        const m = TEMP_RE.exec(e.name)
        out.push({ path: p, dead: m === null || m[2] !== HOST_TAG || !pidAlive(Number(m[1])) })
      }
    }
  }
  walk(root)
  return out
}

export function readTextIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw e
  }
}

/** Directory entries, or [] when the directory does not exist. */
export function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return []
    throw e
  }
}
