// Durable file writes: a temp file in the same folder, fsync, rename, fsync the
// folder (FORMAT.md, Concurrency). Readers ignore temp files; the next writer in
// a folder removes temp files whose writer is dead.

import { isUtf8 } from 'node:buffer'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { cmd } from '../base/commands.js'
import { randomHex } from '../base/entropy.js'
import { FailureError } from '../base/errors.js'
import { hostTag, isOwnTag } from '../base/hosttag.js'
import { byText } from '../base/order.js'
import type { Proc } from '../base/system.js'
import { type Broken, brokenOf, InvalidTextError } from '../format/model.js'
import type { Stamp } from './filecache.js'
import { lstatStamp } from './lstat.js'

/** The workspace folder's name (workspace.ts re-exports it as WORKSPACE_DIR). */
const DACLI = '.dacli'

const TEMP_MARK = '.dacli-tmp-'
/** `.<name>.dacli-tmp-<pid>-<host hash>-<random>` */
const TEMP_RE = /^\..*\.dacli-tmp-(\d+)-([0-9a-f]{8})-[0-9a-f]+$/

export function isTempName(name: string): boolean {
  return name.includes(TEMP_MARK)
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

// ------------------------------------------------------------------ no links under .dacli/
//
// The one path-safety rule of the store: dacli never reads or
// writes through a symbolic link anywhere below `.dacli/` — not only `.dacli` itself and the leaf,
// but every folder between (`projects/<slug>`, `tasks/active`, `agents`, `events`, `cache`, `locks` …).
// Writes build their folders one component at a time without following links (mkdirNoLinks);
// readers check a folder's whole chain (linkOnPath) before listing or reading it.

/** A symbolic link where dacli needed a real folder or file below `.dacli/` (exit 1). */
export class LinkError extends FailureError {
  override name = 'LinkError'
  constructor(readonly link: string) {
    super(`${link} is a symbolic link; dacli never reads or writes through a link inside .dacli/`, {
      details: { path: link, code: 'symlink-in-workspace' },
      next: [`replace the link with the real folder or file (${cmd('doctor')} lists every link)`],
    })
  }
}

/** The `.dacli` folder `abs` lies in (the nearest such ancestor), or null for a path outside any workspace. */
function workspaceFolderOf(abs: string): string | null {
  const parts = path.resolve(abs).split(path.sep)
  const i = parts.lastIndexOf(DACLI)
  return i <= 0 ? null : parts.slice(0, i + 1).join(path.sep)
}

/**
 * The first component of `abs`, from its `.dacli` folder `top` down to `abs` itself, that is a symbolic
 * link — or null when there is none (a component that does not exist ends the walk: nothing below it
 * exists either). A path outside `top` counts as a link: it is somewhere dacli must not go.
 */
export function linkOnPath(abs: string, top: string | null = workspaceFolderOf(abs)): string | null {
  if (top === null) return null
  const rel = path.relative(top, abs)
  if (rel.startsWith('..') || path.isAbsolute(rel)) return abs
  let cur = top
  for (const seg of rel === '' ? [''] : ['', ...rel.split(path.sep)]) {
    if (seg !== '') cur = `${cur}${path.sep}${seg}`
    let st: fs.Stats | undefined
    try {
      st = fs.lstatSync(cur, { throwIfNoEntry: false }) // a missing folder is common (no notes of a kind): no error made
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') return null
      throw e
    }
    if (st === undefined) return null
    if (st.isSymbolicLink()) return cur
  }
  return null
}

/** Throw LinkError when a component of `abs` below its `.dacli` folder is a link. */
export function assertNoLinks(abs: string, top: string | null = workspaceFolderOf(abs)): void {
  const link = linkOnPath(abs, top)
  if (link !== null) throw new LinkError(link)
}

/** `mkdir -p` below `top` that never follows a link: each missing folder is created on its own. */
export function mkdirNoLinks(absDir: string, top: string | null = workspaceFolderOf(absDir)): void {
  if (top === null) {
    fs.mkdirSync(absDir, { recursive: true })
    return
  }
  const rel = path.relative(top, absDir)
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new LinkError(absDir)
  let cur = top
  for (const seg of rel === '' ? [''] : ['', ...rel.split(path.sep)]) {
    if (seg !== '') cur = `${cur}${path.sep}${seg}`
    let st: fs.Stats | null = null
    try {
      st = fs.lstatSync(cur)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
    }
    if (st === null) {
      try {
        fs.mkdirSync(cur)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      }
      st = fs.lstatSync(cur)
    }
    if (st.isSymbolicLink()) throw new LinkError(cur)
    if (!st.isDirectory()) throw new FailureError(`${cur} is not a folder`, { details: { path: cur } })
  }
}

/**
 * A path inside the workspace folder `top` from names that came from outside dacli (a record branch,
 * a file): each segment must be one plain name, and no existing component may be a link.
 */
export function workspacePath(top: string, segments: readonly string[]): string {
  for (const s of segments) {
    if (s === '' || s === '.' || s === '..' || /[/\\\0]/.test(s)) {
      throw new FailureError(`refusing the path segment ${JSON.stringify(s)} inside ${top}`, {
        details: { segment: s },
      })
    }
  }
  const abs = path.join(top, ...segments)
  assertNoLinks(abs, top)
  return abs
}

/** Remove a file below `.dacli/` (never through a linked folder). */
export function removeFile(file: string): void {
  assertNoLinks(path.dirname(file))
  fs.rmSync(file, { force: true })
}

/** A fresh temp file name beside `file`: readers skip it, and once its writer is dead the next writer sweeps it. */
export function tempPathFor(sys: Proc, file: string): string {
  const name = `.${path.basename(file)}${TEMP_MARK}${sys.pid}-${hostTag(sys)}-${randomHex(4)}`
  return path.join(path.dirname(file), name)
}

/** Write `content` to `file` atomically and durably. With `exclusive`, fail (EEXIST) when the file exists. */
export function atomicWrite(
  sys: Proc,
  file: string,
  content: string | Buffer,
  opts: { exclusive?: boolean } = {},
): void {
  const dir = path.dirname(file)
  mkdirNoLinks(dir)
  sweepTemps(sys, dir) // the next writer in a folder removes what dead writers left behind
  const tmp = tempPathFor(sys, file)
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
export function sweepTemps(sys: Proc, dir: string): string[] {
  const removed: string[] = []
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return removed
  }
  for (const n of names) {
    const m = TEMP_RE.exec(n)
    if (m === null || !isOwnTag(sys, m[2] as string) || sys.isAlive(Number(m[1]))) continue
    try {
      fs.unlinkSync(path.join(dir, n))
      removed.push(n)
    } catch {
      // Another process swept it first.
    }
  }
  return removed
}

/**
 * Every entry under `root`, depth first, in directory order, never through a link (a link is an entry, not a
 * folder). `visit` answers for a folder whether to enter it. A folder that cannot be read is passed over.
 */
export function walkTree(root: string, visit: (p: string, e: fs.Dirent, dir: string) => boolean): void {
  const walk = (dir: string) => {
    let ents: fs.Dirent[]
    try {
      ents = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of ents) {
      const p = path.join(dir, e.name)
      if (visit(p, e, dir) && e.isDirectory()) walk(p)
    }
  }
  walk(root)
}

/**
 * The folders of `.dacli/` a long-lived server watches for changes to the workspace's objects, at most 5,000 (well
 * inside the system's inotify limit): every folder but those that hold no object a page or a resource shows — the
 * caches, the locks, the task worktrees (source checkouts: a code edit is no change to the backlog), the archive and
 * the cleanup artifacts.
 */
export const objectFolders = (dir: string): string[] =>
  foldersUnder(dir, new Set(['cache', 'locks', 'worktrees', 'archive', 'cleanup']), 5_000)

/**
 * The folders under `root`, itself first, depth first (walkTree's order), at most `max`; the top-level folders
 * named in `skipTop` are passed over.
 */
export function foldersUnder(root: string, skipTop: ReadonlySet<string>, max: number): string[] {
  const out = [root]
  walkTree(root, (p, e, dir) => {
    if (!e.isDirectory() || out.length >= max || (dir === root && skipTop.has(e.name))) return false
    out.push(p)
    return true
  })
  return out
}

/** Is `folder` (under the workspace folder `dir`) the `cleanup/<id>/files/` folder of a cleanup's restore artifact? */
export const keptByCleanup = (dir: string, folder: string) =>
  path.basename(folder) === 'files' && path.dirname(path.dirname(folder)) === path.join(dir, 'cleanup')

/** Temp files anywhere under `root` (doctor's `stale-temp`), with whether their writer looks dead. */
export function findTemps(sys: Proc, root: string): { path: string; dead: boolean; swept: boolean }[] {
  const out: { path: string; dead: boolean; swept: boolean }[] = []
  walkTree(root, (p, e, dir) => {
    // `worktrees/` holds task checkouts and `cleanup/<id>/files/` what a cleanup kept for its restore: not workspace files.
    if (e.isDirectory()) return dir === root ? e.name !== 'worktrees' : !keptByCleanup(root, path.join(dir, e.name))
    if (isTempName(e.name)) {
      const m = TEMP_RE.exec(e.name)
      const mine = m !== null && isOwnTag(sys, m[2] as string)
      // `swept`: the next write in its folder removes it (sweepTemps: only this host's, by a writer that is gone).
      const dead = !mine || !sys.isAlive(Number(m[1]))
      out.push({ path: p, dead, swept: mine && dead })
    }
    return false
  })
  return out
}

/** A FIFO, socket or device where dacli expected a file: never read (a FIFO would block the command forever). */
export class SpecialFileError extends FailureError {
  override name = 'SpecialFileError'
  readonly code = 'special-file'
  constructor(file: string) {
    super(`${file} is not a regular file (a FIFO, socket or device); dacli never reads one`, {
      details: { path: file, code: 'special-file' },
    })
  }
}

/**
 * Open `file` for reading without blocking on a FIFO; refuse anything that is not a regular file, and a link in its
 * place (O_NOFOLLOW: a file swapped for a link after the listing's lstat is never read through; LinkError).
 */
function openRegular(file: string): number {
  return openRegularStat(file).fd
}

/** openRegular, with the stat of what was opened. */
function openRegularStat(file: string): { fd: number; st: fs.Stats } {
  let fd: number
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new LinkError(file)
    throw e
  }
  const st = fs.fstatSync(fd)
  if (!st.isFile()) {
    fs.closeSync(fd)
    throw new SpecialFileError(file)
  }
  return { fd, st }
}

/**
 * An object file's text (as readText reads it) and the stamp of what was read, from one open: the stamp is taken
 * from the open file before its bytes are read, so a change made in between moves the file's stamp past the one
 * returned, and a value kept with that stamp is never served for the changed file. For a reader that took no
 * stamp before (a listing with nothing kept to check: FORMAT.md "The cache"), this replaces an `lstat` per file.
 */
export function readTextStamped(file: string): { text: string; stamp: Stamp } {
  const { fd, st } = openRegularStat(file)
  try {
    const stamp = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs }
    if (st.size < SCRATCH_BYTES) {
      scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES)
      const n = fs.readSync(fd, scratch, 0, SCRATCH_BYTES, 0)
      if (n < SCRATCH_BYTES) return { text: textOf(scratch.subarray(0, n)), stamp }
    }
    return { text: textOf(fs.readFileSync(fd)), stamp }
  } finally {
    fs.closeSync(fd)
  }
}

/** A regular file's bytes, opened as readText opens it: never through a link at its end, never a FIFO or device. */
export function readBytes(file: string): Buffer {
  const fd = openRegular(file)
  try {
    return fs.readFileSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * An object file's text. Bytes that are not valid UTF-8 would be replaced (U+FFFD) by a plain read
 * and so changed on the next rewrite: such a file is refused instead (InvalidTextError, `invalid-utf8`).
 */
export function readText(file: string, size?: number): string {
  if (size !== undefined && size < SCRATCH_BYTES) {
    scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES)
    const n = readInto(file, scratch)
    if (n <= size) return textOf(scratch.subarray(0, n))
  }
  const fd = openRegular(file)
  try {
    return textOf(fs.readFileSync(fd))
  } finally {
    fs.closeSync(fd)
  }
}

function textOf(buf: Buffer): string {
  if (!isUtf8(buf))
    throw new InvalidTextError(
      'not valid UTF-8 (dacli reads and rewrites only UTF-8 text, so it leaves this file alone)',
    )
  return buf.toString('utf8')
}

/**
 * One buffer (made on first use) for the reads of files whose size a listing has just taken (thousands on a cold run): no buffer
 * made per file, and the text is decoded from it at once (the bytes are never kept).
 */
let scratch: Buffer | null = null
const SCRATCH_BYTES = 64 * 1024

/** Read a file into `buf` (one open, one read, one close): its length, or more than its size when it grew since. */
function readInto(file: string, buf: Buffer): number {
  const fd = openRegular(file)
  try {
    return fs.readSync(fd, buf, 0, buf.length, 0)
  } finally {
    fs.closeSync(fd)
  }
}

/** An object file of a folder, found a regular file by its lstat (which gave its stamp). */
export interface FolderFile {
  /** Its name in the folder. */
  name: string
  /** Absolute path. */
  file: string
  /** Path from the workspace root. */
  rel: string
  stamp: { size: number; mtimeMs: number; ctimeMs: number; ino: number }
}

/**
 * The object files of a folder (`*.md`, no dot or temp file), by name, with what cannot be one in its place (a
 * link, a special file); a folder reached through a link or one that cannot be read is one skip (a missing folder
 * holds nothing).
 */
export function folderFiles(
  store: { dir: string; rel(abs: string): string },
  dir: string,
): (FolderFile | { skip: Broken })[] {
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
    // One lstat tells a link or a special file from a regular one and gives the stamp the cache validates by (as a
    // task walk takes it: lstat.ts).
    const file = `${dir}${path.sep}${n}`
    const rel = `${relDir}/${n}`
    const s: number[] = []
    const st = lstatStamp(file, s)
    if (st === 'missing') continue // removed while listing
    if (st === 'file') {
      out.push({
        name: n,
        file,
        rel,
        stamp: { size: s[0] as number, mtimeMs: s[1] as number, ctimeMs: s[3] as number, ino: s[2] as number },
      })
    } else if (st.isSymbolicLink())
      out.push({ skip: { path: rel, reason: 'symbolic link (not followed)', code: 'symlink-in-workspace' } })
    else out.push({ skip: notAFile(st, rel, 'an object file') })
  }
  return out
}

/**
 * Many strings written to a file one after another, from `at` on, through one reused buffer, encoded into it as they
 * come: a large text made of thousands of entries is neither joined into one string nor encoded into a buffer of its
 * own first (each a fresh copy of the whole). `at` is where the next byte goes.
 */
export class Spool {
  private readonly buf = Buffer.allocUnsafe(SPOOL_BYTES)
  private used = 0
  private written: number
  /** Handed every piece as it is written (a cache line's code is computed so). */
  tap: ((b: Buffer) => void) | null = null
  constructor(
    private readonly fd: number,
    from = 0,
  ) {
    this.written = from
  }

  get at(): number {
    return this.written + this.used
  }

  /** Write `s` (UTF-8). */
  text(s: string): void {
    // A UTF-16 unit takes at most three bytes; a text that may not fit what is left goes after a flush.
    if (s.length * 3 > SPOOL_BYTES - this.used) {
      this.flush()
      if (s.length * 3 > SPOOL_BYTES) {
        this.put(Buffer.from(s))
        return
      }
    }
    this.used += this.buf.write(s, this.used)
  }

  /** Write `b` as it is. */
  bytes(b: Buffer): void {
    this.flush()
    this.put(b)
  }

  /** Write what is buffered. */
  flush(): void {
    if (this.used === 0) return
    const n = this.used
    this.used = 0
    this.put(this.buf.subarray(0, n))
  }

  private put(b: Buffer): void {
    this.tap?.(b)
    let done = 0
    while (done < b.length) done += fs.writeSync(this.fd, b, done, b.length - done, this.written + done)
    this.written += b.length
  }
}

const SPOOL_BYTES = 64 * 1024

/**
 * What is wrong with an entry named like an object file that is not a regular file: a folder (nothing in it is read)
 * is `unparseable-object`; a FIFO, socket or device is `special-file`.
 */
export function notAFile(kind: fs.Dirent | fs.Stats, rel: string, what: string): Broken {
  if (kind.isDirectory())
    return { path: rel, reason: `a folder, not ${what}: nothing in it is read`, code: 'unparseable-object' }
  return { path: rel, reason: 'not a regular file (not read)', code: 'special-file' }
}
