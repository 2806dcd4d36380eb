// The search without its index: every object listed in full (through the stores' own caches) and every document
// ranked from its text. What the index must always agree with: the tests compare the two.

import type { Broken } from '../../format/model.js'
import { isOpenQuestion, listEvents } from '../../store/events.js'
import type { Store } from '../../store/store.js'
import { listNotes, listRisks } from '../notes/notes.js'
import { type Doc, eventProject, noteDoc, questionDoc, riskDoc, type SearchKind, taskDoc } from './docs.js'
import { labelled, type SearchAnswer, type SearchRequest } from './entries.js'
import { rank } from './rank.js'

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
