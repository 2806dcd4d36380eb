// Reconciling the event journal: each pending proposal is classed — applied (its effect is already in the task:
// the task's log names the event, or the task is already where the event asks), superseded (a later event of
// the same kind by the same author about the same thing), orphaned (the task it is about is gone), unverifiable
// (its signature does not show its author wrote it) — or live (none of these: it may still apply). Archiving
// moves the chosen classes' files to `.dacli/archive/events/<date>/`, never deletes; the plan id covers the
// classification and the chosen classes, so what is archived is what was reviewed.

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { TaskRecord } from '../../format/model.js'
import { type EventRecord, isPendingProposal, listEvents, readEditedEvent } from '../../store/events.js'
import type { Store } from '../../store/store.js'
import { rootKeysOf, scanAgents } from '../identity/identity.js'
import { eventProblem } from '../identity/trust.js'
import { ARCHIVABLE, JOURNAL_CLASSES } from './kinds.js'
import { planId, refuseOtherPlan } from './world.js'

export type JournalClass = (typeof JOURNAL_CLASSES)[number]
export type Archivable = (typeof ARCHIVABLE)[number]
export const DEFAULT_ARCHIVE: readonly Archivable[] = ['applied', 'superseded', 'orphaned']

export interface Classified {
  event: EventRecord
  class: JournalClass
  reason: string
  /** The project it belongs to: its task's, else the one its data names (a finding), else null. */
  project: string | null
}

function effectPresent(e: EventRecord, t: TaskRecord): string | null {
  if (t.log.some((l) => l.details.includes(`(event ${e.id})`))) return `the task's log names event ${e.id}`
  const status = typeof e.data.status === 'string' ? e.data.status : null
  if (e.event_kind === 'claim' && t.owner === e.created_by) return `${e.created_by} already owns the task`
  if (e.event_kind === 'release' && t.owner === null && t.status !== 'active') return 'the task is already released'
  if (e.event_kind === 'propose-status' && status !== null && t.status === status)
    return `the task is already ${status}`
  if (e.event_kind === 'block' && t.status === 'blocked') return 'the task is already blocked'
  return null
}

export async function classifyJournal(store: Store): Promise<Classified[]> {
  const { events, broken } = await listEvents(store)
  const tasks = (await store.listRecords()).records
  const byId = new Map(tasks.map((t) => [t.id, t]))
  const pending = events.filter(isPendingProposal)
  const { agents } = await scanAgents(store.dir, store.root)
  const rootKeys = rootKeysOf(store, agents)
  const out: Classified[] = []
  for (const e of pending) {
    const about = e.about
    const t = about === null ? undefined : byId.get(about)
    const project = t?.project ?? (typeof e.data.project === 'string' ? e.data.project : null)
    const push = (c: Omit<Classified, 'event' | 'project'>) => out.push({ event: e, project, ...c })
    const forged = eventProblem(e, agents, rootKeys)
    if (forged !== null) {
      push({ class: 'unverifiable', reason: forged })
      continue
    }
    if (about !== null && /^t-/.test(about) && t === undefined) {
      push({ class: 'orphaned', reason: `task ${about} no longer exists` })
      continue
    }
    const later = events.find(
      (o) =>
        o.id !== e.id &&
        o.event_kind === e.event_kind &&
        o.about === e.about &&
        o.created_by === e.created_by &&
        o.state !== 'dismissed' &&
        (o.created > e.created || (o.created === e.created && o.id > e.id)),
    )
    if (later !== undefined) {
      push({ class: 'superseded', reason: `event ${later.id} (${later.created}) says it again, later` })
      continue
    }
    const present = t === undefined ? null : effectPresent(e, t)
    if (present !== null) {
      push({ class: 'applied', reason: present })
      continue
    }
    push({ class: 'live', reason: 'it may still apply' })
  }
  // Edited after it was written: no listing holds it and nothing applies it; here it is unverifiable, to archive.
  for (const b of broken) {
    if (b.code !== 'forged-event') continue
    const e = await readEditedEvent(store, b.path)
    if (e === null || !isPendingProposal(e)) continue
    const t = e.about === null ? undefined : byId.get(e.about)
    const project = t?.project ?? (typeof e.data.project === 'string' ? e.data.project : null)
    out.push({ event: e, project, class: 'unverifiable', reason: b.reason })
  }
  return out.sort((a, b) => (a.event.id < b.event.id ? -1 : 1))
}

export interface JournalPlan {
  classified: Classified[]
  archive: readonly Archivable[]
  plan_id: string
}

/**
 * The plan: every pending event classed (only those of `project` when given: an event whose project is unknown —
 * its task gone, nothing naming one — belongs to none), the classes to archive, and the id covering both.
 */
export async function planJournal(
  store: Store,
  archive: readonly Archivable[],
  project: string | null = null,
): Promise<JournalPlan> {
  if (project !== null) store.requireProject(project)
  const classified = (await classifyJournal(store)).filter((c) => project === null || c.project === project)
  const chosen = [...new Set(archive)].sort()
  const content = { archive: chosen, project, events: classified.map((c) => [c.event.id, c.class, c.event.path]) }
  return { classified, archive: chosen, plan_id: planId('ep', content) }
}

/** Where an archived event goes: `.dacli/archive/events/<YYYY-MM-DD>/` (the day it was archived). */
export const archiveDir = (store: Store, now: Date) =>
  path.join(store.dir, 'archive', 'events', now.toISOString().slice(0, 10))

export async function applyJournal(
  store: Store,
  archive: readonly Archivable[],
  reviewed: string,
  now: Date,
  project: string | null = null,
): Promise<{
  plan: JournalPlan
  archived: { id: string; class: JournalClass; to: string }[]
  failed: { id: string; class: JournalClass; error: string }[]
}> {
  const plan = await planJournal(store, archive, project)
  refuseOtherPlan(plan.plan_id, reviewed, {
    preview: `events reconcile${archive.map((c) => ` --archive ${c}`).join('')}${project === null ? '' : ` --project ${project}`}`,
    what: 'the journal',
    nothing: 'nothing archived',
  })
  const dir = archiveDir(store, now)
  const archived: { id: string; class: JournalClass; to: string }[] = []
  const failed: { id: string; class: JournalClass; error: string }[] = []
  for (const c of plan.classified) {
    if (!(plan.archive as readonly string[]).includes(c.class)) continue
    const from = path.join(store.root, c.event.path)
    const to = path.join(dir, path.basename(from))
    // One event that cannot be moved (the dated folder's name taken by a file …) is reported, not fatal: the
    // events already moved are in `archived`, and the command exits 1.
    try {
      fs.mkdirSync(dir, { recursive: true })
      fs.renameSync(from, to)
      archived.push({ id: c.event.id, class: c.class, to: store.rel(to) })
    } catch (e) {
      failed.push({ id: c.event.id, class: c.class, error: e instanceof Error ? e.message : String(e) })
    }
  }
  return { plan, archived, failed }
}

export { ARCHIVABLE, JOURNAL_CLASSES }
