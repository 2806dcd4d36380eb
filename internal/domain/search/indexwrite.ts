// Writing the search index: the walked folders as they are now (the entries the index served, copied with their
// postings and documents; the files read afresh that have settled, tokenised), the folders not walked kept as
// they were, each project's task order and the events' open questions worked out once for the searches to come.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { byText } from '../../base/order.js'
import { type Status, TASK_FILE, type TaskSummary } from '../../format/model.js'
import { mkdirNoLinks, sweepTemps, tempPathFor } from '../../store/fsio.js'
import type { Store } from '../../store/store.js'
import { deduplicated } from '../../store/taskindex.js'
import { FIELD_NAMES, FIELD_WEIGHTS } from './docs.js'
import {
  type EventMeta,
  eventMeta,
  type LightEvent,
  lightEvent,
  noteMeta,
  openQuestions,
  riskMeta,
  type Source,
  type TaskMeta,
  taskMeta,
} from './entries.js'
import { type Built, type Code, docJson, encode, firstOf, type Group, type IndexReader, NO_DOC } from './indexfile.js'
import { type Field, wordsOf } from './rank.js'

/** The bytes of the new index. */
export function buildIndex(run: {
  reader: IndexReader | null
  /** Each walked group: what it holds now (a group served whole: that group). */
  walked: ReadonlyMap<string, Source[] | Group>
  /** Every group was walked: the others are gone. */
  complete: boolean
  /** A group's listing values (checked). */
  metaOf: <T>(g: Group, check: (v: unknown) => T) => T[]
  /** Each range's code (indexfile.ts keyedCode). */
  code: Code
}): Buffer[] {
  const r = run.reader
  const entriesOf = (g: Group): Source[] => Array.from({ length: g.count }, (_, i) => ({ entry: g.base + i }))
  // The groups of the new index: the walked ones as they are now, then the ones not walked (kept whole,
  // unless every group was walked: then they are gone).
  const layout: { key: string; sources: Source[] }[] = []
  for (const [key, sources] of run.walked) {
    const kept = Array.isArray(sources) ? sources.filter((s) => 'entry' in s || s.fresh.keep) : entriesOf(sources)
    if (kept.length > 0) layout.push({ key, sources: kept })
  }
  if (r !== null && !run.complete) {
    for (const g of r.groups) if (!run.walked.has(g.key)) layout.push({ key: g.key, sources: entriesOf(g) })
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
        meta = run.metaOf(g, check)[s.entry - g.base]
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
          docCrcs[e] = run.code(bytes)
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
    groups.push([key, base, sources.length, names.join('\n'), metaAt, metaAt + metaBytes.length, run.code(metaBytes)])
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
    pcrc[i] = run.code(Buffer.from(flat.buffer, 4 * at, 4 * p.length))
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
    for (const t of deduplicated(light as unknown as (TaskSummary & { entry: number })[]).tasks) orderlist.push(t.entry)
    orders[project] = [from, orderlist.length, run.code(Buffer.from(Uint32Array.from(orderlist.slice(from)).buffer))]
  }
  // The open questions (and skipped copies) of the events, for a search that finds every event served.
  const listed = openQuestions(events)
  return encode(
    {
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
    },
    run.code,
  )
}

export const codeOf = (f: Field): number => {
  const code = (FIELD_NAMES as readonly string[]).indexOf(f.name)
  if (code === -1 || FIELD_WEIGHTS[code] !== f.weight) throw new Error(`search field ${f.name} has no code`)
  return code
}

export const metaCheck = (key: string): ((v: unknown) => unknown) =>
  key.startsWith('t/') ? taskMeta : key.startsWith('r/') ? riskMeta : key.startsWith('n/') ? noteMeta : eventMeta

/** Temp file and rename, without fsync: a lost or torn index costs only speed (a torn one fails its checks). */
export function writeIndex(store: Store, file: string, parts: Buffer[]): void {
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
