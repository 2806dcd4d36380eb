// Note documents from store records.

import { classifiedError } from '../../base/errors.js'
import type { Out } from '../../clikit/io.js'
import type { NoteRecord } from '../../domain/notes/notes.js'
import { qualifiedRef } from '../../format/refs.js'
import type { Store } from '../../store/store.js'
import type { NoteBodyT } from './json.js'

export async function noteBody(store: Store, n: NoteRecord): Promise<NoteBodyT> {
  let about: NoteBodyT['about'] = null
  if (n.about !== null) {
    try {
      const t = await store.readTask(n.about, { prefer: n.project })
      about = { id: t.id, ref: qualifiedRef(t) }
    } catch (e) {
      const kind = classifiedError(e)?.kind
      if (kind !== 'not_found' && kind !== 'usage') throw e
      about = { id: n.about, ref: null }
    }
  }
  return { ...n, about, severity: n.severity as NoteBodyT['severity'] }
}

export function renderNote(out: Out, n: NoteBodyT): void {
  out.line(`${out.style('bold', n.title)}  ${out.style('dim', `${n.kind} · ${n.project}/${n.slug} · ${n.id}`)}`)
  out.fields([
    ['about', n.about?.ref ?? n.about?.id ?? null],
    ['severity', n.severity],
    ['by', `${n.created_by ?? '?'} at ${n.created ?? '?'}`],
    ['file', n.path],
  ])
  for (const [title, text] of [
    ['Chose', n.sections.chose],
    ['Rejected', n.sections.rejected],
    ['Because', n.sections.because],
    ['Goal', n.sections.goal],
    ['Question', n.sections.question],
    ['Metric', n.sections.metric],
  ] as const) {
    if (text === null) continue
    out.line(out.style('bold', title))
    for (const l of text.split('\n')) out.line(`  ${l}`)
  }
  if (n.body) {
    out.line('')
    out.line(n.body)
  }
}
