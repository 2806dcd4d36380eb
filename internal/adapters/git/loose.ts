// A fast path for loose objects: one file read and a native inflate. Records
// write loose objects, so the trees and commits a record or a history walk
// reads are nearly always loose; isomorphic-git (whose inflate goes through
// async web streams) still reads everything else, packed objects included.

import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import * as path from 'node:path'
import { deflateSync, inflateSync } from 'node:zlib'
import { type ObjectType, objectId, type Signature, type TreeItem } from './objects.js'
import { tempTag } from './refs.js'

export interface RawObject {
  type: string
  body: Buffer
}

export function readLoose(gitdir: string, oid: string): RawObject | null {
  let raw: Buffer
  try {
    const deflated = readFileSync(path.join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2)))
    // Sized to the object: zlib's default 16 KiB output chunk per call is mostly garbage for small objects.
    raw = inflateSync(deflated, { chunkSize: Math.max(1024, deflated.length * 4) })
  } catch {
    return null // packed, or absent: the caller asks isomorphic-git
  }
  const nul = raw.indexOf(0)
  const header = raw.subarray(0, nul).toString('latin1')
  const sp = header.indexOf(' ')
  const body = raw.subarray(nul + 1)
  if (sp === -1 || Number(header.slice(sp + 1)) !== body.length) return null
  return { type: header.slice(0, sp), body }
}

/**
 * Write one loose object the way git does (a temp file in the fan-out folder, then a link that fails when the
 * object exists, so an object file is never rewritten). For the few small objects a claim needs, this spares
 * loading isomorphic-git. Returns the object id.
 */
export function writeLoose(gitdir: string, type: ObjectType, body: Buffer): string {
  const oid = objectId(type, body)
  const dir = path.join(gitdir, 'objects', oid.slice(0, 2))
  const file = path.join(dir, oid.slice(2))
  mkdirSync(dir, { recursive: true })
  const tmp = path.join(dir, `tmp_obj_dacli_${tempTag()}`)
  const fd = openSync(tmp, 'wx', 0o444)
  try {
    writeSync(fd, deflateSync(Buffer.concat([Buffer.from(`${type} ${body.length}\0`, 'latin1'), body])))
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  try {
    linkSync(tmp, file)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  } finally {
    rmSync(tmp, { force: true })
  }
  return oid
}

export function parseTree(body: Buffer): TreeItem[] {
  const out: TreeItem[] = []
  let i = 0
  while (i < body.length) {
    const sp = body.indexOf(0x20, i)
    const nul = body.indexOf(0, sp)
    if (sp === -1 || nul === -1 || nul + 21 > body.length) break
    out.push({
      mode: body.toString('latin1', i, sp),
      name: body.toString('utf8', sp + 1, nul),
      oid: body.toString('hex', nul + 1, nul + 21),
    })
    i = nul + 21
  }
  return out
}

export interface ParsedCommit {
  tree: string
  parents: string[]
  author: Signature
  committer: Signature
  message: string
}

function signatureOf(value: string): Signature {
  const m = /^(.*?) <([^>]*)> (-?\d+) ([+-])(\d{2})(\d{2})$/.exec(value)
  if (m === null) return { name: value, email: '', timestamp: 0, timezoneOffset: 0 }
  const minutes = Number(m[5]) * 60 + Number(m[6])
  return {
    name: m[1] as string,
    email: m[2] as string,
    timestamp: Number(m[3]),
    // isomorphic-git's convention: minutes *west* of UTC (the sign of Date#getTimezoneOffset).
    timezoneOffset: m[4] === '-' ? minutes : -minutes,
  }
}

export function parseCommit(body: Buffer): ParsedCommit {
  const text = body.toString('utf8')
  const end = text.indexOf('\n\n')
  const head = end === -1 ? text : text.slice(0, end)
  const c: ParsedCommit = {
    tree: '',
    parents: [],
    author: signatureOf(''),
    committer: signatureOf(''),
    message: end === -1 ? '' : text.slice(end + 2),
  }
  for (const line of head.split('\n')) {
    if (line.startsWith(' ')) continue // continuation of a multi-line header (a signature)
    const sp = line.indexOf(' ')
    const key = line.slice(0, sp)
    const value = line.slice(sp + 1)
    if (key === 'tree') c.tree = value
    else if (key === 'parent') c.parents.push(value)
    else if (key === 'author') c.author = signatureOf(value)
    else if (key === 'committer') c.committer = signatureOf(value)
  }
  return c
}

export interface TreeDelta {
  name: string
  before: TreeItem | null
  after: TreeItem | null
}

interface Cursor {
  body: Buffer
  at: number
  sp: number
  nul: number
}

function step(c: Cursor): boolean {
  if (c.at >= c.body.length) return false
  c.sp = c.body.indexOf(0x20, c.at)
  c.nul = c.body.indexOf(0, c.sp)
  return c.sp !== -1 && c.nul !== -1 && c.nul + 21 <= c.body.length
}

const isDir = (c: Cursor) => c.sp - c.at === 5 && c.body[c.at] === 0x34 // "40000"

/** Git order: byte order of names, a folder compared as if its name ended in `/`. */
function order(x: Cursor, y: Cursor): number {
  const xl = x.nul - x.sp - 1
  const yl = y.nul - y.sp - 1
  const n = Math.min(xl, yl)
  const c = x.body.compare(y.body, y.sp + 1, y.sp + 1 + n, x.sp + 1, x.sp + 1 + n)
  if (c !== 0) return c
  const xe = xl > n ? (x.body[x.sp + 1 + n] as number) : isDir(x) ? 0x2f : -1
  const ye = yl > n ? (y.body[y.sp + 1 + n] as number) : isDir(y) ? 0x2f : -1
  return xe - ye
}

const item = (c: Cursor): TreeItem => ({
  mode: c.body.toString('latin1', c.at, c.sp),
  name: c.body.toString('utf8', c.sp + 1, c.nul),
  oid: c.body.toString('hex', c.nul + 1, c.nul + 21),
})

/**
 * The entries that differ between two tree bodies, found by walking both in
 * git's order and comparing bytes: entries that are the same (nearly all of a
 * large folder) never become strings.
 */
export function diffTreeBodies(a: Buffer, b: Buffer): TreeDelta[] {
  const out: TreeDelta[] = []
  const x: Cursor = { body: a, at: 0, sp: 0, nul: 0 }
  const y: Cursor = { body: b, at: 0, sp: 0, nul: 0 }
  let hx = step(x)
  let hy = step(y)
  while (hx || hy) {
    const c = !hx ? 1 : !hy ? -1 : order(x, y)
    if (c === 0) {
      // Same name (and kind): equal when mode and id bytes match.
      const same = a.compare(b, y.at, y.nul + 21, x.at, x.nul + 21) === 0
      if (!same) {
        const before = item(x)
        out.push({ name: before.name, before, after: item(y) })
      }
      x.at = x.nul + 21
      y.at = y.nul + 21
      hx = step(x)
      hy = step(y)
    } else if (c < 0) {
      const before = item(x)
      out.push({ name: before.name, before, after: null })
      x.at = x.nul + 21
      hx = step(x)
    } else {
      const after = item(y)
      out.push({ name: after.name, before: null, after })
      y.at = y.nul + 21
      hy = step(y)
    }
  }
  return out
}
