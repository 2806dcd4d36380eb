// Git object encoding that needs no library: ids (SHA-1 over `<type> <len>\0<body>`),
// tree bodies and commit bodies. The snapshot computes every id itself, so an
// unchanged workspace is recognised without writing a single object.

import { createHash } from 'node:crypto'

export type ObjectType = 'blob' | 'tree' | 'commit'

export const FILE_MODE = '100644'
export const EXEC_MODE = '100755'
export const TREE_MODE = '40000'

/** The abbreviated commit id dacli shows people (ten hex digits). */
export const shortOid = (oid: string): string => oid.slice(0, 10)

export function objectId(type: ObjectType, body: Uint8Array): string {
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex')
}

export interface TreeItem {
  name: string
  /** `100644`, `100755` or `40000` (what git writes; isomorphic-git reads trees as `040000`). */
  mode: string
  oid: string
}

export const isTreeMode = (mode: string) => mode === TREE_MODE || mode === '040000'

/** A tree body: entries in git's order (byte order, a directory compared as if its name ended in `/`). */
export function treeBody(items: readonly TreeItem[]): Buffer {
  const keyed = items.map((i) => ({ i, key: Buffer.from(isTreeMode(i.mode) ? `${i.name}/` : i.name, 'utf8') }))
  keyed.sort((a, b) => Buffer.compare(a.key, b.key))
  return Buffer.concat(
    keyed.flatMap(({ i }) => [
      Buffer.from(`${isTreeMode(i.mode) ? TREE_MODE : i.mode} ${i.name}\0`, 'utf8'),
      Buffer.from(i.oid, 'hex'),
    ]),
  )
}

export interface Signature {
  name: string
  email: string
  /** Seconds since the epoch. */
  timestamp: number
  /** Minutes east of UTC, as isomorphic-git counts them (always 0 for dacli-written commits). */
  timezoneOffset: number
}

/** Names and emails may not carry `<`, `>` or line breaks (git fsck --strict rejects them). */
export function cleanIdent(s: string): string {
  return s.replace(/[<>\r\n\0]/g, '').trim()
}

function signatureLine(role: 'author' | 'committer', s: Signature): string {
  const off = -s.timezoneOffset
  const sign = off < 0 ? '-' : '+'
  const abs = Math.abs(off)
  const tz = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`
  return `${role} ${cleanIdent(s.name)} <${cleanIdent(s.email)}> ${s.timestamp} ${tz}`
}

export interface CommitFields {
  tree: string
  parents: readonly string[]
  author: Signature
  committer: Signature
  message: string
}

export function commitBody(c: CommitFields): Buffer {
  const lines = [`tree ${c.tree}`, ...c.parents.map((p) => `parent ${p}`)]
  lines.push(signatureLine('author', c.author), signatureLine('committer', c.committer))
  const message = c.message.endsWith('\n') ? c.message : `${c.message}\n`
  return Buffer.from(`${lines.join('\n')}\n\n${message}`, 'utf8')
}

/** `Key: value` trailers of a commit message (the last paragraph), keys as written. */
export function trailersOf(message: string): Record<string, string> {
  const paras = message.trimEnd().split(/\n\s*\n/)
  const last = paras.length > 1 ? (paras[paras.length - 1] as string) : ''
  const out: Record<string, string> = {}
  for (const line of last.split('\n')) {
    const m = /^([A-Za-z][A-Za-z0-9-]*):\s*(.*)$/.exec(line.trim())
    if (m) out[m[1] as string] = (m[2] as string).trim()
  }
  return out
}

export interface LocalFile {
  oid: string
  mode: string
  abs: string
  /** The bytes, when this run read them (a cache miss). */
  content?: Buffer
}

export interface LocalDir {
  oid: string
  files: Map<string, LocalFile>
  dirs: Map<string, LocalDir>
  /** The tree body (to write it without recomputing). */
  body: Buffer
}

/** Wrap a folder's tree in the folders above it (`.dacli` → root tree holding `.dacli/`). */
export function wrapIn(tree: LocalDir, prefix: readonly string[]): LocalDir {
  let cur = tree
  for (let i = prefix.length - 1; i >= 0; i--) cur = treeOf(new Map(), new Map([[prefix[i] as string, cur]]))
  return cur
}

/** A tree of `files` and `dirs`, hashed as git would. */
export function treeOf(files: Map<string, LocalFile>, dirs: Map<string, LocalDir>): LocalDir {
  const items: TreeItem[] = []
  for (const [name, f] of files) items.push({ name, mode: f.mode, oid: f.oid })
  for (const [name, d] of dirs) items.push({ name, mode: TREE_MODE, oid: d.oid })
  const body = treeBody(items)
  return { oid: objectId('tree', body), files, dirs, body }
}
