// What the search index's reader and writer share: the request and answer, the files a search read itself, the
// listing values an entry keeps (each checked on read), and the deduplication of events as listEvents makes it.

import type { Broken } from '../../format/model.js'
import { type EventRecord, isOpenQuestion, onceEach } from '../../store/events.js'
import type { Stamp } from '../../store/filecache.js'
import type { Doc, Item, SearchKind } from './docs.js'
import { CorruptIndex } from './indexfile.js'
import type { Hit } from './rank.js'

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
export const labelled = (want: readonly string[], labels: readonly string[]) => want.every((l) => labels.includes(l))

/** A file this search read and parsed itself: its listing values and its document, kept by a rewrite if `keep`. */
export interface Fresh {
  name: string
  stamp: Stamp
  meta: unknown
  doc: Doc | null
  keep: boolean
}

/** What a walked group holds now, in walk order: entries the index served, files read afresh (kept or not). */
export type Source = { entry: number } | { fresh: Fresh }

/** A document of the result list: an index entry (>= 0) or a fresh file (its place in `fresh`, as -1 - place). */
export type Handle = number

/** Task listing values: [id, version, labels]. */
export type TaskMeta = [string, number, string[]]
/** Risk listing values: [rank, slug]. */
export type RiskMeta = [number, string]
/** Event listing values: [id, state, event kind, created, created_by, project]. */
export type EventMeta = [string, string, string, string, string, string | null]

export const bad = (what: string): never => {
  throw new CorruptIndex(what)
}
export const isStr = (v: unknown): v is string => typeof v === 'string'

export function taskMeta(v: unknown): TaskMeta {
  if (!Array.isArray(v) || v.length !== 3 || !isStr(v[0]) || !Number.isFinite(v[1]) || !Array.isArray(v[2]))
    bad('task listing values of the wrong shape')
  if (!(v as unknown[][])[2]?.every(isStr)) bad('task labels that are no strings')
  return v as TaskMeta
}
export function riskMeta(v: unknown): RiskMeta {
  if (!Array.isArray(v) || v.length !== 2 || !Number.isFinite(v[0]) || !isStr(v[1]))
    bad('risk values of the wrong shape')
  return v as RiskMeta
}
export function eventMeta(v: unknown): EventMeta {
  if (!Array.isArray(v) || v.length !== 6 || !v.slice(0, 5).every(isStr) || !(v[5] === null || isStr(v[5])))
    bad('event values of the wrong shape')
  return v as EventMeta
}
export const noteMeta = (v: unknown): 0 => (v === 0 ? 0 : bad('note values of the wrong shape'))

/** What listEvents' deduplication reads of an event, and where its document is. */
export type LightEvent = Pick<EventRecord, 'id' | 'state' | 'event_kind' | 'created' | 'created_by' | 'path'> & {
  h: Handle
  project: string | null
}

export const lightEvent = (m: EventMeta, rel: string, h: Handle): LightEvent =>
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
export function openQuestions(light: LightEvent[]): { questions: LightEvent[]; skipped: Broken[] } {
  const skipped: Broken[] = []
  const { events } = onceEach(light as unknown as EventRecord[], skipped)
  return {
    questions: (events as unknown as LightEvent[]).filter((e) => isOpenQuestion(e as unknown as EventRecord)),
    skipped,
  }
}
