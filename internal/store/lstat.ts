// The one lstat per task file that a listing checked against the files takes (FORMAT.md, "The cache"): at 10,000
// tasks, 10,000 calls in every `task list`, `next` or `critical-path`. Node 20's fs.lstatSync makes a Stats object
// and four Date objects for each, where a walk keeps four numbers of a regular file: about 40 % of the call's time
// here (10,000 calls: 95 ms, 55 without the objects), and garbage the next collection walks. Where the running Node
// lends its own lstat (System.lstatNumbers: the numbers in Node's order, no object made), the walk takes the numbers
// from it, once it has given for one file exactly what fs.lstatSync gives (kind, size, inode and both times). If
// that first answer differs or is an error, fs.lstatSync is used for the rest of the process; a later error is left
// to fs.lstatSync to name.

import * as fs from 'node:fs'
import type { System } from '../base/system.js'

/** Node's lstat numbers: mode at 1, inode at 7, size at 8, modification time at 12 (s) and 13 (ns), change at 14, 15. */
type LstatNumbers = NonNullable<System['lstatNumbers']>

let lent: LstatNumbers | null = null
/** Has `lent` given what fs.lstatSync gives for one file (null: not asked yet)? */
let agreed: boolean | null = null

/** Take the running Node's own lstat, when the system lends one (Store.open; a test may take it back with null). */
export function useLstatNumbers(fn: LstatNumbers | null): void {
  if (fn === lent) return
  lent = fn
  agreed = null
}

const S_IFMT = 0o170000
const S_IFREG = 0o100000

/** Milliseconds from seconds and nanoseconds, computed as Node computes a Stats' `mtimeMs` (the same double). */
const msOf = (s: number, ns: number) => s * 1e3 + ns / 1e6

/**
 * Append `file`'s stamp (size, modification time in ms, inode, change time in ms) to `out` when it is a regular
 * file: 'file'. Anything else (a link, a folder, a FIFO) is given as fs.lstatSync's Stats, to say what it is;
 * 'missing' when it is not there. Never follows a link; one fs.lstatSync at most.
 */
export function lstatStamp(file: string, out: number[]): 'file' | 'missing' | fs.Stats {
  if (lent !== null && agreed !== false) {
    let a: ArrayLike<number> | undefined | null
    try {
      a = agreed === null ? firstLook(file, lent) : lent(file)
    } catch {
      a = null // an error of this file's (fs.lstatSync says which)
    }
    if (a === undefined) return 'missing'
    if (a !== null && ((a[1] as number) & S_IFMT) === S_IFREG) {
      out.push(
        a[8] as number,
        msOf(a[12] as number, a[13] as number),
        a[7] as number,
        msOf(a[14] as number, a[15] as number),
      )
      return 'file'
    }
  }
  const st = fs.lstatSync(file, { throwIfNoEntry: false })
  if (st === undefined) return 'missing'
  if (!st.isFile()) return st
  out.push(st.size, st.mtimeMs, st.ino, st.ctimeMs)
  return 'file'
}

/**
 * The lent lstat's numbers for `file`, compared with fs.lstatSync's: null, and the lent one never asked again, when
 * they differ. Two answers that the file is not there decide nothing (the next file is compared). A file changed
 * between the two looks only costs the speed.
 */
function firstLook(file: string, fn: LstatNumbers): ArrayLike<number> | undefined | null {
  let a: ArrayLike<number> | undefined
  try {
    a = fn(file)
  } catch {
    agreed = false
    return null
  }
  const copy = a === undefined ? undefined : Array.from(a)
  const st = fs.lstatSync(file, { throwIfNoEntry: false })
  if (st === undefined && copy === undefined) return undefined
  agreed =
    st !== undefined &&
    copy !== undefined &&
    copy.length >= 16 &&
    ((copy[1] as number) & S_IFMT) === (st.mode & S_IFMT) &&
    copy[7] === st.ino &&
    copy[8] === st.size &&
    msOf(copy[12] as number, copy[13] as number) === st.mtimeMs &&
    msOf(copy[14] as number, copy[15] as number) === st.ctimeMs
  return agreed ? copy : null
}
