// question bodies from store records, and their human rendering.

import type { Out } from '../../clikit/io.js'
import type { NoteRecord } from '../../domain/notes/notes.js'
import { questionPayload } from '../../domain/questions/payload.js'
import { qualifiedRef } from '../../format/refs.js'
import type { EventRecord } from '../../store/events.js'
import type { QuestionBodyT } from './json.js'

interface TaskLike {
  id: string
  project: string
  seq: number
  slug: string
  title: string
  status: string
}

export function questionBody(q: EventRecord, task: TaskLike | null, answer: NoteRecord | null): QuestionBodyT {
  const payload = questionPayload(q.data)
  const project = task?.project ?? payload.project
  return {
    id: q.id,
    question: q.body,
    need: payload.need,
    asked_by: q.created_by,
    asked_at: q.created,
    project,
    about:
      q.about === null
        ? null
        : task === null
          ? { id: q.about, ref: null, title: null, status: null }
          : { id: task.id, ref: qualifiedRef(task), title: task.title, status: task.status },
    state: q.state === 'pending' ? 'open' : q.state === 'applied' ? 'answered' : 'dismissed',
    blocks: payload.blocks,
    answer:
      q.answered === null
        ? null
        : {
            note: {
              id: q.answered.note,
              kind: answer === null ? null : answer.kind === 'decision' ? 'decision' : 'finding',
              title: answer?.title ?? null,
              path: answer?.path ?? null,
            },
            text: answer === null ? null : answerText(answer),
            rejected: answer?.sections.rejected ?? null,
            because: answer?.sections.because ?? null,
            by: q.answered.by,
            at: q.answered.at,
          },
    dismissed: q.dismissed,
    path: q.path,
  }
}

/** A finding's answer is its text after the quoted question; a decision's is its Chose. */
function answerText(n: NoteRecord): string {
  if (n.kind === 'decision') return n.sections.chose ?? n.title
  const lines = (n.body ?? '').split('\n')
  let i = 0
  if (lines[0]?.startsWith('In answer to ')) {
    i = 1
    while (i < lines.length && (lines[i] === '' || lines[i]?.startsWith('>'))) i++
  }
  return lines.slice(i).join('\n').trim()
}

export function renderThread(out: Out, t: QuestionBodyT): void {
  const state =
    t.state === 'open'
      ? out.style('yellow', 'open')
      : t.state === 'answered'
        ? out.style('green', 'answered')
        : out.style('dim', 'dismissed')
  out.line(
    `${out.style('bold', t.id)}  ${state}  ${t.about?.ref ?? t.about?.id ?? '-'}  ${out.style('dim', `${t.asked_by}, ${t.asked_at}`)}`,
  )
  for (const l of t.question.split('\n')) out.line(`  Q: ${l}`)
  if (t.need !== null) out.line(`  needs: ${t.need}`)
  if (t.answer !== null) {
    const a = t.answer
    const first = a.text === null ? [out.style('dim', `(the answer note ${a.note.id} is missing)`)] : a.text.split('\n')
    out.line(`  A: ${first[0] ?? ''}`)
    for (const l of first.slice(1)) out.line(`     ${l}`)
    if (a.rejected !== null) out.line(`     rejected: ${a.rejected}`)
    if (a.because !== null) out.line(`     because: ${a.because}`)
    out.line(out.style('dim', `     — ${a.by}, ${a.at} (${a.note.kind ?? 'note'} ${a.note.id})`))
  }
  if (t.dismissed !== null)
    out.line(out.style('dim', `  dismissed by ${t.dismissed.by}, ${t.dismissed.at}: ${t.dismissed.reason ?? ''}`))
}
