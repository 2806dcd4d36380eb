// A fast path for loose objects: one file read and a native inflate. Records
// write loose objects, so the trees and commits a record or a history walk
// reads are nearly always loose; isomorphic-git (whose inflate goes through
// async web streams) still reads everything else, packed objects included.

import { readFileSync } from 'node:fs'
import * as path from 'node:path'
import { inflateSync } from 'node:zlib'
import type { Signature, TreeItem } from './objects.js'

export interface RawObject {
  type: string
  body: Buffer
}

export function readLoose(gitdir: string, oid: string): RawObject | null {
  let raw: Buffer
  try {
    raw = inflateSync(readFileSync(path.join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2))))
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
