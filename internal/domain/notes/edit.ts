// Editing and removing notes and risks: the same lossless rewrite as tasks (store/objedit.ts), under a lock per
// file; the file name (so the slug) never changes. A removed note or risk is deleted from the work tree — git
// history and the record branch keep it — and a decision, or a note that answers a question, needs --force: they
// are the project's memory of what was chosen and why.

import * as path from 'node:path'
import { cmd } from '../../base/commands.js'
import { RefusedError, UsageError } from '../../base/errors.js'
import { listItems, sections, sectionText, setLead, setSection, setTitle } from '../../format/markdown.js'
import { removeFile } from '../../store/fsio.js'
import { editObjectFile } from '../../store/objedit.js'
import type { Store } from '../../store/store.js'
import {
  checkNotePolicy,
  listRisks,
  type NoteKind,
  type NoteRecord,
  pickObject,
  type RiskRecord,
  readNote,
  splitRef,
} from './notes.js'

/** The sections each kind of note has, by field, with the heading it is written under. */
export const NOTE_SECTIONS = {
  decision: { chose: 'Chose', rejected: 'Rejected', because: 'Because' },
  metric: { goal: 'Goal', question: 'Question', metric: 'Metric' },
  finding: {},
  ref: {},
} as const satisfies Record<NoteKind, Record<string, string>>

export type NoteSection = 'chose' | 'rejected' | 'because' | 'goal' | 'question' | 'metric'

/**
 * Refuses (2) a section or a severity that a note of `kind` has no place for, so typed text is never dropped:
 * `note add` and `note edit` both ask. `subject` names the note in the message.
 */
export function checkKindFlags(kind: NoteKind, keys: Iterable<string>, severity: boolean, subject: string): void {
  const headings: Record<string, string> = NOTE_SECTIONS[kind]
  for (const key of keys) {
    if (headings[key] !== undefined) continue
    const fits = Object.entries(NOTE_SECTIONS)
      .filter(([, s]) => key in s)
      .map(([k]) => `${k}s`)
    throw new UsageError(`--${key} applies to ${fits.join(' and ')}, and ${subject} is a ${kind}`)
  }
  if (severity && kind !== 'finding') throw new UsageError('--severity applies to findings only')
}

export interface NoteChanges {
  title?: string
  body?: string
  sections?: Partial<Record<NoteSection, string>>
  severity?: string
  /** The task it is about (its id), or null to clear it. */
  about?: string | null
}

const fileOf = (store: Store, rel: string) => path.join(store.root, ...rel.split('/'))

/** Edit a note; returns the note as written and the fields that changed (none: nothing was written). */
export async function editNote(
  store: Store,
  ref: string,
  actor: string,
  p: NoteChanges,
): Promise<{ note: NoteRecord; fields: string[] }> {
  const n = await readNote(store, ref)
  checkKindFlags(n.kind, Object.keys(p.sections ?? {}), p.severity !== undefined, `${n.project}/${n.slug}`)
  const headings: Record<string, string> = NOTE_SECTIONS[n.kind]
  const merged = { ...n.sections, ...p.sections }
  checkNotePolicy({
    kind: n.kind,
    ...(merged.rejected === null ? {} : { rejected: merged.rejected }),
    ...(merged.goal === null ? {} : { goal: merged.goal }),
    ...(merged.question === null ? {} : { question: merged.question }),
  })
  // A hand-written `about: ledger/1` that names the task --about names is the same value: nothing to rewrite.
  const sameAbout =
    typeof p.about === 'string' &&
    n.about !== null &&
    (await store.readTask(n.about, { prefer: n.project }).then(
      (t) => t.id,
      () => null,
    )) === p.about
  const file = fileOf(store, n.path)
  const r = await editObjectFile(store, file, `note-${n.id}`, (e) => {
    const fields: string[] = []
    if (p.title !== undefined && p.title !== n.title) {
      e.body = setTitle(e.body, p.title)
      fields.push('title')
    }
    if (p.body !== undefined && p.body.trim() !== (n.body ?? '')) {
      e.body = setLead(e.body, p.body)
      fields.push('body')
    }
    for (const [key, text] of Object.entries(p.sections ?? {}) as [NoteSection, string][]) {
      if (text.trim() === (n.sections[key] ?? '')) continue
      // A section the note lacks goes before the first one that follows it in its kind's order (a metric's Goal,
      // Question and Metric stay in that order), else at the end.
      const order = Object.keys(headings)
      const present = new Set(sections(e.body).map((x) => x.title.toLowerCase()))
      const next = order
        .slice(order.indexOf(key) + 1)
        .map((k) => headings[k] as string)
        .find((h) => present.has(h.toLowerCase()))
      e.body = setSection(
        e.body,
        headings[key] as string,
        `\n${text.trim()}\n`,
        next === undefined ? {} : { before: next },
      )
      fields.push(key)
    }
    for (const [key, value] of [
      ['severity', p.severity],
      ['about', p.about],
    ] as const) {
      if (value === undefined || value === n[key] || (key === 'about' && sameAbout)) continue
      if (value === null) e.doc.delete(key)
      else e.doc.set(key, value)
      fields.push(key)
    }
    return fields.length === 0 ? false : fields
  })
  const fields = r.result === false ? [] : r.result
  const note = await readNote(store, n.id)
  if (r.changed) {
    store.journal({
      kind: 'note.changed',
      ref: `${n.project}/${n.slug}`,
      id: n.id,
      project: n.project,
      actor,
      summary: `edited ${fields.join(', ')}`,
    })
  }
  return { note, fields }
}

/** Remove a note's file. A decision, or a note that answers a question, needs `force`. */
export async function removeNote(store: Store, ref: string, actor: string, force: boolean): Promise<NoteRecord> {
  const n = await readNote(store, ref)
  const holds = [
    ...(n.kind === 'decision' ? ['it is a decision (briefs show it so nobody re-proposes what was rejected)'] : []),
    ...(n.answers === null ? [] : [`it answers the question ${n.answers}`]),
  ]
  if (holds.length > 0 && !force) {
    throw new RefusedError('confirm-removal', `removing ${n.project}/${n.slug} needs --force: ${holds.join('; ')}`, {
      details: { note: n.id, holds },
      next: [cmd(`note rm ${n.project}/${n.slug} --force`)],
    })
  }
  const file = fileOf(store, n.path)
  await store.withLock(`note-${n.id}`, () => removeFile(file))
  store.journal({
    kind: 'note.removed',
    ref: `${n.project}/${n.slug}`,
    id: n.id,
    project: n.project,
    actor,
    summary: `${n.kind}: ${n.title}`,
  })
  return n
}

/** A risk by id (`r-<ULID>`, the bare ULID or a prefix), `<project>/<slug>`, or a bare slug. */
export async function readRisk(store: Store, ref: string): Promise<RiskRecord> {
  const { project, form } = splitRef(ref)
  const { risks, broken } = await listRisks(store, project)
  return pickObject(risks, broken, ref, form, 'risk', store.root)
}

export interface RiskChanges {
  title?: string
  impact?: string
  likelihood?: string
  addIndicators?: readonly string[]
  removeIndicators?: readonly string[]
  action?: string
}

/** Edit a risk; returns the risk as written and the fields that changed. */
export async function editRisk(
  store: Store,
  ref: string,
  actor: string,
  p: RiskChanges,
): Promise<{ risk: RiskRecord; fields: string[] }> {
  const r0 = await readRisk(store, ref)
  const missing = (p.removeIndicators ?? []).filter((i) => !r0.indicators.includes(i))
  if (missing.length > 0) {
    throw new UsageError(`--remove-indicator names no indicator of ${r0.project}/${r0.slug}: ${missing.join('; ')}`, {
      details: { indicators: r0.indicators },
    })
  }
  const file = fileOf(store, r0.path)
  const r = await editObjectFile(store, file, `risk-${r0.id}`, (e) => {
    const fields: string[] = []
    if (p.title !== undefined && p.title !== r0.title) {
      e.body = setTitle(e.body, p.title)
      fields.push('title')
    }
    for (const key of ['impact', 'likelihood'] as const) {
      const v = p[key]
      if (v === undefined || v === r0[key]) continue
      e.doc.set(key, v)
      fields.push(key)
    }
    const indicators = [
      ...r0.indicators.filter((i) => !(p.removeIndicators ?? []).includes(i)),
      ...(p.addIndicators ?? []).filter((i) => !r0.indicators.includes(i)),
    ]
    if (JSON.stringify(indicators) !== JSON.stringify(r0.indicators)) {
      // Only the lines of removed indicators go, and new ones are added in the list's own bullet: the rest of
      // what a person wrote there keeps its bytes.
      const gone = new Set(p.removeIndicators ?? [])
      const all = (sectionText(e.body, 'Indicators') ?? '').split('\n')
      const drop = new Set<number>()
      for (const item of listItems(all)) if (gone.has(item.text)) for (let i = item.from; i < item.to; i++) drop.add(i)
      const kept = all.filter((_, i) => !drop.has(i))
      const bullet = /^\s*([-*])\s/.exec(kept.find((l) => /^\s*[-*]\s/.test(l)) ?? '')?.[1] ?? '-'
      const lines = [...kept, ...indicators.filter((i) => !r0.indicators.includes(i)).map((i) => `${bullet} ${i}`)]
      // A comment left alone in the section stays: only an empty section goes.
      const text = lines.join('\n').trim()
      e.body = setSection(e.body, 'Indicators', text === '' ? '' : `\n${text}\n`, {
        before: 'Action',
      })
      fields.push('indicators')
    }
    if (p.action !== undefined && p.action.trim() !== (r0.action ?? '')) {
      e.body = setSection(e.body, 'Action', `\n${p.action.trim()}\n`)
      fields.push('action')
    }
    return fields.length === 0 ? false : fields
  })
  const fields = r.result === false ? [] : r.result
  const risk = await readRisk(store, r0.id)
  if (r.changed) {
    store.journal({
      kind: 'risk.changed',
      ref: `${r0.project}/${r0.slug}`,
      id: r0.id,
      project: r0.project,
      actor,
      summary: `edited ${fields.join(', ')}`,
    })
  }
  return { risk, fields }
}

/** Remove a risk's file (git history and the record branch keep it). */
export async function removeRisk(store: Store, ref: string, actor: string): Promise<RiskRecord> {
  const r = await readRisk(store, ref)
  await store.withLock(`risk-${r.id}`, () => removeFile(fileOf(store, r.path)))
  store.journal({
    kind: 'risk.removed',
    ref: `${r.project}/${r.slug}`,
    id: r.id,
    project: r.project,
    actor,
    summary: r.title,
  })
  return r
}
