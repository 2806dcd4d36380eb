// Questions and answers: an agent that is stuck asks instead of
// guessing. A question is an event (`event_kind: question`, id `q-<ULID>`) that
// blocks its task (`blocked_by: q-<id>`) when the asker may hold the task up;
// `answer` writes a decision or finding note linked to the question and the
// task, settles the question, and unblocks the task when nothing else blocks it.
//
// Lock order: the question's event lock, then the task's lock.

import { cmd } from '../../base/commands.js'
import { classifiedError, FailureError, NotFoundError, RefusedError, UsageError } from '../../base/errors.js'
import { excerpt } from '../../base/text.js'
import { checkText } from '../../format/ids.js'
import { checkSectionText } from '../../format/markdown.js'
import type { Broken, Identity, TaskRecord, TaskSummary } from '../../format/model.js'
import { stamp } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { createEvent, type EventRecord, findEvent, isOpenQuestion, listEvents, withEvent } from '../../store/events.js'
import type { Store, TaskEdit } from '../../store/store.js'
import { signerOf } from '../identity/identity.js'
import { vouchedEvents } from '../identity/vouched.js'
import { addNote, listNotes, type NoteRecord } from '../notes/notes.js'
import { applyUnblock, mayRewrite } from '../task/lifecycle.js'
import { readTaskOrGone } from '../task/readable.js'
import { applyDecision, decisionOf } from './decide.js'
import { type QuestionPayload, questionPayload } from './payload.js'

export interface Asked {
  question: EventRecord
  task: TaskRecord
  /** The question holds the task up (the task is blocked, by it or by something before it). */
  blocks: boolean
  /** Why it does not block, when it does not. */
  not_blocking_reason: string | null
}

/** `ask`: record a question about a task and block the task on it. Any grant may ask. */
export async function askQuestion(
  store: Store,
  who: Identity,
  q: {
    about: string
    text: string
    need?: string
    /** A merge conflict the question decides (conflicts.ts): on a done task it is recorded without blocking. */
    conflict?: { field: string; ours: string; theirs: string }
  },
): Promise<Asked> {
  const text = checkText(q.text, 'the question').trim()
  if (text === '') throw new UsageError('the question is empty')
  if (text.length > 4000) throw new UsageError(`the question is ${text.length} characters long; the limit is 4000`)
  const need = q.need === undefined ? null : checkText(q.need, '--need').trim() || null
  const { target, task: t } = await store.load(q.about)
  const stateRefusal = (cur: TaskRecord) =>
    new RefusedError('state', `${qualifiedRef(cur)} is done: a question cannot hold it up`, {
      details: { status: cur.status },
      next: [
        cmd(`task reopen ${qualifiedRef(cur)} --reason "<why>" (then ask)`),
        cmd(`note add finding "<what you noticed>" --project ${cur.project} --about ${qualifiedRef(cur)}`),
      ],
    })
  const conflict = q.conflict ?? null
  if (t.status === 'done' && conflict === null) throw stateRefusal(t)
  // The conflict keys are written only on a conflict's question: an ordinary question's file carries no stray
  // nulls (the reader takes an absent key as null).
  const data = (blocks: boolean): Partial<QuestionPayload> => ({
    project: t.project,
    need,
    blocks,
    ...(conflict === null ? {} : { conflict: conflict.field, ours: conflict.ours, theirs: conflict.theirs }),
  })
  const subject = { ref: qualifiedRef(t), project: t.project }
  // Only someone who may hold the task up blocks it: its owner, anyone on an unowned task, or an rw identity
  // that may rewrite it. A question about a task someone else holds is recorded for them without blocking.
  const mayBlock = t.status !== 'done' && (t.owner === who.id || t.owner === null || (await mayRewrite(store, t, who)))
  if (!mayBlock) {
    const question = await createEvent(store, {
      sign: (await signerOf(store)).sign,
      kind: 'question',
      by: who.id,
      about: t.id,
      data: data(false),
      body: text,
      subject,
    })
    const why = t.status === 'done' ? `${qualifiedRef(t)} is done` : `${qualifiedRef(t)} is held by ${t.owner}`
    return { question, task: t, blocks: false, not_blocking_reason: why }
  }
  const r = await store.editTask(target, who.id, async (e) => {
    if (e.before.status === 'done' && conflict === null) throw stateRefusal(e.before)
    const question = await createEvent(store, {
      sign: (await signerOf(store)).sign,
      kind: 'question',
      by: who.id,
      about: t.id,
      data: data(true),
      body: text,
      subject,
    })
    e.log('asked', `${question.id}: ${excerpt(text)}`)
    if (e.before.status !== 'blocked' && e.before.status !== 'done') {
      e.set('blocked_by', question.id)
      e.status = 'blocked'
      e.log('blocked', `by ${question.id}`)
    }
    return question
  })
  if (r.result === false) throw new Error('unreachable: asking always writes')
  return { question: r.result, task: r.task, blocks: true, not_blocking_reason: null }
}

export interface Answered {
  question: EventRecord
  note: NoteRecord
  task: TaskRecord | null
  unblocked: boolean
  /** What still blocks the task after the answer (another question, a task, a reason), or null. */
  still_blocked_by: string | null
}

/** `answer`: write the answer as a note, settle the question, unblock the task when nothing else blocks it. */
export async function answerQuestion(
  store: Store,
  who: Identity,
  a: { id: string; text: string; as: 'decision' | 'finding'; rejected?: string; because?: string },
): Promise<Answered> {
  const q = await findQuestion(store, a.id)
  // It becomes a note's section (the decision's choice, the finding's text): it must read back as that section.
  const text = checkSectionText(a.text, 'the answer').trim()
  if (text === '') throw new UsageError('the answer is empty')
  const task = q.about === null ? null : await readTaskOrGone(store, q.about)
  const project = task?.project ?? questionPayload(q.data).project
  // A merge conflict's question: the answer is `ours`, `theirs` or the value itself (conflicts.ts).
  const decided = questionPayload(q.data).conflict === null ? null : decisionOf(q, text)
  if (project === null) {
    throw new RefusedError(
      'target-gone',
      `the task ${q.about ?? '?'} of ${q.id} is gone: there is nowhere to file an answer`,
      {
        next: [cmd(`events dismiss ${q.id} --reason "the task is gone"`)],
      },
    )
  }
  const note = await withEvent(store, q, async (fresh) => {
    if (fresh.state !== 'pending') throw settledRefusal(fresh)
    // The note policy's refusal would point at `note add`, which files a note but leaves the question open.
    if (a.as === 'decision' && (a.rejected === undefined || a.rejected.trim() === '')) {
      throw new RefusedError(
        'decision-without-rejected',
        'a decision must say what was rejected (--rejected): a choice without alternatives is not a decision',
        { next: [cmd(`answer ${fresh.id} "<answer>" --as decision --rejected "<alternative>" --because "<why>"`)] },
      )
    }
    const n = await addNote(store, {
      project,
      kind: a.as,
      title: `Q: ${excerpt(fresh.body, 100)}`,
      by: who.id,
      about: fresh.about,
      answers: fresh.id,
      ...(a.as === 'decision'
        ? {
            chose: text,
            ...(a.rejected === undefined ? {} : { rejected: a.rejected }),
            ...(a.because ? { because: a.because } : {}),
          }
        : {}),
      body: [
        `In answer to ${fresh.id}, asked by ${fresh.created_by} at ${fresh.created}:`,
        '',
        ...fresh.body.split('\n').map((l) => `> ${l}`),
        ...(a.as === 'finding' ? ['', text] : []),
      ].join('\n'),
    })
    return {
      outcome: { applied: true, answered: { by: who.id, at: stamp(store.now()), note: n.id } },
      note: {
        ref: task === null ? (fresh.about ?? fresh.id) : qualifiedRef(task),
        project,
        actor: who.id,
        summary: `${fresh.id} answered (${a.as} ${n.id}): ${excerpt(text)}`,
      },
      result: n,
    }
  })
  const settled: EventRecord = {
    ...q,
    applied: true,
    state: 'applied',
    answered: { by: who.id, at: stamp(store.now()), note: note.id },
  }
  if (task === null) return { question: settled, note, task: null, unblocked: false, still_blocked_by: null }
  const after = await releaseBlock(store, who, q, 'answered', `${q.id} with ${a.as} ${note.id}`)
  if (decided !== null) {
    const r = await applyDecision(store, who, q, decided)
    if (r !== null) after.task = r
  }
  return { question: settled, note, ...after }
}

function settledRefusal(q: EventRecord): RefusedError {
  const how =
    q.state === 'dismissed'
      ? `was dismissed by ${q.dismissed?.by ?? '?'}${q.dismissed?.reason ? ` (${q.dismissed.reason})` : ''}`
      : `was already answered by ${q.answered?.by ?? '?'} (note ${q.answered?.note ?? '?'})`
  return new RefusedError('state', `${q.id} ${how}`, {
    details: { question: q.id, state: q.state },
    next: [cmd(`threads --about ${q.about ?? ''}`).trim(), 'ask a new question if something is still open'],
  })
}

/** A question by id or unique prefix (exit 4 when it is not a question). */
async function findQuestion(store: Store, id: string): Promise<EventRecord> {
  let e: EventRecord
  try {
    e = await findEvent(store, id)
  } catch (err) {
    throw await notAQuestion(store, id, err)
  }
  if (e.event_kind !== 'question') {
    throw new NotFoundError(`${e.id} is a ${e.event_kind} event, not a question`, {
      details: { event_id: e.id, kind: e.event_kind },
      next: [cmd('threads --open')],
    })
  }
  return e
}

/** `answer <task ref>`: point at the task's open questions, whose ids `answer` takes. */
async function notAQuestion(store: Store, id: string, cause: unknown): Promise<NotFoundError | FailureError> {
  const task = await store.load(id).then(
    (l) => l.task,
    () => null,
  )
  if (task === null) {
    // A question whose file dacli refused (edited after it was written): say so, never "no question".
    const bare = id.trim().toUpperCase().replace(/^Q-/, '')
    const refused = (await listEvents(store)).broken.find(
      (b) => bare.length >= 8 && (b.path.split('/').pop() ?? '').toUpperCase().startsWith(bare),
    )
    if (refused !== undefined) {
      return new FailureError(`the question's file ${refused.path} cannot be used: ${refused.reason}`, {
        details: { path: refused.path, code: refused.code },
        next: [
          cmd('doctor'),
          cmd('ask "<question>" --about <task> (ask again)'),
          cmd('task unblock <task> (if it waits on this question)'),
        ],
      })
    }
    return new NotFoundError(`no question "${id}"`, { cause, next: [cmd('threads --open')] })
  }
  const open = (await listEvents(store)).events.filter((e) => isOpenQuestion(e) && e.about === task.id)
  const ref = qualifiedRef(task)
  if (open.length === 0) {
    return new NotFoundError(`"${id}" is the task ${ref}, not a question, and no question about it is open`, {
      cause,
      details: { task: ref, open_questions: [] },
      next: [cmd(`threads --about ${ref}`)],
    })
  }
  return new NotFoundError(
    `"${id}" is the task ${ref}, not a question; answer its open question${open.length === 1 ? '' : 's'} by id: ${open.map((q) => q.id).join(', ')}`,
    {
      cause,
      details: { task: ref, open_questions: open.map((q) => q.id) },
      next: open.map((q) => cmd(`answer ${q.id} "<answer>"`)),
    },
  )
}

/**
 * After a question is settled (answered or dismissed): note it in the task's log and, when the question was what
 * blocked the task, hand the block to the next open question about it or unblock the task.
 */
export async function releaseBlock(
  store: Store,
  who: Identity,
  q: EventRecord,
  verb: 'answered' | 'dismissed',
  line: string,
): Promise<{ task: TaskRecord | null; unblocked: boolean; still_blocked_by: string | null }> {
  if (q.about === null) return { task: null, unblocked: false, still_blocked_by: null }
  let loaded: Awaited<ReturnType<Store['load']>>
  try {
    loaded = await store.load(q.about)
  } catch (e) {
    // A task that is gone has nothing to unblock; one that cannot be read is an error, not "gone".
    if (classifiedError(e)?.kind === 'not_found') return { task: null, unblocked: false, still_blocked_by: null }
    throw e
  }
  const others = (await listEvents(store)).events.filter(
    (e) => isOpenQuestion(e) && e.id !== q.id && e.about === q.about && questionPayload(e.data).blocks,
  )
  let unblocked = false
  let still: string | null = null
  const r = await store.editTask(loaded.target, who.id, (e: TaskEdit) => {
    e.log(verb, line)
    still = e.before.status === 'blocked' ? e.before.blocked_by : null
    if (e.before.status !== 'blocked' || e.before.blocked_by !== q.id) return {}
    const nextQ = others[0]
    if (nextQ !== undefined) {
      e.set('blocked_by', nextQ.id)
      e.log('blocked', `by ${nextQ.id}`)
      still = nextQ.id
      return {}
    }
    applyUnblock(e)
    unblocked = true
    still = null
    return {}
  })
  return { task: r.task, unblocked, still_blocked_by: still }
}

export interface Thread {
  question: EventRecord
  task: TaskSummary | null
  answer: NoteRecord | null
}

/** Questions with their answers, newest first. */
export async function listThreads(
  store: Store,
  f: { open?: boolean; about?: string; project?: string } = {},
): Promise<{ threads: Thread[]; broken: Broken[] }> {
  const { events, broken } = await vouchedEvents(store, (e) => e.event_kind === 'question')
  const tasks = (await store.listTasks()).tasks
  const byId = new Map(tasks.map((t) => [t.id, t]))
  const questions = events
    .filter((e) => e.event_kind === 'question')
    .filter((e) => !f.open || e.state === 'pending')
    .filter((e) => f.about === undefined || e.about === f.about)
    .filter((e) => {
      if (f.project === undefined) return true
      const t = e.about === null ? undefined : byId.get(e.about)
      return (t?.project ?? questionPayload(e.data).project) === f.project
    })
    .reverse()
  const notesOf = new Map<string, NoteRecord[]>()
  const threads: Thread[] = []
  for (const q of questions) {
    const task = q.about === null ? null : (byId.get(q.about) ?? null)
    let answer: NoteRecord | null = null
    const project = task?.project ?? questionPayload(q.data).project
    if (q.answered !== null && project !== null && store.projectSlugs().includes(project)) {
      if (!notesOf.has(project)) notesOf.set(project, (await listNotes(store, project)).notes)
      // The note the question's settlement names; a note that only says it answers the question (`answers:`, which
      // anyone can write into a file) stands in only when that one is not there, never in front of it.
      const notes = notesOf.get(project) ?? []
      answer = notes.find((n) => n.id === q.answered?.note) ?? notes.find((n) => n.answers === q.id) ?? null
    }
    threads.push({ question: q, task, answer })
  }
  return { threads, broken }
}
