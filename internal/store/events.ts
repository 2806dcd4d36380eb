// Events (FORMAT.md, Event): one append-only file per event,
// `events/YYYY/MM/DD/<ULID>-<agent-id>-<event-kind>.md`. Creating one never
// contends (the name is unique). Only the outcome may change afterwards —
// `applied` (false, true, or `dismissed`) and the record of who settled it
// (`answered`, `dismissed`); a checksum over the canonical content lets readers
// detect tampering, and a tampered event is reported and never applied.

import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { canonicalJSON } from '../base/canonical.js'
import { cmd } from '../base/commands.js'
import { FailureError, NotFoundError } from '../base/errors.js'
import { newUlid } from '../base/ids.js'
import { byText } from '../base/order.js'
import { parseData } from '../format/flat.js'
import { isId, safeSegment } from '../format/ids.js'
import { type Broken, brokenOf, InvalidValueError, stamp } from '../format/model.js'
import { checkEventData } from './eventdata.js'
import { StampMemo, stampOf } from './filecache.js'
import { atomicWrite, isTempName, linkOnPath, readText } from './fsio.js'
import type { Store } from './store.js'

export const EVENT_KINDS = [
  'claim',
  'release',
  'finding',
  'propose-status',
  'comment',
  'block',
  'dependency',
  'question',
] as const
export type EventKind = (typeof EVENT_KINDS)[number]
const EVENT_SCHEMA_VERSION = 1

export interface EventRecord {
  id: string
  event_kind: EventKind
  created: string
  created_by: string
  /** The object the event is about (a task id for task events), or null. */
  about: string | null
  /** Structured payload (what to apply). */
  data: Record<string, unknown>
  body: string
  /** True once applied (a question: once answered); false while pending or when dismissed. */
  applied: boolean
  state: EventState
  /** Who dismissed it, when and why (`events dismiss`), or null. */
  dismissed: Settled | null
  /** A question's answer: who, when, and the note it became, or null. */
  answered: Answer | null
  /** The author's signature over the content (`ed25519:…`), or null for an unsigned event. */
  signature: string | null
  path: string
}

export type EventState = 'pending' | 'applied' | 'dismissed'

export interface Settled {
  by: string
  at: string
  reason: string | null
}

export interface Answer {
  by: string
  at: string
  /** The note (`n-<ULID>`) holding the answer. */
  note: string
}

/** A question's id is `q-<ULID>`; other events' ids are the bare ULID. */
const QUESTION_PREFIX = 'q-'

/** A proposal (any event but a question) still waiting for `sync`: neither applied nor dismissed. */
export const isPendingProposal = (e: EventRecord) => e.state === 'pending' && e.event_kind !== 'question'
/** A question nobody has answered or dismissed yet. */
export const isOpenQuestion = (e: EventRecord) => e.state === 'pending' && e.event_kind === 'question'

type Content = Omit<EventRecord, 'applied' | 'state' | 'dismissed' | 'answered' | 'path' | 'signature'>

/** What the checksum and the signature cover: everything but the outcome, `checksum` and `signature`. */
export function eventContent(e: Content): Record<string, unknown> {
  return {
    schema_version: EVENT_SCHEMA_VERSION,
    id: e.id,
    kind: 'event',
    event_kind: e.event_kind,
    created: e.created,
    created_by: e.created_by,
    about: e.about,
    data: e.data,
    body: e.body,
  }
}

/** sha256 over the canonical JSON of the event's content. */
export function eventChecksum(e: Content): string {
  return `sha256:${createHash('sha256')
    .update(canonicalJSON(eventContent(e)))
    .digest('hex')}`
}

const eventsDir = (store: Store) => path.join(store.dir, 'events')

/**
 * Write a new event file. `sign` is the acting identity's signer (its key comes from its token; root's from
 * this clone's root key), so the event carries proof of who wrote it.
 */
export async function createEvent(
  store: Store,
  e: {
    sign: (content: unknown) => string
    kind: EventKind
    by: string
    about: string | null
    data?: Record<string, unknown>
    body?: string
    /** The task it is about, for the change journal (`p/001-slug`). */
    subject?: { ref: string; project: string }
  },
): Promise<EventRecord> {
  const now = store.now()
  const key = newUlid(now.getTime())
  const id = e.kind === 'question' ? `${QUESTION_PREFIX}${key}` : key
  const created = stamp(now)
  const rec = {
    id,
    event_kind: e.kind,
    created,
    created_by: safeSegment(e.by, 'agent id'),
    about: e.about,
    data: e.data ?? {},
    body: (e.body ?? '').trim(),
  }
  const signature = e.sign(eventContent(rec))
  const [y, m, d] = created.slice(0, 10).split('-') as [string, string, string]
  const name = `${key}-${e.by}-${e.kind}.md`
  const file = path.join(eventsDir(store), y, m, d, name)
  const { renderNew } = await import('../format/frontmatter.js')
  const text = renderNew(
    {
      id,
      kind: 'event',
      schema_version: EVENT_SCHEMA_VERSION,
      event_kind: e.kind,
      created,
      created_by: e.by,
      about: e.about,
      data: rec.data,
      applied: false,
      checksum: eventChecksum(rec),
      signature,
    },
    rec.body === '' ? '' : `\n${rec.body}\n`,
  )
  atomicWrite(store.system, file, text, { exclusive: true })
  const project = e.subject?.project ?? (typeof rec.data.project === 'string' ? rec.data.project : null)
  store.journal({
    kind: e.kind === 'question' ? 'question.asked' : 'event.added',
    ref: e.subject?.ref ?? e.about ?? id,
    id,
    project,
    actor: e.by,
    summary: `${e.kind}${rec.body === '' ? '' : `: ${rec.body}`}`,
  })
  return {
    ...rec,
    applied: false,
    state: 'pending',
    dismissed: null,
    answered: null,
    signature,
    path: store.rel(file),
  }
}

/** Events as parsed by this process, by file (a long-lived server reads an unchanged event without parsing). */
const parsedEvents = new StampMemo<EventRecord>(100_000)

/**
 * The event files under `.dacli/events/YYYY/MM/DD/`, sorted by name: [absolute path, path from the workspace
 * root]. A link, or a folder that cannot be read, goes to `broken` (no events folder is no events).
 */
export function eventFiles(store: Store, broken: Broken[]): [string, string][] {
  /** [absolute path, path relative to the workspace root] of each event file, and its name (what they sort by). */
  const files: [string, string, string][] = []
  const linked = (p: string) =>
    broken.push({ path: store.rel(p), reason: 'symbolic link (not followed)', code: 'symlink-in-workspace' })
  const walk = (dir: string, rel: string, depth: number) => {
    let ents: fs.Dirent[]
    try {
      ents = fs.readdirSync(dir, { withFileTypes: true })
    } catch (e) {
      // No events folder is no events; one dacli cannot read is announced, never read as empty.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        broken.push({
          path: store.rel(dir),
          reason: `cannot be read: ${(e as Error).message}`,
          code: 'unreadable-path',
        })
      }
      return
    }
    for (const ent of ents) {
      // Paths by concatenation: this loop runs once per event on every listing.
      const p = `${dir}${path.sep}${ent.name}`
      if (ent.isSymbolicLink()) {
        if (!isTempName(ent.name)) linked(p)
      } else if (depth < 3 && ent.isDirectory() && /^\d+$/.test(ent.name)) walk(p, `${rel}/${ent.name}`, depth + 1)
      else if (depth === 3 && ent.name.endsWith('.md') && !ent.name.startsWith('.') && !isTempName(ent.name))
        files.push([p, `${rel}/${ent.name}`, ent.name])
    }
  }
  const top = eventsDir(store)
  const link = linkOnPath(top, store.dir)
  if (link !== null) linked(link)
  else walk(top, store.rel(top), 0)
  // By the names taken from the listing: a comparator taking each path's basename made 20,000 of them for 1,000 events.
  files.sort((a, b) => byText(a[2], b[2]))
  return files.map(([abs, rel]) => [abs, rel])
}

/** An event from its file's text (`rel`: its path from the workspace root); throws when it is no event. */
export async function readEventText(text: string, rel: string): Promise<EventRecord> {
  return eventOf(await parseData(text), rel)
}

/**
 * An event file a listing skipped as edited after it was written (`forged-event`: its checksum does not match),
 * read as it now stands, for `events reconcile` to class it unverifiable and archive it. Never applied: nothing
 * else reads events this way. Null when it is not such a file (any other fault, or gone).
 */
export async function readEditedEvent(store: Store, rel: string): Promise<EventRecord | null> {
  try {
    const text = readText(path.join(store.root, rel))
    return eventOf(await parseData(text), rel, false)
  } catch {
    return null
  }
}

/** Every event file, oldest first (ULID order), with the unreadable ones reported. */
export async function listEvents(store: Store): Promise<{ events: EventRecord[]; broken: Broken[] }> {
  // A server's memory of the last listing, while the journal and the watch of the events' folders say nothing
  // changed under them (a copy of the list: callers may sort or cut theirs).
  const kept = store.live?.keptEvents<EventRecord, Broken>()
  if (kept !== undefined) return { events: [...kept.items], broken: [...kept.broken] }
  const mark = store.live?.eventsMark()
  const listed = await walkEvents(store)
  if (mark !== undefined) store.live?.keepEvents({ items: [...listed.events], broken: [...listed.broken] }, mark)
  return listed
}

async function walkEvents(store: Store): Promise<{ events: EventRecord[]; broken: Broken[] }> {
  const events: EventRecord[] = []
  const broken: Broken[] = []
  const files = eventFiles(store, broken)
  if (files.length === 0) return { events, broken }
  const stamps = files.map(([f]) => stampOf(f))
  // Every event as this process parsed it and unchanged since (a long-lived server): no cache section is read.
  const kept: EventRecord[] = []
  for (let i = 0; i < files.length; i++) {
    const stamp = stamps[i]
    if (stamp === null || stamp === undefined) continue
    const e = parsedEvents.get((files[i] as [string, string])[0], stamp)
    if (e === undefined) break
    kept.push(e)
  }
  if (kept.length === stamps.filter((s) => s !== null).length) return onceEach(kept, broken)
  // Otherwise through the index (each entry read there is kept in it: the section keeps what a listing touched).
  const cache = store.cache('index').section<EventRecord>('events', 'used')
  for (let i = 0; i < files.length; i++) {
    const [f, rel] = files[i] as [string, string]
    const stamp = stamps[i]
    if (stamp === null || stamp === undefined) continue
    const hit = cache.get(rel, stamp)
    if (hit !== undefined) {
      parsedEvents.set(f, stamp, hit)
      events.push(hit)
      continue
    }
    try {
      const text = readText(f)
      const e = eventOf(await parseData(text), rel)
      cache.set(rel, stamp, e)
      parsedEvents.set(f, stamp, e)
      events.push(e)
    } catch (err) {
      broken.push(brokenOf(rel, err))
    }
  }
  return onceEach(events, broken)
}

/**
 * One event per id. A second file with an event's id (a copy, a replay of its earlier bytes) is never listed, so
 * it is never applied or answered twice: the copy that is settled (applied, dismissed, answered) counts, else the
 * one where dacli wrote it (its creation day's folder, its own name), else the first in file order; every other
 * copy is skipped as `duplicate-event` (doctor names it).
 */
/** Where createEvent writes an event: `.dacli/events/YYYY/MM/DD/<ULID>-<agent>-<kind>.md` (relative to the root). */
function homeOf(e: EventRecord): string {
  const [y, m, d] = e.created.slice(0, 10).split('-')
  const key = e.id.replace(/^q-/, '')
  return [
    path.dirname(path.dirname(path.dirname(path.dirname(e.path)))),
    y,
    m,
    d,
    `${key}-${e.created_by}-${e.event_kind}.md`,
  ].join('/')
}

export function onceEach(all: EventRecord[], broken: Broken[]): { events: EventRecord[]; broken: Broken[] } {
  const byId = new Map<string, EventRecord[]>()
  for (const e of all) {
    const same = byId.get(e.id)
    if (same === undefined) byId.set(e.id, [e])
    else same.push(e)
  }
  if (byId.size === all.length) return { events: all, broken }
  const events: EventRecord[] = []
  for (const e of all) {
    const same = byId.get(e.id) as EventRecord[]
    const kept =
      same.find((x) => x.state !== 'pending') ?? same.find((x) => x.path === homeOf(x)) ?? (same[0] as EventRecord)
    if (kept === e) events.push(e)
    else {
      broken.push({
        path: e.path,
        reason: `a second file with event id ${e.id} (${kept.path} is the one that counts); it is never applied`,
        code: 'duplicate-event',
      })
    }
  }
  return { events, broken }
}

function eventOf(
  p: { data: Record<string, unknown>; split: { body: string } },
  rel: string,
  checksum = true,
): EventRecord {
  const d = p.data
  const str = (v: unknown) => (typeof v === 'string' ? v : null)
  const id = str(d.id)
  const kind = str(d.event_kind)
  if (id === null || d.kind !== 'event') throw new Error('not an event (missing id or kind: event)')
  if (!isId('event', id))
    throw new InvalidValueError('invalid-id', 'id', `field "id" is ${JSON.stringify(id)}; expected a ULID`)
  if (!isId('agent', d.created_by)) {
    throw new InvalidValueError(
      'invalid-id',
      'created_by',
      `field "created_by" is ${JSON.stringify(d.created_by ?? null)}; expected an agent id (a-…)`,
    )
  }
  if (d.about !== undefined && d.about !== null && typeof d.about !== 'string') {
    throw new InvalidValueError(
      'invalid-field',
      'about',
      `field "about" is ${JSON.stringify(d.about)}; expected a task id`,
    )
  }
  if (d.data !== undefined && d.data !== null && (typeof d.data !== 'object' || Array.isArray(d.data))) {
    throw new InvalidValueError('invalid-field', 'data', 'field "data" is not a map')
  }
  if (kind === null || !(EVENT_KINDS as readonly string[]).includes(kind))
    throw new Error(`unknown event_kind ${JSON.stringify(d.event_kind)}`)
  const rec = {
    id,
    event_kind: kind as EventKind,
    created: str(d.created) ?? '',
    created_by: str(d.created_by) ?? '',
    about: str(d.about),
    data:
      d.data !== null && typeof d.data === 'object' && !Array.isArray(d.data)
        ? (d.data as Record<string, unknown>)
        : {},
    body: p.split.body.trim(),
  }
  if (d.schema_version !== EVENT_SCHEMA_VERSION)
    throw new Error(`unsupported schema_version ${JSON.stringify(d.schema_version)}`)
  if (checksum && d.checksum !== eventChecksum(rec)) {
    throw Object.assign(
      new Error('checksum mismatch: the event was edited after it was written; it is never applied'),
      { code: 'forged-event' },
    )
  }
  // An intact event is still its proposer's word: what sync would write from it is checked before anyone reads it.
  checkEventData(rec.event_kind, rec.data, rec.body)
  const state: EventState = d.applied === true ? 'applied' : d.applied === 'dismissed' ? 'dismissed' : 'pending'
  return {
    ...rec,
    applied: state === 'applied',
    state,
    dismissed: state === 'dismissed' ? settledOf(d.dismissed) : null,
    answered: state === 'applied' && kind === 'question' ? answeredOf(d.answered) : null,
    signature: typeof d.signature === 'string' ? d.signature : null,
    path: rel,
  }
}

function settledOf(v: unknown): Settled {
  const o = v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {}
  const str = (x: unknown) => (typeof x === 'string' ? x : null)
  return { by: str(o.by) ?? 'unknown', at: str(o.at) ?? '', reason: str(o.reason) }
}

function answeredOf(v: unknown): Answer {
  const { by, at } = settledOf(v)
  const o = v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {}
  return { by, at, note: typeof o.note === 'string' ? o.note : '' }
}

/** Set `applied: true` (sync, accept). */
export async function markApplied(store: Store, e: EventRecord): Promise<void> {
  await settleEvent(store, e, { applied: true })
}

export type Outcome = { applied: true; answered?: Answer } | { applied: 'dismissed'; dismissed: Settled }

export interface OutcomeNote {
  ref: string
  project: string | null
  actor: string
  summary: string
}

/**
 * Run `fn` under the event's lock with the event as it is on disk now, and record the outcome `fn` returns
 * (null: leave it as it is). Whoever settles an event holds its lock, so an event is never both applied and
 * dismissed, and a question never gets two answers.
 */
export async function withEvent<R>(
  store: Store,
  e: EventRecord,
  fn: (fresh: EventRecord) => Promise<{ outcome: Outcome | null; note?: OutcomeNote; result: R }>,
): Promise<R> {
  return store.withLock(`event-${e.id}`, async () => {
    const file = path.join(store.root, e.path)
    const { parseObject, renderEdited } = await import('../format/frontmatter.js')
    let parsed: ReturnType<typeof parseObject>
    let fresh: EventRecord
    try {
      parsed = parseObject(readText(file))
      fresh = eventOf(parsed, e.path)
    } catch (err) {
      throw new FailureError(`cannot read event ${e.id}: ${(err as Error).message}`, { cause: err })
    }
    const { outcome, note, result } = await fn(fresh)
    if (outcome === null || fresh.state !== 'pending') return result
    const doc = parsed.doc.clone()
    doc.set('applied', outcome.applied)
    const [key, record] =
      outcome.applied === 'dismissed' ? ['dismissed', outcome.dismissed] : ['answered', outcome.answered]
    if (record !== undefined) doc.set(key, { ...record })
    atomicWrite(store.system, file, renderEdited(parsed, doc, parsed.split.body))
    const dismissed = outcome.applied === 'dismissed'
    store.journal({
      kind: dismissed ? 'event.dismissed' : e.event_kind === 'question' ? 'question.answered' : 'event.applied',
      ref: note?.ref ?? e.about ?? e.id,
      id: e.id,
      project: note?.project ?? null,
      actor: note?.actor ?? (dismissed ? outcome.dismissed.by : (outcome.answered?.by ?? null)),
      summary: note?.summary ?? `${e.event_kind} ${dismissed ? 'dismissed' : 'applied'}`,
    })
    return result
  })
}

/** Record an outcome if the event is still pending; returns the state it found. */
function settleEvent(store: Store, e: EventRecord, outcome: Outcome, note?: OutcomeNote): Promise<EventState> {
  return withEvent(store, e, async (fresh) => ({
    outcome,
    ...(note === undefined ? {} : { note }),
    result: fresh.state,
  }))
}

/** An event by id or unique id prefix; a question's `q-` may be left out. */
export async function findEvent(store: Store, id: string): Promise<EventRecord> {
  const { events } = await listEvents(store)
  const want = id.trim().toUpperCase()
  const bare = (x: string) => x.toUpperCase().replace(/^Q-/, '')
  const hits =
    want === ''
      ? []
      : events.filter(
          (e) => e.id.toUpperCase().startsWith(want) || (!want.startsWith('Q-') && bare(e.id).startsWith(want)),
        )
  if (hits.length !== 1) {
    throw new NotFoundError(
      hits.length === 0 ? `no event "${id}"` : `event id prefix "${id}" matches ${hits.length} events`,
      {
        next: [cmd('events list')],
      },
    )
  }
  return hits[0] as EventRecord
}

/** A question's id (`q-…`): questions are events too. */
export const isQuestionId = (s: string | null | undefined): s is string => typeof s === 'string' && /^q-/i.test(s)
