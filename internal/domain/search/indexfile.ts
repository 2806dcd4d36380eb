// The search index file, `.dacli/cache/search`: what each indexed object file held when it was last read (its
// stamp, what listing it needs, its document) and an inverted index of its words, laid out so that a search
// reads only the byte ranges it needs (FORMAT.md, "The cache"). This module knows the bytes; what they are
// trusted for is search.ts's. Every value read is checked before use: a file that does not describe itself
// (a torn write, garbage, a foreign release, a range that is not the one this clone wrote) is no index
// (CorruptIndex), never a source of results.

import { createHmac } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import { VERSION } from '../../base/version.js'
import type { CacheTrust } from '../../store/cachekey.js'
import { RACY_MS } from '../../store/filecache.js'
import { FIELD_NAMES, FIELD_WEIGHTS, type Item, SEARCH_KINDS } from './docs.js'
import type { Field } from './rank.js'

/** Bump when the layout or any value's shape changes (the release version is in the header too). */
const FORMAT = 3
export const HEADER = `dacli-search ${FORMAT} ${os.endianness()} ${VERSION}`

/**
 * The code written with every range and checked against it when read: the first 32 bits of an HMAC-SHA256 of the
 * range under the clone's cache key (store/cachekey.ts), so a range an agent changed or planted in the work tree
 * fails (a forger without the key must guess 32 bits per range, and a wrong guess only has the index rebuilt).
 * Each range's code sits in a section that is itself checked, up to the table of contents.
 */
export type Code = (bytes: Buffer) => number
/** The index's name under `cache/`, as CacheTrust records it. */
const NAME = 'search'
/** An open file's stamp, as CacheTrust records it. */
const stampOfFd = (fd: number) => {
  const st = fs.fstatSync(fd)
  return `${st.size}:${st.mtimeMs}:${st.ino}:${st.ctimeMs}`
}
export const keyedCode =
  (key: Buffer): Code =>
  (bytes) =>
    createHmac('sha256', key).update(HEADER).update(bytes).digest().readUInt32BE(0)

/** A file that is not a search index this release wrote, or one whose values do not describe it. */
export class CorruptIndex extends Error {}

const bad = (what: string): never => {
  throw new CorruptIndex(what)
}

/**
 * Bytes whose code must be `crc` (every range read is checked against the code written with it); `code` null: the
 * file was found whole before (CacheTrust), and is read unchecked.
 */
function checked(code: Code | null, buf: Buffer, crc: number, what: string): Buffer {
  if (code !== null && code(buf) !== crc) bad(`${what} that does not match its code`)
  return buf
}

/** The sections, in file order: the ones every search reads come first (read in one go), then the others. */
const HEAD_SECTIONS = ['groups', 'orders', 'stamps', 'first', 'terms', 'termtext', 'plist', 'pcrc'] as const
const TAIL_SECTIONS = ['orderlist', 'events', 'meta', 'postings', 'docs', 'doctext'] as const
const SECTIONS = [...HEAD_SECTIONS, ...TAIL_SECTIONS]
type SectionName = (typeof SECTIONS)[number]

/** No document (an event that is no open question). */
export const NO_DOC = 0xffffffff
/** `first` of a document: the code of its first field and how many words it holds. */
export const firstOf = (code: number, words: number) => ((code << 24) | Math.min(words, 0xffffff)) >>> 0

/**
 * One folder's entries: the i-th name of `joined` (its file names, one a line) is entry `base + i`; `meta` is the
 * byte range of its listing values.
 */
export class Group {
  private split: string[] | null = null
  constructor(
    readonly key: string,
    readonly base: number,
    readonly count: number,
    readonly joined: string,
    /** Where its listing values lie in the meta section, and their checksum. */
    readonly meta: [number, number, number],
  ) {}

  /** The names, one per entry (CorruptIndex when there are not `count`). */
  get names(): string[] {
    if (this.split === null) {
      this.split = this.joined.split('\n')
      if (this.split.length !== this.count) bad('a group whose names are not its entries')
    }
    return this.split
  }
}

/** The open questions of the events, as a listing leaves them (deduplicated), and the copies it skipped. */
export interface EventList {
  questions: { entry: number; project: string | null }[]
  skipped: { path: string; reason: string; code: string }[]
}

/** A term's postings, decoded: entry, field code, count. */
export interface Posting {
  entry: number
  code: number
  count: number
}

const u32 = (buf: Buffer): Uint32Array => {
  if (buf.length % 4 !== 0) bad('a table of the wrong length')
  const out = new Uint32Array(buf.length / 4)
  Buffer.from(out.buffer).set(buf)
  return out
}

const f64 = (buf: Buffer): Float64Array => {
  if (buf.length % 8 !== 0) bad('a table of the wrong length')
  const out = new Float64Array(buf.length / 8)
  Buffer.from(out.buffer).set(buf)
  return out
}

/** Offsets that rise from 0 to `end` (a table of where each item's bytes or postings start). */
function checkOffsets(t: Uint32Array, end: number): void {
  if (t.length === 0 || t[0] !== 0 || t[t.length - 1] !== end) bad('offsets that do not span their section')
  for (let i = 1; i < t.length; i++) if ((t[i] as number) < (t[i - 1] as number)) bad('offsets that fall')
}

const isInt = (v: unknown, max: number): v is number =>
  Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= max

/**
 * An index file opened for one search: its table of contents and the sections every search needs, read at
 * once; the others (a group's listing values, a term's postings, a document) read by byte range on demand, from
 * the same open file (a rewrite by another process replaces the file and leaves this one whole).
 */
export class IndexReader {
  readonly groups: Group[] = []
  readonly byKey = new Map<string, Group>()
  /** Per project, where its tasks' listing order lies in `orderlist`. */
  private readonly orderAt = new Map<string, [number, number, number]>()
  readonly stamps: Float64Array
  readonly first: Uint32Array
  readonly entries: number
  private readonly terms: Uint32Array
  private readonly termtext: Buffer
  private readonly plist: Uint32Array
  /** Each term's postings' code. */
  private readonly pcrc: Uint32Array
  private readonly at: Record<SectionName, [number, number, number]>
  private closed = false

  private constructor(
    private readonly fd: number,
    readonly size: number,
    /** The file's stamp when it was opened (`size:mtimeMs:ino:ctimeMs`). */
    private readonly stamp: string,
    /** What each range's code is checked with (the writer's, under the same key); null: a file found whole. */
    private code: Code | null,
  ) {
    const head = this.read(0, Math.min(size, 64 * 1024))
    const first = head.indexOf(10)
    if (first === -1 || head.toString('latin1', 0, first) !== HEADER) bad('not a search index of this release')
    const second = head.indexOf(10, first + 1)
    if (second === -1) bad('no table of contents')
    const base = second + 1
    let toc: unknown
    try {
      toc = JSON.parse(head.toString('utf8', first + 1, second))
    } catch {
      bad('a table of contents that is no JSON')
    }
    if (toc === null || typeof toc !== 'object' || Array.isArray(toc)) bad('a table of contents that is no map')
    const at = {} as Record<SectionName, [number, number, number]>
    let last = base
    for (const name of SECTIONS) {
      const r = (toc as Record<string, unknown>)[name]
      if (!Array.isArray(r) || r.length !== 3 || !isInt(r[0], size) || !isInt(r[1], size) || !isInt(r[2], 0xffffffff))
        bad(`no section ${name}`)
      const [a, b, crc] = [base + (r as number[])[0]!, base + (r as number[])[1]!, (r as number[])[2]!]
      if (a !== last || b < a || b > size) bad(`section ${name} out of place`)
      at[name] = [a, b, crc]
      last = b
    }
    if (last !== size) bad('bytes past the last section')
    this.at = at
    // The sections every search needs, in one read.
    const start = at.groups[0]
    const all = this.read(start, at.pcrc[1] - start)
    const part = (n: SectionName) => checked(code, all.subarray(at[n][0] - start, at[n][1] - start), at[n][2], n)
    this.stamps = f64(part('stamps'))
    this.entries = this.stamps.length / 4
    if (!Number.isInteger(this.entries)) bad('a stamp table of the wrong length')
    this.first = u32(part('first'))
    if (this.first.length !== this.entries) bad('a first-field table of the wrong length')
    this.terms = u32(part('terms'))
    this.termtext = Buffer.from(part('termtext'))
    this.plist = u32(part('plist'))
    this.pcrc = u32(part('pcrc'))
    checkOffsets(this.terms, this.termtext.length)
    if (this.plist.length !== this.terms.length) bad('postings offsets of the wrong length')
    if (this.pcrc.length !== this.terms.length - 1) bad('postings checksums of the wrong length')
    checkOffsets(this.plist, (at.postings[1] - at.postings[0]) / 8)
    this.readGroups(part('groups'))
    this.readOrders(part('orders'))
  }

  /**
   * The index at `file`, or null when there is none; CorruptIndex when it is not one to trust. A file `trust` found
   * whole before, with the stamp it has now, is read without checking codes; a settled file not found so yet is
   * checked whole now (every section against its code in the table of contents) and recorded (store/cachekey.ts).
   */
  static open(file: string, code: Code, trust: CacheTrust): IndexReader | null {
    let fd: number
    try {
      // O_NONBLOCK: a FIFO in its place is opened without waiting for a writer, then refused as not a regular file.
      fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | (fs.constants.O_NOFOLLOW ?? 0))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw new CorruptIndex(`cannot be opened: ${(e as Error).message}`)
    }
    try {
      const st = fs.fstatSync(fd)
      if (!st.isFile()) bad('not a regular file')
      const stamp = stampOfFd(fd)
      const whole = trust.verified(NAME, stamp)
      const reader = new IndexReader(fd, st.size, stamp, whole ? null : code)
      if (!whole && Date.now() - Math.max(st.mtimeMs, st.ctimeMs) > RACY_MS) {
        reader.checkWhole()
        trust.markVerified(NAME, stamp)
      }
      return reader
    } catch (e) {
      fs.closeSync(fd)
      throw e instanceof CorruptIndex ? e : new CorruptIndex((e as Error).message)
    }
  }

  /** Check every section against its code in the table of contents (CorruptIndex on the first that fails); then
   * read unchecked. */
  private checkWhole(): void {
    for (const n of SECTIONS)
      checked(this.code, this.read(this.at[n][0], this.at[n][1] - this.at[n][0]), this.at[n][2], n)
    this.code = null
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    fs.closeSync(this.fd)
  }

  /** `length` bytes from `pos` (CorruptIndex when the file is shorter than its table says). */
  read(pos: number, length: number): Buffer {
    const buf = Buffer.allocUnsafe(length)
    let got = 0
    while (got < length) {
      const n = fs.readSync(this.fd, buf, got, length - got, pos + got)
      if (n === 0) bad('a file shorter than its table')
      got += n
    }
    // Read unchecked (found whole before): only while the file keeps the stamp it was found whole with.
    if (this.code === null && stampOfFd(this.fd) !== this.stamp) bad('a file written to while it was read')
    return buf
  }

  private readGroups(bytes: Buffer): void {
    let list: unknown
    try {
      list = JSON.parse(bytes.toString('utf8'))
    } catch {
      bad('a group table that is no JSON')
    }
    if (!Array.isArray(list)) bad('a group table that is no list')
    const metaLength = this.at.meta[1] - this.at.meta[0]
    let next = 0
    for (const g of list as unknown[]) {
      if (!Array.isArray(g) || g.length !== 7) bad('a group that is no [key, base, count, names, meta range, crc]')
      const [key, base, count, names, ms, me, crc] = g as unknown[]
      if (!isInt(crc, 0xffffffff)) bad('a group without a checksum')
      if (typeof key !== 'string' || typeof names !== 'string' || this.byKey.has(key)) bad('a group key or names')
      if (base !== next || !isInt(count, this.entries) || (count as number) === 0) bad('a group out of place')
      if (!isInt(ms, metaLength) || !isInt(me, metaLength) || (me as number) < (ms as number))
        bad('a group out of place')
      const group = new Group(key as string, next, count as number, names as string, [
        ms as number,
        me as number,
        crc as number,
      ])
      next += group.count
      this.groups.push(group)
      this.byKey.set(group.key, group)
    }
    if (next !== this.entries) bad('groups that do not cover the entries')
  }

  private readOrders(bytes: Buffer): void {
    let map: unknown
    try {
      map = JSON.parse(bytes.toString('utf8'))
    } catch {
      bad('an order table that is no JSON')
    }
    if (map === null || typeof map !== 'object' || Array.isArray(map)) bad('an order table that is no map')
    const length = (this.at.orderlist[1] - this.at.orderlist[0]) / 4
    for (const [project, r] of Object.entries(map as Record<string, unknown>)) {
      if (!Array.isArray(r) || r.length !== 3 || !isInt(r[0], length) || !isInt(r[1], length) || r[1] < r[0])
        bad('an order out of place')
      if (!isInt((r as unknown[])[2], 0xffffffff)) bad('an order without a checksum')
      this.orderAt.set(project, r as [number, number, number])
    }
  }

  /**
   * A project's tasks' entries as a listing orders them (deduplicated, by number and path), when the index
   * holds it: each an entry of that project's, none twice.
   */
  order(project: string): Uint32Array | undefined {
    const r = this.orderAt.get(project)
    if (r === undefined) return undefined
    const list = u32(
      checked(this.code, this.read(this.at.orderlist[0] + 4 * r[0], 4 * (r[1] - r[0])), r[2], 'an order'),
    )
    // Each entry once, and in one of the project's groups.
    const prefix = `t/${project}/`
    const mine = new Uint8Array(this.entries)
    for (const g of this.groups) if (g.key.startsWith(prefix)) mine.fill(1, g.base, g.base + g.count)
    for (let i = 0; i < list.length; i++) {
      const e = list[i] as number
      if (e >= this.entries || mine[e] !== 1) bad('an order naming an entry of another project, or one twice')
      mine[e] = 2
    }
    return list
  }

  /** The events' open questions and skipped copies, as the index was written (checked). */
  events(): EventList {
    const [a, b] = this.at.events
    let v: unknown
    try {
      v = JSON.parse(checked(this.code, this.read(a, b - a), this.at.events[2], 'an event list').toString('utf8'))
    } catch (e) {
      if (e instanceof CorruptIndex) throw e
      bad('an event list that is no JSON')
    }
    if (!Array.isArray(v) || v.length !== 2 || !Array.isArray(v[0]) || !Array.isArray(v[1]))
      bad('an event list of the wrong shape')
    const g = this.byKey.get('e')
    const questions = (v as unknown[][])[0]?.map((x) => {
      if (!Array.isArray(x) || x.length !== 2 || !isInt(x[0], this.entries - 1) || !strOrNull(x[1]))
        return bad('a question of the wrong shape')
      if (g === undefined || x[0] < g.base || x[0] >= g.base + g.count || this.first[x[0]] === NO_DOC)
        bad('a question naming no event')
      return { entry: x[0] as number, project: x[1] as string | null }
    }) as EventList['questions']
    const skipped = (v as unknown[][])[1]?.map((x) => {
      if (!Array.isArray(x) || x.length !== 3 || !x.every(str)) return bad('a skip of the wrong shape')
      return { path: x[0] as string, reason: x[1] as string, code: x[2] as string }
    }) as EventList['skipped']
    return { questions, skipped }
  }

  /** The group holding entry `e`. */
  groupOf(e: number): Group {
    let lo = 0
    let hi = this.groups.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if ((this.groups[mid] as Group).base <= e) lo = mid
      else hi = mid - 1
    }
    return this.groups[lo] as Group
  }

  /** Do entries `base`… hold the stamps of `stamps` (four numbers a file) from file `from`, `count` of them? */
  stampsAre(base: number, stamps: ArrayLike<number>, from: number, count: number): boolean {
    const s = this.stamps
    const a = 4 * base
    const b = 4 * from
    for (let i = 0; i < 4 * count; i++) if (s[a + i] !== stamps[b + i]) return false
    return true
  }

  /** Does entry `e`'s stamp match these four numbers? */
  stampIs(e: number, size: number, mtimeMs: number, ino: number, ctimeMs: number): boolean {
    const s = this.stamps
    const i = 4 * e
    return s[i] === size && s[i + 1] === mtimeMs && s[i + 2] === ino && s[i + 3] === ctimeMs
  }

  /** The listing values of a group's entries, one per entry (checked by `check`, which throws on a bad one). */
  meta<T>(g: Group, check: (v: unknown) => T): T[] {
    const [a, b, crc] = g.meta
    let list: unknown
    try {
      list = JSON.parse(
        checked(this.code, this.read(this.at.meta[0] + a, b - a), crc, 'listing values').toString('utf8'),
      )
    } catch (e) {
      if (e instanceof CorruptIndex) throw e
      bad('listing values that are no JSON')
    }
    if (!Array.isArray(list) || list.length !== g.names.length) bad('listing values that do not match their group')
    return (list as unknown[]).map(check)
  }

  get termCount(): number {
    return this.terms.length - 1
  }

  term(i: number): string {
    return this.termtext.toString('utf8', this.terms[i], this.terms[i + 1])
  }

  /** The terms that are `t` or start with it: [first, end) in term order, and whether the first is `t` itself. */
  range(t: string): { lo: number; hi: number; exact: boolean } {
    let lo = 0
    let hi = this.termCount
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.term(mid) < t) lo = mid + 1
      else hi = mid
    }
    let end = lo
    while (end < this.termCount && this.term(end).startsWith(t)) end++
    return { lo, hi: end, exact: lo < end && this.term(lo) === t }
  }

  /** The postings of terms [lo, hi), as [entry, code << 24 | count] pairs (checked). */
  postings(lo: number, hi: number): Uint32Array {
    const a = this.plist[lo] as number
    const b = this.plist[hi] as number
    const bytes = this.read(this.at.postings[0] + a * 8, (b - a) * 8)
    for (let t = lo; t < hi; t++) {
      const from = ((this.plist[t] as number) - a) * 8
      const to = ((this.plist[t + 1] as number) - a) * 8
      if (this.code !== null && this.code(bytes.subarray(from, to)) !== this.pcrc[t])
        bad('postings that do not match their code')
    }
    const pairs = u32(bytes)
    for (let i = 0; i < pairs.length; i += 2) {
      const e = pairs[i] as number
      const v = pairs[i + 1] as number
      if (e >= this.entries || v >>> 24 >= FIELD_NAMES.length || (v & 0xffffff) === 0 || this.first[e] === NO_DOC)
        bad('a posting naming no field of a document')
    }
    return pairs
  }

  /** Where each term's postings start (in pairs), for a rewrite. */
  get postingStarts(): Uint32Array {
    return this.plist
  }

  /** Every posting (a rewrite copies the ones of the entries it keeps). */
  allPostings(): Uint32Array {
    const [a, b, crc] = this.at.postings
    return u32(checked(this.code, this.read(a, b - a), crc, 'postings'))
  }

  /** The document table and text, whole (a rewrite copies the documents it keeps, checksums and all). */
  allDocs(): { offsets: Uint32Array; crcs: Uint32Array; text: Buffer } {
    const [a, b, crc] = this.at.doctext
    const text = checked(this.code, this.read(a, b - a), crc, 'documents')
    return { ...this.docTable(), text }
  }

  private docs: { offsets: Uint32Array; crcs: Uint32Array } | null = null

  /** Where each document lies in the document text (entries + 1 offsets), and each one's checksum. */
  private docTable(): { offsets: Uint32Array; crcs: Uint32Array } {
    if (this.docs === null) {
      const [a, b, crc] = this.at.docs
      const t = u32(checked(this.code, this.read(a, b - a), crc, 'a document table'))
      if (t.length !== 2 * this.entries + 1) bad('a document table of the wrong length')
      const offsets = t.subarray(0, this.entries + 1)
      checkOffsets(offsets, this.at.doctext[1] - this.at.doctext[0])
      this.docs = { offsets, crcs: t.subarray(this.entries + 1) }
    }
    return this.docs
  }

  /** Entry `e`'s document (checked), or null for an entry that has none. */
  doc(e: number): { item: Item; fields: Field[] } | null {
    if (this.first[e] === NO_DOC) return null
    const { offsets, crcs } = this.docTable()
    const a = offsets[e] as number
    const b = offsets[e + 1] as number
    let v: unknown
    try {
      v = JSON.parse(
        checked(this.code, this.read(this.at.doctext[0] + a, b - a), crcs[e] as number, 'a document').toString('utf8'),
      )
    } catch (err) {
      if (err instanceof CorruptIndex) throw err
      bad('a document that is no JSON')
    }
    return docFrom(v)
  }
}

const str = (v: unknown): v is string => typeof v === 'string'
const strOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string'

/** A document as stored: [kind, id, ref, project, title, status, [[field, text], …]]. */
export function docJson(item: Item, fields: readonly Field[]): string {
  return JSON.stringify([
    item.kind,
    item.id,
    item.ref,
    item.project,
    item.title,
    item.status,
    fields.map((f) => [f.name, f.text]),
  ])
}

function docFrom(v: unknown): { item: Item; fields: Field[] } {
  if (!Array.isArray(v) || v.length !== 7) return bad('a document of the wrong shape')
  const [kind, id, ref, project, title, status, fields] = v as unknown[]
  if (!(SEARCH_KINDS as readonly unknown[]).includes(kind)) bad('a document of no kind')
  if (!str(id) || !str(ref) || !strOrNull(project) || !str(title) || !strOrNull(status) || !Array.isArray(fields))
    bad('a document of the wrong shape')
  const out: Field[] = []
  let last = -1
  for (const x of fields as unknown[]) {
    if (!Array.isArray(x) || x.length !== 2 || !str(x[0]) || !str(x[1]) || x[1] === '')
      bad('a field of the wrong shape')
    const code = (FIELD_NAMES as readonly string[]).indexOf((x as string[])[0] as string)
    if (code <= last) bad('fields out of order')
    last = code
    out.push({
      name: (x as string[])[0] as string,
      text: (x as string[])[1] as string,
      weight: FIELD_WEIGHTS[code] as number,
    })
  }
  return {
    item: {
      kind: kind as Item['kind'],
      id: id as string,
      ref: ref as string,
      project: project as string | null,
      title: title as string,
      status: status as string | null,
    },
    fields: out,
  }
}

/** The sections of a new index file, as built by the writer. */
export interface Built {
  groups: [string, number, number, string, number, number, number][]
  orders: Record<string, [number, number, number]>
  orderlist: Uint32Array
  events: EventList
  stamps: Float64Array
  first: Uint32Array
  terms: Uint32Array
  termtext: Buffer
  plist: Uint32Array
  pcrc: Uint32Array
  meta: Buffer
  postings: Uint32Array
  /** Each entry's document's offset (entries + 1), then each one's checksum (entries). */
  docs: Uint32Array
  doctext: Buffer
}

/** The bytes of an index file, as parts to write one after another. */
export function encode(b: Built, code: Code): Buffer[] {
  const bytes = (a: Uint32Array | Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)
  const parts: Record<SectionName, Buffer> = {
    groups: Buffer.from(JSON.stringify(b.groups)),
    orders: Buffer.from(JSON.stringify(b.orders)),
    orderlist: bytes(b.orderlist),
    events: Buffer.from(
      JSON.stringify([
        b.events.questions.map((q) => [q.entry, q.project]),
        b.events.skipped.map((x) => [x.path, x.reason, x.code]),
      ]),
    ),
    stamps: bytes(b.stamps),
    first: bytes(b.first),
    terms: bytes(b.terms),
    termtext: b.termtext,
    plist: bytes(b.plist),
    pcrc: bytes(b.pcrc),
    meta: b.meta,
    postings: bytes(b.postings),
    docs: bytes(b.docs),
    doctext: b.doctext,
  }
  const toc: Record<string, [number, number, number]> = {}
  let at = 0
  for (const name of SECTIONS) {
    toc[name] = [at, at + parts[name].length, code(parts[name])]
    at += parts[name].length
  }
  return [Buffer.from(`${HEADER}\n${JSON.stringify(toc)}\n`), ...SECTIONS.map((n) => parts[n])]
}
