// System.lstatInto (internal/base/system.ts): lstat numbers without building an fs.Stats.
//
// Node 20 makes every fs.Stats with four Date objects, and a listing stats every task file to check it against
// the index: at 10,000 tasks that is 40,000 Dates a run, most of what a walk of the task folders costs after the
// system calls themselves (measured: 10,000 lstats took ~110–170 ms through fs.lstatSync and ~60 ms through the
// call below, on the same machine under load). Node has no public call that stats without the Dates, so this
// uses the one fs.lstatSync itself makes (process.binding('fs').lstat, which fills a shared array of numbers).
//
// It is an internal interface, so it is used only where it is proven to agree: it is turned off when Node would
// warn about it (--pending-deprecation), when the permission model is on (fs.lstatSync checks permissions before
// the call; the call itself does not), when it is missing, and unless its answer for a known file and a known
// missing path equals fs.lstatSync's, field by field, when it is first asked for. Otherwise callers use
// fs.lstatSync: the result is the same, only slower.

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { LstatInto } from '../internal/base/system.js'

/** Indexes in the array the binding fills (node's src/node_file.h FsStatsOffset). */
const MODE = 1
const INO = 7
const SIZE = 8
const MTIME_S = 12
const MTIME_NS = 13
const CTIME_S = 14
const CTIME_NS = 15

type RawLstat = (path: string, bigint: false, req: undefined, throwIfNoEntry: boolean) => Float64Array | undefined

/** The binding's lstat, or null where using it would warn, bypass a permission check, or is not there. */
function binding(): RawLstat | null {
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ')
  if (/--pending-deprecation|--experimental-permission|--permission/.test(flags)) return null
  if (process.env.NODE_PENDING_DEPRECATION === '1') return null
  if ((process as { permission?: unknown }).permission !== undefined) return null
  try {
    const b = (process as unknown as { binding?: (name: string) => { lstat?: unknown } }).binding?.('fs')
    return typeof b?.lstat === 'function' ? (b.lstat as RawLstat).bind(b) : null
  } catch {
    return null
  }
}

/** The milliseconds fs.Stats reports for a (seconds, nanoseconds) pair: the same arithmetic, so equal to the bit. */
const ms = (sec: number, nsec: number) => sec * 1e3 + nsec / 1e6

function fill(raw: Float64Array, out: Float64Array): void {
  out[0] = raw[MODE] as number
  out[1] = raw[SIZE] as number
  out[2] = ms(raw[MTIME_S] as number, raw[MTIME_NS] as number)
  out[3] = raw[INO] as number
  out[4] = ms(raw[CTIME_S] as number, raw[CTIME_NS] as number)
}

/** Does `raw` answer exactly as fs.lstatSync does for `file` (a file that exists, and a path that does not)? */
function agrees(raw: RawLstat, file: string): boolean {
  try {
    const st = fs.lstatSync(file)
    const a = raw(file, false, undefined, false)
    if (!(a instanceof Float64Array)) return false
    const out = new Float64Array(5)
    fill(a, out)
    const same =
      out[0] === st.mode && out[1] === st.size && out[2] === st.mtimeMs && out[3] === st.ino && out[4] === st.ctimeMs
    return same && raw(path.join(path.dirname(file), '.dacli-no-such-entry'), false, undefined, false) === undefined
  } catch {
    return false
  }
}

/**
 * The fast lstat, or undefined where it cannot be trusted (see above): the check runs here, once, on `probe`, a file
 * that exists (the Node binary by default).
 */
export function fastLstat(probe: string = process.execPath): LstatInto | undefined {
  const raw = binding()
  if (raw === null || !agrees(raw, probe)) return undefined
  return (file, out) => {
    const a = raw(file, false, undefined, false)
    if (a === undefined) return false
    fill(a, out)
    return true
  }
}
