// What search reads of each kind of object: the result it shows (the item) and the fields it ranks, by name and
// weight. The cacheless search and the search index build their documents here, so both rank the same texts.

import type { TaskRecord } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import type { EventRecord } from '../../store/events.js'
import type { NoteRecord, RiskRecord } from '../notes/notes.js'
import type { Field, SearchDoc } from './rank.js'

export const SEARCH_KINDS = ['task', 'note', 'risk', 'question'] as const
export type SearchKind = (typeof SEARCH_KINDS)[number]

/** A result as search shows it (the command to run next is added by the command). */
export interface Item {
  kind: SearchKind
  id: string
  ref: string
  project: string | null
  title: string
  status: string | null
}

export type Doc = SearchDoc<Item>

/**
 * Every field a document can have, in the order they appear in a document of any kind (a task's title, labels,
 * milestone, So that, Context, acceptance; a note's or question's title and body; a risk's title, indicators and
 * action), and the weight of each.
 */
export const FIELD_NAMES = [
  'title',
  'labels',
  'milestone',
  'so_that',
  'context',
  'acceptance',
  'body',
  'indicators',
  'action',
] as const
export const FIELD_WEIGHTS: readonly number[] = [5, 3, 2, 1, 1, 1, 1, 1, 1]

const f = (name: (typeof FIELD_NAMES)[number], text: string | null | undefined): Field[] =>
  text === null || text === undefined || text === ''
    ? []
    : [{ name, text, weight: FIELD_WEIGHTS[FIELD_NAMES.indexOf(name)] as number }]

export function taskDoc(t: TaskRecord): Doc {
  return {
    item: { kind: 'task', id: t.id, ref: qualifiedRef(t), project: t.project, title: t.title, status: t.status },
    fields: [
      ...f('title', t.title),
      ...f('labels', t.labels.join(' ')),
      ...f('milestone', t.milestone),
      ...f('so_that', t.so_that),
      ...f('context', t.context),
      ...f('acceptance', t.acceptance.map((a) => a.text).join('\n')),
    ],
  }
}

export function noteDoc(n: NoteRecord): Doc {
  const s = n.sections
  return {
    item: { kind: 'note', id: n.id, ref: n.id, project: n.project, title: n.title, status: n.kind },
    fields: [
      ...f('title', n.title),
      ...f('body', [n.body, s.chose, s.rejected, s.because, s.goal, s.question, s.metric].filter(Boolean).join('\n')),
    ],
  }
}

export function riskDoc(r: RiskRecord): Doc {
  return {
    item: { kind: 'risk', id: r.id, ref: r.id, project: r.project, title: r.title, status: `rank ${r.rank}` },
    fields: [...f('title', r.title), ...f('indicators', r.indicators.join('\n')), ...f('action', r.action)],
  }
}

/** The project an event names in its data, if any. */
export const eventProject = (e: EventRecord): string | null =>
  typeof e.data.project === 'string' ? e.data.project : null

/** An open question's document. */
export function questionDoc(e: EventRecord): Doc {
  const text = e.body.trim()
  const title = text.split('\n')[0] ?? text
  return {
    item: { kind: 'question', id: e.id, ref: e.id, project: eventProject(e), title, status: 'open' },
    fields: [...f('title', title), ...f('body', text)],
  }
}
