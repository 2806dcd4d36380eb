// Searching a workspace through its search index (`.dacli/cache/search`, indexfile.ts). Every search walks
// every folder it searches and takes one lstat per object file, as a listing does; a file is served from the
// index only while its stamp (size, modification time, inode, change time) is the one it was indexed at, and
// only when its entry, its postings and its document all check out. Every other file is read and parsed
// again and ranked from its text, on top of the index (its old postings ignored); a racily fresh file is
// never indexed. A gone file's entry is never served. The ranking is rank.ts's, computed from the postings
// where they tell it all and from the texts where they do not, so the results, their order, their scores and
// snippets are the cacheless search's (`searchCacheless`). The index is rewritten at the store's flush when
// this search found a file it can keep, or one gone; an index that does not check out is ignored and rebuilt.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { byText } from '../../base/order.js'
import { type Broken, brokenOf, STATUSES, type Status, TASK_FILE, type TaskSummary } from '../../format/model.js'
import { readTaskRecord } from '../../format/taskfile.js'
import {
  type EventRecord,
  eventFiles,
  isOpenQuestion,
  listEvents,
  onceEach,
  readEventText,
} from '../../store/events.js'
import { cachePath, RACY_MS, type Stamp, stampOf } from '../../store/filecache.js'
import { linkOnPath, mkdirNoLinks, readText, sweepTemps, tempPathFor } from '../../store/fsio.js'
import type { Store } from '../../store/store.js'
import { deduplicated, walkProject } from '../../store/taskindex.js'
import { type FolderFile, folderFiles, listNotes, listRisks, NOTE_KINDS, noteOf, riskOf } from '../notes/notes.js'
import {
  type Doc,
  eventProject,
  FIELD_NAMES,
  FIELD_WEIGHTS,
  type Item,
  noteDoc,
  questionDoc,
  riskDoc,
  type SearchKind,
  taskDoc,
} from './docs.js'
import {
  type Built,
  CorruptIndex,
  crc32,
  docJson,
  encode,
  firstOf,
  type Group,
  IndexReader,
  NO_DOC,
} from './indexfile.js'
import {
  fieldScore,
  type Hit,
  holds,
  idfOf,
  judge,
  type Prepared,
  prepare,
  type Query,
  queryOf,
  rank,
  rounded,
  snippetOf,
  wordsOf,
} from './rank.js'

export interface SearchRequest {
  query: string
  /** Only this project's objects (open questions: those naming it). */
  project?: string
  /** Only this kind of object (null: every kind). */
  kind: SearchKind | null
  /** Only tasks in these statuses (none: any). */
  statuses: readonly string[]
  /** Only tasks with every one of these labels (checked labels; none: any). */
  labels: readonly string[]
  limit: number
}

export interface SearchAnswer {
  /** Every match. */
  total: number
  /** The best `limit`, best first. */
  hits: Hit<Item>[]
  skipped: Broken[]
}

/** Does a task with `labels` carry every label wanted? */
const labelled = (want: readonly string[], labels: readonly string[]) => want.every((l) => labels.includes(l))

const indexFile = (store: Store) => cachePath(store.dir, 'search')

/** Racily fresh: changed within RACY_MS of now (a same-size rewrite in the same tick would keep its stamp). */
const racy = (s: Stamp) => Date.now() - Math.max(s.mtimeMs, s.ctimeMs) <= RACY_MS

/**
 * Search the workspace through its index. An index that turns out not to describe itself is dropped (the
 * search is made again from the files alone, and the index rebuilt at the flush).
 */
export async function searchWorkspace(store: Store, req: SearchRequest): Promise<SearchAnswer> {
  const file = indexFile(store)
  let reader: IndexReader | null = null
  // A cache reached through a link is neither read nor written (no links below .dacli/).
  const linked = linkOnPath(file, store.dir) !== null
  if (!linked) {
    try {
      reader = IndexReader.open(file)
    } catch (e) {
      if (!(e instanceof CorruptIndex)) throw e
    }
  }
  try {
    const run = new Run(store, reader, req)
    const answer = await run.search()
    if (!linked) store.atFlush(() => run.rewrite(file))
    return answer
  } catch (e) {
    reader?.close()
    if (!(e instanceof CorruptIndex)) throw e
    const run = new Run(store, null, req)
    const answer = await run.search()
    if (!linked) store.atFlush(() => run.rewrite(file))
    return answer
  }
}

/** A file this search read and parsed itself: its listing values and its document, kept by a rewrite if `keep`. */
interface Fresh {
  name: string
  stamp: Stamp
  meta: unknown
  doc: Doc | null
  keep: boolean
}

/** What a walked group holds now, in walk order: entries the index served, files read afresh (kept or not). */
type Source = { entry: number } | { fresh: Fresh }

/** A document of the result list: an index entry (>= 0) or a fresh file (its place in `fresh`, as -1 - place). */
type Handle = number

/** Task listing values: [id, version, labels]. */
type TaskMeta = [string, number, string[]]
/** Risk listing values: [rank, slug]. */
type RiskMeta = [number, string]
/** Event listing values: [id, state, event kind, created, created_by, project]. */
type EventMeta = [string, string, string, string, string, string | null]

const bad = (what: string): never => {
  throw new CorruptIndex(what)
}
const isStr = (v: unknown): v is string => typeof v === 'string'

function taskMeta(v: unknown): TaskMeta {
  if (!Array.isArray(v) || v.length !== 3 || !isStr(v[0]) || !Number.isFinite(v[1]) || !Array.isArray(v[2]))
    bad('task listing values of the wrong shape')
  if (!(v as unknown[][])[2]?.every(isStr)) bad('task labels that are no strings')
  return v as TaskMeta
}
function riskMeta(v: unknown): RiskMeta {
  if (!Array.isArray(v) || v.length !== 2 || !Number.isFinite(v[0]) || !isStr(v[1]))
    bad('risk values of the wrong shape')
  return v as RiskMeta
}
function eventMeta(v: unknown): EventMeta {
  if (!Array.isArray(v) || v.length !== 6 || !v.slice(0, 5).every(isStr) || !(v[5] === null || isStr(v[5])))
    bad('event values of the wrong shape')
  return v as EventMeta
}
const noteMeta = (v: unknown): 0 => (v === 0 ? 0 : bad('note values of the wrong shape'))

/** What listEvents' deduplication reads of an event, and where its document is. */
type LightEvent = Pick<EventRecord, 'id' | 'state' | 'event_kind' | 'created' | 'created_by' | 'path'> & {
  h: Handle
  project: string | null
}

const lightEvent = (m: EventMeta, rel: string, h: Handle): LightEvent =>
  ({
    id: m[0],
    state: m[1],
    event_kind: m[2],
    created: m[3],
    created_by: m[4],
    path: rel,
    h,
    project: m[5],
  }) as LightEvent

/** The open questions among events in file order, once each (onceEach), and the copies skipped. */
function openQuestions(light: LightEvent[]): { questions: LightEvent[]; skipped: Broken[] } {
  const skipped: Broken[] = []
  const { events } = onceEach(light as unknown as EventRecord[], skipped)
  return {
    questions: (events as unknown as LightEvent[]).filter((e) => isOpenQuestion(e as unknown as EventRecord)),
    skipped,
  }
}

class Run {
  /** Files read afresh, by handle -1 - i. */
  private readonly fresh: Fresh[] = []
  /** Each walked group (by key): what it holds now (a group the index serves whole: that group). */
  private readonly walked = new Map<string, Source[] | Group>()
  /** The documents searched, in the order ties keep. */
  private readonly list: Handle[] = []
  private readonly skipped: Broken[] = []
  private readonly q: Query
  /** Every kind and every project walked: groups not walked are gone. */
  private readonly complete: boolean
  /** Name → position maps of index groups, made when a walk does not meet a group's names in order. */
  private readonly positions = new Map<string, Map<string, number>>()
  /** Entries of walked groups whose file is gone (a rewrite drops them). */
  private gone = 0

  constructor(
    private readonly store: Store,
    private readonly reader: IndexReader | null,
    private readonly req: SearchRequest,
  ) {
    this.q = queryOf(req.query)
    this.complete = req.project === undefined && req.kind === null
  }

  private wants(k: SearchKind): boolean {
    return this.req.kind === null || this.req.kind === k
  }

  async search(): Promise<SearchAnswer> {
    const { store, req } = this
    const slugs = req.project === undefined ? store.projectSlugs() : [req.project]
    if (this.wants('task')) for (const slug of slugs) await this.tasks(slug)
    if (this.wants('note')) for (const slug of slugs) await this.notes(slug)
    if (this.wants('risk')) await this.risks(slugs)
    if (this.wants('question')) await this.questions()
    return { ...this.ranked(), skipped: this.skipped }
  }

  // ------------------------------------------------------------------ walking

  /**
   * The index group `key` when it holds exactly these files in this order, each at the stamp given (four
   * numbers a file in `stamps`, from file `from`): then it serves them all. Otherwise null.
   */
  private whole(key: string, names: readonly string[], stamps: ArrayLike<number>, from: number): Group | null {
    const r = this.reader
    const g = r?.byKey.get(key)
    if (r === null || g === undefined || g.count !== names.length || g.joined !== names.join('\n')) return null
    return r.stampsAre(g.base, stamps, from, names.length) ? g : null
  }

  /** The entry of group `g` named `name` (found at `pos` when the folder lists as it did), or -1. */
  private position(g: Group, name: string, pos: number): number {
    const names = g.names
    let i = names[pos] === name ? pos : -1
    if (i === -1) {
      let map = this.positions.get(g.key)
      if (map === undefined) {
        map = new Map(names.map((n, j) => [n, j]))
        this.positions.set(g.key, map)
      }
      i = map.get(name) ?? -1
    }
    return i === -1 ? -1 : g.base + i
  }

  /** The index entry serving `name` (at `pos` in its group's walk) at this stamp, or -1. */
  private served(g: Group | undefined, name: string, pos: number, s: Stamp): number {
    if (g === undefined) return -1
    const e = this.position(g, name, pos)
    return e >= 0 && (this.reader as IndexReader).stampIs(e, s.size, s.mtimeMs, s.ino, s.ctimeMs) ? e : -1
  }

  /** Record a walked group's sources, counting the index's entries that no file serves any more. */
  private walkedGroup(key: string, sources: Source[]): void {
    this.walked.set(key, sources)
    const g = this.reader?.byKey.get(key)
    if (g === undefined) return
    const names = new Set<string>()
    for (const s of sources) names.add('entry' in s ? (g.names[s.entry - g.base] as string) : s.fresh.name)
    for (const n of g.names) if (!names.has(n)) this.gone++
  }

  private addFresh(f: Fresh): Handle {
    this.fresh.push(f)
    return -this.fresh.length
  }

  /** Is this entry a document the list may hold (CorruptIndex when it has none)? */
  private docEntry(e: number): number {
    if ((this.reader as IndexReader).first[e] === NO_DOC) bad('a listed entry without a document')
    return e
  }

  /** The listing values of a group (read once a search). */
  private readonly metas = new Map<string, unknown[]>()
  private metaOf<T>(g: Group, check: (v: unknown) => T): T[] {
    let m = this.metas.get(g.key)
    if (m === undefined) {
      m = (this.reader as IndexReader).meta(g, check)
      this.metas.set(g.key, m)
    }
    return m as T[]
  }

  /** A project's tasks, as listRecords lists them, filtered by status and labels. */
  private async tasks(slug: string): Promise<void> {
    const { store, reader, req } = this
    for (let attempt = 1; ; attempt++) {
      const w = walkProject(store.paths(), slug)
      if (w.vanished && attempt < 8) continue
      // The runs of each status folder in the walk.
      const runs = new Map<Status, [number, number]>()
      for (let i = 0; i < w.names.length; ) {
        const status = w.statuses[i] as Status
        let j = i + 1
        while (j < w.names.length && w.statuses[j] === status) j++
        runs.set(status, [i, j])
        i = j
      }
      const prefix = `t/${slug}/`
      // Served whole: every status folder is its index group, file for file, and no other group is left.
      if (reader !== null && !w.vanished) {
        const wholes = new Map<Status, Group>()
        for (const [status, [a, b]] of runs) {
          const g = this.whole(`${prefix}${status}`, w.names.slice(a, b), w.stamps, a)
          if (g === null) break
          wholes.set(status, g)
        }
        const order = wholes.size === runs.size ? reader.order(slug) : undefined
        const indexed = reader.groups.filter((g) => g.key.startsWith(prefix)).length
        if (order !== undefined && indexed === wholes.size) {
          for (const status of STATUSES) {
            const g = wholes.get(status)
            if (g === undefined) this.walked.set(`${prefix}${status}`, [])
            else this.walked.set(g.key, g)
          }
          this.skipped.push(...w.broken)
          const statusOf = (e: number): Status => {
            for (const [status, g] of wholes) if (e >= g.base && e < g.base + g.count) return status
            return bad('an order naming an entry of another project')
          }
          for (const e of order) {
            this.docEntry(e)
            if (req.statuses.length > 0 && !req.statuses.includes(statusOf(e))) continue
            if (req.labels.length > 0) {
              const g = wholes.get(statusOf(e)) as Group
              if (!labelled(req.labels, (this.metaOf(g, taskMeta)[e - g.base] as TaskMeta)[2])) continue
            }
            this.list.push(e)
          }
          return
        }
      }
      const broken: Broken[] = [...w.broken]
      let vanished = w.vanished
      const groups = new Map<Status, Source[]>(STATUSES.map((s) => [s, []]))
      const rows: { h: Handle; status: Status; name: string; meta: TaskMeta }[] = []
      const made = this.fresh.length
      let status: Status | null = null
      let group: Group | undefined
      let sources: Source[] = []
      const st = w.stamps
      for (let i = 0; i < w.names.length; i++) {
        if (w.statuses[i] !== status) {
          status = w.statuses[i] as Status
          group = reader?.byKey.get(`${prefix}${status}`)
          sources = groups.get(status) as Source[]
        }
        const name = w.names[i] as string
        const stamp: Stamp = {
          size: st[4 * i] as number,
          mtimeMs: st[4 * i + 1] as number,
          ino: st[4 * i + 2] as number,
          ctimeMs: st[4 * i + 3] as number,
        }
        const e = this.served(group, name, sources.length, stamp)
        if (e >= 0) {
          const g = group as Group
          rows.push({ h: this.docEntry(e), status, name, meta: this.metaOf(g, taskMeta)[e - g.base] as TaskMeta })
          sources.push({ entry: e })
          continue
        }
        const abs = `${w.base}${path.sep}${status}${path.sep}${name}`
        const rel = `${w.relBase}${status}/${name}`
        let fresh: Fresh
        try {
          const t = await readTaskRecord(readText(abs, stamp.size), { project: slug, status, name, path: rel })
          fresh = { name, stamp, meta: [t.id, t.version, t.labels], doc: taskDoc(t), keep: !racy(stamp) }
        } catch (err) {
          if (!fs.existsSync(abs))
            vanished = true // moved while listing: list again
          else broken.push(brokenOf(rel, err))
          continue
        }
        rows.push({ h: this.addFresh(fresh), status, name, meta: fresh.meta as TaskMeta })
        sources.push({ fresh })
      }
      if (vanished && attempt < 8) {
        this.fresh.length = made
        continue
      }
      for (const [s, list] of groups) this.walkedGroup(`${prefix}${s}`, list)
      this.skipped.push(...broken)
      const light = rows.map((r) => ({
        id: r.meta[0],
        version: r.meta[1],
        status: r.status,
        seq: Number((TASK_FILE.exec(r.name) as RegExpExecArray)[1]),
        path: `${w.relBase}${r.status}/${r.name}`,
        row: r,
      }))
      for (const { row } of deduplicated(light as unknown as (TaskSummary & { row: (typeof rows)[number] })[]).tasks) {
        if (req.statuses.length > 0 && !req.statuses.includes(row.status)) continue
        if (req.labels.length > 0 && !labelled(req.labels, row.meta[2])) continue
        this.list.push(row.h)
      }
      return
    }
  }

  /**
   * A folder of notes or risks, as readFolder reads it: each file served by the index or read afresh (`read`
   * throws for a bad one, which is skipped), in name order.
   */
  private async folder(
    key: string,
    dir: string,
    read: (f: FolderFile, text: string) => Promise<{ meta: unknown; doc: Doc }>,
  ): Promise<{ h: Handle; pos: number }[]> {
    const entries = folderFiles(this.store, dir)
    const out: { h: Handle; pos: number }[] = []
    const g = this.reader?.byKey.get(key)
    if (g !== undefined && entries.every((x) => !('skip' in x))) {
      const files = entries as FolderFile[]
      const stamps: number[] = []
      for (const f of files) stamps.push(f.stamp.size, f.stamp.mtimeMs, f.stamp.ino, f.stamp.ctimeMs)
      if (
        this.whole(
          key,
          files.map((f) => f.name),
          stamps,
          0,
        ) !== null
      ) {
        this.walked.set(key, g)
        for (let i = 0; i < g.count; i++) out.push({ h: this.docEntry(g.base + i), pos: i })
        return out
      }
    }
    const sources: Source[] = []
    for (const f of entries) {
      if ('skip' in f) {
        this.skipped.push(f.skip)
        continue
      }
      const e = this.served(g, f.name, sources.length, f.stamp)
      if (e >= 0) {
        out.push({ h: this.docEntry(e), pos: e - (g as Group).base })
        sources.push({ entry: e })
        continue
      }
      let fresh: Fresh
      try {
        const { meta, doc } = await read(f, readText(f.file, f.stamp.size))
        fresh = { name: f.name, stamp: f.stamp, meta, doc, keep: !racy(f.stamp) }
      } catch (err) {
        this.skipped.push(brokenOf(f.rel, err))
        continue
      }
      out.push({ h: this.addFresh(fresh), pos: -1 })
      sources.push({ fresh })
    }
    this.walkedGroup(key, sources)
    return out
  }

  private async notes(slug: string): Promise<void> {
    for (const kind of NOTE_KINDS) {
      const dir = path.join(this.store.projectDir(slug), 'notes', `${kind}s`)
      const read = async (f: FolderFile, text: string) => ({
        meta: 0,
        doc: noteDoc(await noteOf(f.file, text, slug, f.rel)),
      })
      for (const { h } of await this.folder(`n/${slug}/${kind}`, dir, read)) this.list.push(h)
    }
  }

  private async risks(slugs: string[]): Promise<void> {
    const all: { rank: number; project: string; slug: string; h: Handle }[] = []
    for (const slug of slugs) {
      const dir = path.join(this.store.projectDir(slug), 'risks')
      const read = async (f: FolderFile, text: string) => {
        const r = await riskOf(f.file, text, slug, f.rel)
        return { meta: [r.rank, r.slug], doc: riskDoc(r) }
      }
      const key = `r/${slug}`
      const got = await this.folder(key, dir, read)
      const g = this.reader?.byKey.get(key)
      for (const { h, pos } of got) {
        const [rank, s] =
          h >= 0
            ? (this.metaOf(g as Group, riskMeta)[pos] as RiskMeta)
            : ((this.fresh[-1 - h] as Fresh).meta as RiskMeta)
        all.push({ rank, project: slug, slug: s, h })
      }
    }
    all.sort((a, b) => a.rank - b.rank || byText(a.project, b.project) || byText(a.slug, b.slug))
    for (const r of all) this.list.push(r.h)
  }

  /** The open questions, as listEvents lists the events (deduplicated), of the project asked for if any. */
  private async questions(): Promise<void> {
    const { store, reader, req } = this
    const broken: Broken[] = []
    const files = eventFiles(store, broken)
    const key = 'e'
    const g = reader?.byKey.get(key)
    const names: string[] = []
    const stamps: number[] = []
    const found: [string, string, Stamp][] = []
    for (const [abs, rel] of files) {
      const s = stampOf(abs)
      if (s === null) continue // removed since the folder was read
      names.push(rel)
      stamps.push(s.size, s.mtimeMs, s.ino, s.ctimeMs)
      found.push([abs, rel, s])
    }
    const take = (h: Handle, project: string | null) => {
      if (req.project !== undefined && project !== req.project) return
      this.list.push(h)
    }
    if (g !== undefined && this.whole(key, names, stamps, 0) !== null) {
      const listed = (reader as IndexReader).events()
      this.walked.set(key, g)
      this.skipped.push(...broken, ...listed.skipped)
      for (const q of listed.questions) take(q.entry, q.project)
      return
    }
    const sources: Source[] = []
    const light: LightEvent[] = []
    for (const [abs, rel, stamp] of found) {
      const e = this.served(g, rel, sources.length, stamp)
      let m: EventMeta
      let h: Handle
      if (e >= 0) {
        m = this.metaOf(g as Group, eventMeta)[e - (g as Group).base] as EventMeta
        h = e
        sources.push({ entry: e })
      } else {
        let ev: EventRecord
        try {
          ev = await readEventText(readText(abs), rel)
        } catch (err) {
          broken.push(brokenOf(rel, err))
          continue
        }
        m = [ev.id, ev.state, ev.event_kind, ev.created, ev.created_by, eventProject(ev)]
        const doc = isOpenQuestion(ev) ? questionDoc(ev) : null
        const fresh: Fresh = { name: rel, stamp, meta: m, doc, keep: !racy(stamp) }
        h = this.addFresh(fresh)
        sources.push({ fresh })
      }
      light.push(lightEvent(m, rel, h))
    }
    this.walkedGroup(key, sources)
    const { questions, skipped } = openQuestions(light)
    this.skipped.push(...broken, ...skipped)
    for (const q of questions) {
      if (q.h >= 0) this.docEntry(q.h)
      else if ((this.fresh[-1 - q.h] as Fresh).doc === null) bad('an open question without a document')
      take(q.h, q.project)
    }
  }

  // ------------------------------------------------------------------ ranking

  private ranked(): { total: number; hits: Hit<Item>[] } {
    const { q, reader, list } = this
    const terms = q.terms
    const n = list.length
    const E = reader?.entries ?? 0
    // Each listed entry's place in the list (-1: not listed); the fresh documents listed, with theirs.
    const orderOf = new Int32Array(E).fill(-1)
    const freshListed: [Handle, number][] = []
    for (let k = 0; k < n; k++) {
      const h = list[k] as Handle
      if (h >= 0) orderOf[h] = k
      else freshListed.push([h, k])
    }
    /** The listed entries holding the first term (the only ones that may hold them all). */
    const candidates: number[] = []
    // Per term: each listed entry's exact and prefix counts per field (fields × 2), from the postings.
    const words = q.phrase.split(' ')
    const multi = words.length > 1
    const last = words[words.length - 1] as string
    const counts: Uint32Array[] = []
    const has: Uint8Array[] = []
    const df = terms.map(() => 0)
    const F = FIELD_NAMES.length
    for (const [i, t] of terms.entries()) {
      const r = reader?.range(t)
      // A one-letter word matches only itself, except as a phrase's last word (the start of a longer one).
      const hi = r === undefined ? 0 : t.length >= 2 || (multi && t === last) ? r.hi : r.exact ? r.lo + 1 : r.lo
      if (
        reader === null ||
        r === undefined ||
        hi <= r.lo ||
        (i > 0 && candidates.length === 0 && freshListed.length === 0)
      ) {
        counts.push(new Uint32Array(0))
        has.push(new Uint8Array(E))
        continue
      }
      const c = new Uint32Array(E * 2 * F)
      const hs = new Uint8Array(E)
      counts.push(c)
      has.push(hs)
      const pairs = reader.postings(r.lo, hi)
      const exactPairs = r.exact
        ? 2 * ((reader.postingStarts[r.lo + 1] as number) - (reader.postingStarts[r.lo] as number))
        : 0
      for (let j = 0; j < pairs.length; j += 2) {
        const e = pairs[j] as number
        if (orderOf[e] === -1) continue
        const v = pairs[j + 1] as number
        const code = v >>> 24
        const exact = j < exactPairs
        const at = e * 2 * F + (exact ? 0 : F) + code
        c[at] = (c[at] as number) + (v & 0xffffff)
        if ((exact || t.length >= 2) && hs[e] === 0) {
          hs[e] = 1
          df[i] = (df[i] as number) + 1
          if (i === 0) candidates.push(e)
        }
      }
    }
    // Fresh documents: from their texts.
    const prepared = new Map<Handle, Prepared>()
    for (const [h] of freshListed) {
      const p = prepare(((this.fresh[-1 - h] as Fresh).doc as Doc).fields, q)
      prepared.set(h, p)
      for (let i = 0; i < terms.length; i++) if (holds(p, i)) df[i] = (df[i] as number) + 1
    }
    const idfs = df.map((x) => idfOf(n, x))
    const judged = new Map<Handle, { where: Field; doc: Doc }>()
    /**
     * Each term's part of an entry's score before its idf, from the postings: the fields in their order, as
     * judge() adds them (a field without the term adds nothing).
     */
    const bestsOf = (h: number): number[] => {
      const base = h * 2 * F
      return terms.map((t, i) => {
        const c = counts[i] as Uint32Array
        let best = 0
        for (let k = 0; k < F; k++) {
          const ex = c[base + k] as number
          const pr = t.length >= 2 ? (c[base + F + k] as number) : 0
          if (ex + pr > 0) best += fieldScore(FIELD_WEIGHTS[k] as number, ex, pr)
        }
        return best
      })
    }
    /** Judge an entry from its text, checking the postings said the same of it. */
    const fromText = (e: number, bests: number[]): number => {
      const doc = this.entryDoc(e)
      const p = prepare(doc.fields, q)
      const j = judge(p, q, idfs)
      if (j === null || j.bests.length !== bests.length || j.bests.some((b, i) => b !== bests[i]))
        return bad('postings that do not match their document')
      judged.set(e, { where: j.where, doc })
      return j.score
    }
    const hits: { h: Handle; score: number; order: number }[] = []
    for (const [h, order] of freshListed) {
      const f = this.fresh[-1 - h] as Fresh
      const j = judge(prepared.get(h) as Prepared, q, idfs)
      if (j === null) continue
      judged.set(h, { where: j.where, doc: f.doc as Doc })
      hits.push({ h, score: rounded(j.score), order })
    }
    for (const h of candidates) {
      const order = orderOf[h] as number
      let missing = false
      for (const hs of has) if (hs[h] === 0) missing = true
      if (missing) continue
      const base = h * 2 * F
      const bests = bestsOf(h)
      let score = 0
      for (let i = 0; i < terms.length; i++) score += (bests[i] as number) * (idfs[i] as number)
      // The texts decide a phrase and an exact title: read them where the postings allow either.
      let text = false
      const first = (reader as IndexReader).first[h] as number
      const fc = first >>> 24
      if (
        (first & 0xffffff) === q.length &&
        terms.every((_, i) => ((counts[i] as Uint32Array)[base + fc] as number) > 0)
      )
        text = true
      if (!text && multi) {
        const idx = (w: string) => terms.indexOf(w)
        const li = idx(last)
        for (let k = 0; k < F && !text; k++) {
          const lc = counts[li] as Uint32Array
          if ((lc[base + k] as number) + (lc[base + F + k] as number) === 0) continue
          text = words.slice(1, -1).every((w) => ((counts[idx(w)] as Uint32Array)[base + k] as number) > 0)
        }
      }
      hits.push({ h, score: rounded(text ? fromText(h, bests) : score), order })
    }
    hits.sort((a, b) => b.score - a.score || a.order - b.order)
    const shown = hits.slice(0, this.req.limit).map(({ h, score }) => {
      let j = judged.get(h)
      if (j === undefined) {
        if (rounded(fromText(h, bestsOf(h))) !== score) bad('a score its document does not give')
        j = judged.get(h) as { where: Field; doc: Doc }
      }
      return { item: j.doc.item, score, field: j.where.name, snippet: snippetOf(j.where.text, terms) }
    })
    return { total: hits.length, hits: shown }
  }

  /** An entry's document, checked to be of its group's kind. */
  private entryDoc(e: number): Doc {
    const r = this.reader as IndexReader
    const d = r.doc(e)
    if (d === null) return bad('a listed entry without a document')
    const k = r.groupOf(e).key[0]
    const kind = k === 't' ? 'task' : k === 'n' ? 'note' : k === 'r' ? 'risk' : 'question'
    if (d.item.kind !== kind) bad('a document of another kind than its folder')
    return d
  }

  // ------------------------------------------------------------------ rewriting

  /** Is there anything a rewrite would keep that the index lacks, or hold that is gone? */
  private worthRewriting(): boolean {
    if (this.reader === null) return true
    if (this.gone > 0) return true
    if (this.fresh.some((f) => f.keep)) return true
    if (this.complete) for (const g of this.reader.groups) if (!this.walked.has(g.key)) return true
    return false
  }

  /** Write the index anew (at the store's flush), when worth it; a failed write only costs speed. */
  rewrite(file: string): void {
    try {
      if (this.worthRewriting()) writeIndex(this.store, file, this.build())
    } catch {
      // an unwritable or unreadable cache is not an error
    } finally {
      this.reader?.close()
    }
  }

  private build(): Buffer[] {
    const r = this.reader
    const entriesOf = (g: Group): Source[] => Array.from({ length: g.count }, (_, i) => ({ entry: g.base + i }))
    // The groups of the new index: the walked ones as they are now, then the ones not walked (kept whole,
    // unless every group was walked: then they are gone).
    const layout: { key: string; sources: Source[] }[] = []
    for (const [key, sources] of this.walked) {
      const kept = Array.isArray(sources) ? sources.filter((s) => 'entry' in s || s.fresh.keep) : entriesOf(sources)
      if (kept.length > 0) layout.push({ key, sources: kept })
    }
    if (r !== null && !this.complete) {
      for (const g of r.groups) if (!this.walked.has(g.key)) layout.push({ key: g.key, sources: entriesOf(g) })
    }
    const total = layout.reduce((n, g) => n + g.sources.length, 0)
    const renumber = new Int32Array(r?.entries ?? 0).fill(-1)
    const stamps = new Float64Array(4 * total)
    const first = new Uint32Array(total)
    const docOffsets = new Uint32Array(2 * total + 1)
    const docCrcs = docOffsets.subarray(total + 1)
    const docParts: Buffer[] = []
    const metaParts: Buffer[] = []
    const groups: Built['groups'] = []
    const postings = new Map<string, number[]>()
    const add = (word: string, entry: number, pair: number) => {
      let p = postings.get(word)
      if (p === undefined) {
        p = []
        postings.set(word, p)
      }
      p.push(entry, pair)
    }
    const old = r === null ? null : r.allDocs()
    const tasks = new Map<string, { meta: TaskMeta; status: Status; name: string; entry: number }[]>()
    const events: LightEvent[] = []
    let metaAt = 0
    let docAt = 0
    let next = 0
    for (const { key, sources } of layout) {
      const base = next
      const metas: unknown[] = []
      const names: string[] = []
      const check = metaCheck(key)
      for (const s of sources) {
        const e = next++
        let meta: unknown
        let name: string
        if ('entry' in s) {
          const reader = r as IndexReader
          const g = reader.groupOf(s.entry)
          name = g.names[s.entry - g.base] as string
          meta = this.metaOf(g, check)[s.entry - g.base]
          renumber[s.entry] = e
          stamps.set(reader.stamps.subarray(4 * s.entry, 4 * s.entry + 4), 4 * e)
          first[e] = reader.first[s.entry] as number
          const o = old as { offsets: Uint32Array; crcs: Uint32Array; text: Buffer }
          const bytes = o.text.subarray(o.offsets[s.entry], o.offsets[s.entry + 1])
          docCrcs[e] = o.crcs[s.entry] as number
          docParts.push(bytes)
          docAt += bytes.length
        } else {
          const f = s.fresh
          name = f.name
          meta = f.meta
          stamps.set([f.stamp.size, f.stamp.mtimeMs, f.stamp.ino, f.stamp.ctimeMs], 4 * e)
          if (f.doc === null) first[e] = NO_DOC
          else {
            const fields = f.doc.fields
            const f0 = fields[0]
            first[e] = f0 === undefined ? firstOf(0, 0) : firstOf(codeOf(f0), wordsOf(f0.text).length)
            for (const fl of fields) {
              const code = codeOf(fl)
              const tally = new Map<string, number>()
              for (const w of wordsOf(fl.text)) tally.set(w, (tally.get(w) ?? 0) + 1)
              for (const [w, c] of tally) add(w, e, ((code << 24) | Math.min(c, 0xffffff)) >>> 0)
            }
            const bytes = Buffer.from(docJson(f.doc.item, fields))
            docCrcs[e] = crc32(bytes)
            docParts.push(bytes)
            docAt += bytes.length
          }
        }
        docOffsets[e + 1] = docAt
        metas.push(meta)
        names.push(name)
        if (key.startsWith('t/')) {
          const project = key.slice(2, key.lastIndexOf('/'))
          const status = key.slice(key.lastIndexOf('/') + 1) as Status
          let list = tasks.get(project)
          if (list === undefined) {
            list = []
            tasks.set(project, list)
          }
          list.push({ meta: meta as TaskMeta, status, name, entry: e })
        }
        if (key === 'e') events.push(lightEvent(meta as EventMeta, name, e))
      }
      const metaBytes = Buffer.from(JSON.stringify(metas))
      groups.push([key, base, sources.length, names.join('\n'), metaAt, metaAt + metaBytes.length, crc32(metaBytes)])
      metaParts.push(metaBytes)
      metaAt += metaBytes.length
    }
    // The postings of the entries kept, renumbered.
    if (r !== null) {
      const all = r.allPostings()
      const starts = r.postingStarts
      for (let t = 0; t < r.termCount; t++) {
        let word: string | null = null
        for (let j = 2 * (starts[t] as number); j < 2 * (starts[t + 1] as number); j += 2) {
          const e = renumber[all[j] as number] as number
          if (e < 0) continue
          word ??= r.term(t)
          add(word, e, all[j + 1] as number)
        }
      }
    }
    const words = [...postings.keys()].sort(byText)
    const termOffsets = new Uint32Array(words.length + 1)
    const plist = new Uint32Array(words.length + 1)
    const textParts: Buffer[] = []
    let textAt = 0
    let pairs = 0
    for (const [i, w] of words.entries()) {
      const b = Buffer.from(w)
      textParts.push(b)
      textAt += b.length
      termOffsets[i + 1] = textAt
      pairs += (postings.get(w) as number[]).length / 2
      plist[i + 1] = pairs
    }
    const flat = new Uint32Array(2 * pairs)
    const pcrc = new Uint32Array(words.length)
    let at = 0
    for (const [i, w] of words.entries()) {
      const p = postings.get(w) as number[]
      flat.set(p, at)
      pcrc[i] = crc32(Buffer.from(flat.buffer, 4 * at, 4 * p.length))
      at += p.length
    }
    // Each project's tasks in listing order (deduplicated, by number and path): a search that finds every
    // file of a project served takes it from here.
    const orders: Record<string, [number, number, number]> = {}
    const orderlist: number[] = []
    for (const [project, list] of tasks) {
      const light = list.map((x) => ({
        id: x.meta[0],
        version: x.meta[1],
        status: x.status,
        seq: Number((TASK_FILE.exec(x.name) as RegExpExecArray)[1]),
        path: `${x.status}/${x.name}`,
        entry: x.entry,
      }))
      const from = orderlist.length
      for (const t of deduplicated(light as unknown as (TaskSummary & { entry: number })[]).tasks)
        orderlist.push(t.entry)
      orders[project] = [from, orderlist.length, crc32(Buffer.from(Uint32Array.from(orderlist.slice(from)).buffer))]
    }
    // The open questions (and skipped copies) of the events, for a search that finds every event served.
    const listed = openQuestions(events)
    return encode({
      groups,
      orders,
      orderlist: Uint32Array.from(orderlist),
      events: {
        questions: listed.questions.map((q) => ({ entry: q.h, project: q.project })),
        skipped: listed.skipped,
      },
      stamps,
      first,
      terms: termOffsets,
      termtext: Buffer.concat(textParts),
      plist,
      pcrc,
      meta: Buffer.concat(metaParts),
      postings: flat,
      docs: docOffsets,
      doctext: Buffer.concat(docParts),
    })
  }
}

type Field = import('./rank.js').Field

const codeOf = (f: Field): number => {
  const code = (FIELD_NAMES as readonly string[]).indexOf(f.name)
  if (code === -1 || FIELD_WEIGHTS[code] !== f.weight) throw new Error(`search field ${f.name} has no code`)
  return code
}

const metaCheck = (key: string): ((v: unknown) => unknown) =>
  key.startsWith('t/') ? taskMeta : key.startsWith('r/') ? riskMeta : key.startsWith('n/') ? noteMeta : eventMeta

/** Temp file and rename, without fsync: a lost or torn index costs only speed (a torn one fails its checks). */
function writeIndex(store: Store, file: string, parts: Buffer[]): void {
  const dir = path.dirname(file)
  const tmp = tempPathFor(store.system, file)
  try {
    mkdirNoLinks(dir, store.dir)
    sweepTemps(store.system, dir)
    const fd = fs.openSync(tmp, 'wx')
    try {
      for (const p of parts) {
        let done = 0
        while (done < p.length) done += fs.writeSync(fd, p, done)
      }
    } finally {
      fs.closeSync(fd)
    }
    fs.renameSync(tmp, file)
  } catch {
    fs.rmSync(tmp, { force: true })
  }
}

/**
 * The same search without the index: every object listed in full and every document ranked from its text (what
 * the index must always agree with; the tests compare the two).
 */
export async function searchCacheless(store: Store, req: SearchRequest): Promise<SearchAnswer> {
  const wants = (k: SearchKind) => req.kind === null || req.kind === k
  const docs: Doc[] = []
  const skipped: Broken[] = []
  if (wants('task')) {
    const { records, broken } = await store.listRecords(req.project)
    skipped.push(...broken)
    for (const t of records) {
      if (req.statuses.length > 0 && !req.statuses.includes(t.status)) continue
      if (!labelled(req.labels, t.labels)) continue
      docs.push(taskDoc(t))
    }
  }
  if (wants('note')) {
    const { notes, broken } = await listNotes(store, req.project)
    skipped.push(...broken)
    for (const n of notes) docs.push(noteDoc(n))
  }
  if (wants('risk')) {
    const { risks, broken } = await listRisks(store, req.project)
    skipped.push(...broken)
    for (const r of risks) docs.push(riskDoc(r))
  }
  if (wants('question')) {
    const { events, broken } = await listEvents(store)
    skipped.push(...broken)
    for (const e of events.filter(isOpenQuestion)) {
      if (req.project !== undefined && eventProject(e) !== req.project) continue
      docs.push(questionDoc(e))
    }
  }
  const hits = rank(docs, req.query)
  return { total: hits.length, hits: hits.slice(0, req.limit), skipped }
}
