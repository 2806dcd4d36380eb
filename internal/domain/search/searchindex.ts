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
import { type EventRecord, eventFiles, isOpenQuestion, readEventText } from '../../store/events.js'
import { cachePath, RACY_MS, type Stamp, stampOf } from '../../store/filecache.js'
import { type FolderFile, folderFiles, linkOnPath, readText } from '../../store/fsio.js'
import { projectsIn } from '../../store/projects.js'
import type { Store } from '../../store/store.js'
import { deduplicated, MOVE_PASSES, walkProject } from '../../store/taskindex.js'
import { type Doc, eventProject, noteDoc, questionDoc, riskDoc, type SearchKind, taskDoc } from './docs.js'
import {
  bad,
  type EventMeta,
  eventMeta,
  type Fresh,
  type Handle,
  type LightEvent,
  labelled,
  lightEvent,
  openQuestions,
  type RiskMeta,
  riskMeta,
  type SearchAnswer,
  type SearchRequest,
  type Source,
  type TaskMeta,
  taskMeta,
} from './entries.js'
import { type Code, CorruptIndex, type Group, IndexReader, keyedCode, NO_DOC } from './indexfile.js'
import { buildIndex, writeIndex } from './indexwrite.js'
import { type Query, queryOf } from './rank.js'
import { rankList } from './scoring.js'

export type { SearchAnswer, SearchRequest } from './entries.js'

/**
 * The notes' folders, by kind (notes.ts's NOTE_KINDS: the test holds them equal). The notes module, which parses a
 * note or a risk, is loaded only when a file must be read afresh: a search the index serves never compiles it.
 */
export const NOTE_FOLDERS = ['decision', 'finding', 'metric', 'ref'] as const
const notesModule = () => import('../notes/notes.js')

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
  // A cache reached through a link is neither read nor written (no links below .dacli/), nor one without the
  // clone's cache key to tell its ranges from planted ones.
  const trust = store.cacheTrust()
  const key = linkOnPath(file, store.dir) !== null ? null : trust.key()
  const code = key === null ? null : keyedCode(key)
  if (code !== null) {
    try {
      reader = IndexReader.open(file, code, trust)
    } catch (e) {
      if (!(e instanceof CorruptIndex)) throw e
    }
  }
  try {
    const run = new Run(store, reader, req)
    const answer = await run.search()
    if (code !== null) store.atFlush(() => run.rewrite(file, code))
    return answer
  } catch (e) {
    reader?.close()
    if (!(e instanceof CorruptIndex)) throw e
    const run = new Run(store, null, req)
    const answer = await run.search()
    if (code !== null) store.atFlush(() => run.rewrite(file, code))
    return answer
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
    // Every project: the folders under projects/ that are none (a folder without project.md, a link) are announced
    // as a task listing announces them, never dropped in silence.
    const { slugs, broken } = projectsIn(store, req.project)
    this.skipped.push(...broken)
    if (this.wants('task')) for (const slug of slugs) await this.tasks(slug)
    if (this.wants('note')) for (const slug of slugs) await this.notes(slug)
    if (this.wants('risk')) await this.risks(slugs)
    if (this.wants('question')) await this.questions()
    const ranked = rankList({
      q: this.q,
      reader: this.reader,
      list: this.list,
      fresh: this.fresh,
      limit: this.req.limit,
      entryDoc: (e) => this.entryDoc(e),
    })
    return { ...ranked, skipped: this.skipped }
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
  metaOf<T>(g: Group, check: (v: unknown) => T): T[] {
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
      if (w.vanished && attempt < MOVE_PASSES) continue
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
      if (vanished && attempt < MOVE_PASSES) {
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
    for (const kind of NOTE_FOLDERS) {
      const dir = path.join(this.store.projectDir(slug), 'notes', `${kind}s`)
      const read = async (f: FolderFile, text: string) => ({
        meta: 0,
        doc: noteDoc(await (await notesModule()).noteOf(f.file, text, slug, f.rel)),
      })
      for (const { h } of await this.folder(`n/${slug}/${kind}`, dir, read)) this.list.push(h)
    }
  }

  private async risks(slugs: string[]): Promise<void> {
    const all: { rank: number; project: string; slug: string; h: Handle }[] = []
    for (const slug of slugs) {
      const dir = path.join(this.store.projectDir(slug), 'risks')
      const read = async (f: FolderFile, text: string) => {
        const r = await (await notesModule()).riskOf(f.file, text, slug, f.rel)
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
  rewrite(file: string, code: Code): void {
    try {
      if (!this.worthRewriting()) return
      const { reader, walked, complete } = this
      writeIndex(
        this.store,
        file,
        buildIndex({ reader, walked, complete, metaOf: (g, check) => this.metaOf(g, check), code }),
      )
    } catch {
      // an unwritable or unreadable cache is not an error
    } finally {
      this.reader?.close()
    }
  }
}
