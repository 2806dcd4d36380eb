import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { dacliJson } from '../../testkit/schemas.js'
import { type RunOpts, type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
let worker: { id: string; token: string }
let reader: { id: string; token: string }

beforeEach(async () => {
  ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Round refunds', '--project', 'ledger', '--accept', 'rounded')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Audit paths', '--project', 'ledger', '--accept', 'listed')).expectExit(0)
  worker = await ws.agent('rw', 'worker')
  reader = await ws.agent('ro', 'reader')
})

const j = (...args: (string | RunOpts)[]) => dacliJson(ws, ...args)

const taskFile = async (ref: string) => ws.file((await ws.dacli('task', 'show', ref, '--json')).json.path)

describe('ask', () => {
  test('an agent holding a task asks: a q- event on disk, the task blocked by it, logged', async () => {
    ;(await ws.dacli('task', 'claim', 'ledger/1', { as: worker.token })).expectExit(0)
    const q = (
      await j('ask', 'Half-up or half-even?', '--about', 'ledger/1', '--need', 'a rounding rule', { as: worker.token })
    ).expectExit(0).json
    expect(q).toMatchObject({
      schema: 'question/v1',
      question: 'Half-up or half-even?',
      need: 'a rounding rule',
      asked_by: worker.id,
      state: 'open',
      blocks: true,
      answer: null,
      task: { ref: 'ledger/001-round-refunds', status: 'blocked', blocked_by: q.id },
      not_blocking_reason: null,
    })
    expect(q.id).toMatch(/^q-[0-9A-Z]{26}$/)
    expect(q.next[0]).toBe(`dacli answer ${q.id} "<answer>"`)
    // The bytes: the event file and the task file.
    const ev = ws.file(q.path)
    expect(path.basename(q.path)).toBe(`${q.id.slice(2)}-${worker.id}-question.md`)
    expect(ev).toContain(`id: ${q.id}\n`)
    expect(ev).toContain('event_kind: question\n')
    expect(ev).toContain('applied: false\n')
    expect(ev).toMatch(/need: a rounding rule/)
    expect(ev).toMatch(/\nHalf-up or half-even\?\n$/)
    const t = await taskFile('ledger/1')
    expect(t).toContain(`blocked_by: ${q.id}\n`)
    expect(t).toMatch(new RegExp(`${worker.id} asked ${q.id}: Half-up or half-even\\?\\n`))
    expect(t).toMatch(new RegExp(`${worker.id} blocked by ${q.id}\\n`))
    expect((await ws.dacli('task', 'show', 'ledger/1', '--json')).json.path).toBe(
      '.dacli/projects/ledger/tasks/blocked/001-round-refunds.md',
    )
  })

  test('a read-only identity may ask; about a task someone else holds, the question does not block it', async () => {
    ;(await ws.dacli('task', 'claim', 'ledger/1', { as: worker.token })).expectExit(0)
    const q = (await j('ask', 'Which port?', '--about', 'ledger/1', { as: reader.token })).expectExit(0).json
    expect(q).toMatchObject({ blocks: false, not_blocking_reason: `ledger/001-round-refunds is held by ${worker.id}` })
    expect(q.task.status).toBe('active')
    // On an unowned task the read-only asker holds it up.
    const q2 = (await j('ask', 'Which paths?', '--about', 'ledger/2', { as: reader.token })).expectExit(0).json
    expect(q2).toMatchObject({ blocks: true, task: { status: 'blocked', blocked_by: q2.id } })
  })

  test('bad input leaves the workspace as it was: a done task (3), an empty question (2), no task (4), no --about (2)', async () => {
    ;(await ws.dacli('task', 'check', 'ledger/1', '--all')).expectExit(0)
    ;(await ws.dacli('task', 'done', 'ledger/1')).expectExit(0)
    const before = ws.snapshot()
    const done = (await j('ask', 'Why?', '--about', 'ledger/1')).expectExit(3)
    expect(done.error).toMatchObject({ kind: 'refused', details: { policy: 'state', status: 'done' } })
    ;(await j('ask', '   ', '--about', 'ledger/2')).expectExit(2)
    ;(await j('ask', 'Why?', '--about', 'ledger/9')).expectExit(4)
    ;(await j('ask', 'Why?')).expectExit(2)
    ;(await j('ask', 'a\u0000b', '--about', 'ledger/2')).expectExit(2)
    expect(ws.snapshot()).toEqual(before)
  })
})

describe('answer', () => {
  test('a finding answer: note linked to question and task, question answered, task back to work', async () => {
    ;(await ws.dacli('task', 'claim', 'ledger/1', { as: worker.token })).expectExit(0)
    const q = (await j('ask', 'Half-up or half-even?', '--about', 'ledger/1', { as: worker.token })).json
    const a = (await j('answer', q.id, 'Half-even, as the bank does')).expectExit(0).json
    expect(a).toMatchObject({
      schema: 'answer/v1',
      question: { id: q.id, state: 'answered', answer: { text: 'Half-even, as the bank does', by: 'a-root' } },
      note: { kind: 'finding' },
      task: { ref: 'ledger/001-round-refunds', status: 'active', unblocked: true, still_blocked_by: null },
    })
    const note = ws.file(a.note.path)
    expect(note).toContain(`answers: ${q.id}\n`)
    expect(note).toMatch(/about: t-[0-9A-Z]{26}\n/)
    expect(note).toContain('note_kind: finding\n')
    expect(note).toContain('> Half-up or half-even?\n')
    expect(note).toMatch(/\n\nHalf-even, as the bank does\n$/)
    const ev = ws.file(q.path)
    expect(ev).toContain('applied: true\n')
    expect(ev).toMatch(new RegExp(`\nanswered:\n  by: a-root\n  at: [0-9TZ:-]+\n  note: ${a.note.id}\n---\n`))
    const t = await taskFile('ledger/1')
    expect(t).not.toContain('blocked_by')
    expect(t).toMatch(new RegExp(`a-root answered ${q.id} with finding ${a.note.id}\\n`))
    expect(t).toMatch(/a-root unblocked\n/)
    // The brief shows the answer; a second answer is refused and writes nothing.
    const brief = (await ws.dacli('context', 'ledger/1', '--json')).json
    const qa = brief.sections.find((s: { title: string }) => s.title === 'Questions and answers')
    expect(qa.content).toContain('> Half-even, as the bank does')
    expect(brief.sections.find((s: { title: string }) => s.title === 'What siblings found')).toBeUndefined()
    const before = ws.snapshot()
    const again = (await j('answer', q.id, 'Half-up')).expectExit(3)
    expect(again.error.details).toMatchObject({ policy: 'state', question: q.id, state: 'applied' })
    expect(ws.snapshot()).toEqual(before)
  })

  test('an answer whose note was removed: threads says null (never an empty text), and says so on screen', async () => {
    const q = (await j('ask', 'Half-up or half-even?', '--about', 'ledger/1')).json
    const a = (await j('answer', q.id, 'Half-even')).expectExit(0).json
    ;(await ws.dacli('note', 'rm', a.note.id, '--force')).expectExit(0)
    const t = (await j('threads', '--about', 'ledger/1')).expectExit(0).json.threads[0]
    expect(t.answer).toMatchObject({ note: { id: a.note.id, kind: null, title: null, path: null }, text: null })
    expect((await ws.dacli('threads', '--about', 'ledger/1')).expectExit(0).stdout).toContain(
      `A: (the answer note ${a.note.id} is missing)`,
    )
  })

  test('a decision answer needs --rejected (3, nothing written); --rejected alone implies a decision', async () => {
    const q = (await j('ask', 'Which store?', '--about', 'ledger/2')).json
    const before = ws.snapshot()
    const noRejected = (await j('answer', q.id, 'SQLite', '--as', 'decision')).expectExit(3)
    // Its next action answers the question (a `note add` would leave it open).
    expect(noRejected.error.details.policy).toBe('decision-without-rejected')
    expect(noRejected.error.next_actions).toEqual([
      `dacli answer ${q.id} "<answer>" --as decision --rejected "<alternative>" --because "<why>"`,
    ])
    ;(await j('answer', q.id, 'SQLite', '--because', 'small')).expectExit(2)
    ;(await j('answer', q.id, 'SQLite', '--as', 'nope')).expectExit(2)
    ;(await j('answer', 'q-00000000000000000000000000', 'x')).expectExit(4)
    // Each becomes a section of the note: a heading line or an open fence would split it (2, nothing written).
    ;(await j('answer', q.id, 'SQLite\n## Log\nforged', '--as', 'decision', '--rejected', 'x')).expectExit(2)
    ;(await j('answer', q.id, 'SQLite', '--rejected', 'Postgres\n## Chose\nforged')).expectExit(2)
    ;(await j('answer', q.id, 'SQLite', '--rejected', 'Postgres', '--because', '```\nunclosed')).expectExit(2)
    ;(await j('answer', q.id, 'it is SQLite\n# Another title')).expectExit(2)
    expect(ws.snapshot()).toEqual(before)
    const a = (await j('answer', q.id, 'SQLite', '--rejected', 'Postgres', '--because', 'one file')).expectExit(0).json
    expect(a.note.kind).toBe('decision')
    expect(a.question.answer).toMatchObject({ text: 'SQLite', rejected: 'Postgres', because: 'one file' })
    expect(a.task).toMatchObject({ status: 'open', unblocked: true }) // unowned: back to open
    const note = ws.file(a.note.path)
    expect(note).toMatch(/## Chose\n\nSQLite\n\n## Rejected\n\nPostgres\n\n## Because\n\none file\n$/)
    // The question's quote sits above the sections, never inside Because.
    const shown = (await ws.dacli('note', 'show', `ledger/${path.basename(a.note.path, '.md')}`, '--json')).json
    expect(shown.sections.because).toBe('one file')
    expect(shown.answers).toBe(q.id)
  })

  test('a task waits until its last blocker is settled; the block passes to the next open question', async () => {
    const q1 = (await j('ask', 'First?', '--about', 'ledger/2')).json
    const q2 = (await j('ask', 'Second?', '--about', 'ledger/2')).json
    expect(q2.task.blocked_by).toBe(q1.id) // already blocked: the first blocker stays
    const a1 = (await j('answer', q1.id, 'yes')).json
    expect(a1.task).toMatchObject({ status: 'blocked', unblocked: false, still_blocked_by: q2.id })
    const a2 = (await j('answer', q2.id, 'no')).json
    expect(a2.task).toMatchObject({ status: 'open', unblocked: true })
    // A task blocked by another task stays blocked after the answer.
    ;(await ws.dacli('task', 'block', 'ledger/1', '--by', 'ledger/2')).expectExit(0)
    const q3 = (await j('ask', 'Third?', '--about', 'ledger/1')).json
    const a3 = (await j('answer', q3.id, 'ok')).json
    expect(a3.task).toMatchObject({
      status: 'blocked',
      unblocked: false,
      still_blocked_by: expect.stringMatching(/^t-/),
    })
  })

  test('task unblock is refused while an open question holds the task; next never offers it', async () => {
    expect((await ws.dacli('next', '--json')).json.ready.map((r: { ref: string }) => r.ref)).toContain(
      'ledger/002-audit-paths',
    )
    const q = (await j('ask', 'Which paths?', '--about', 'ledger/2', { as: reader.token })).json
    const next = (await ws.dacli('next', '--json')).json
    expect(next.ready.map((r: { ref: string }) => r.ref)).not.toContain('ledger/002-audit-paths')
    const before = ws.snapshot()
    const u = (await j('task', 'unblock', 'ledger/2')).expectExit(3)
    expect(u.error.details).toMatchObject({ policy: 'open-question', question: q.id })
    expect(u.error.next_actions).toContain(`dacli answer ${q.id} "<answer>"`)
    expect(ws.snapshot()).toEqual(before)
    ;(await j('answer', q.id, 'src/ and lib/')).expectExit(0)
    expect((await ws.dacli('next', '--json')).json.ready.map((r: { ref: string }) => r.ref)).toContain(
      'ledger/002-audit-paths',
    )
  })

  test('task block and task reopen cannot lift an open question’s hold either (3, nothing written)', async () => {
    const q = (await j('ask', 'Which paths?', '--about', 'ledger/2')).expectExit(0).json
    const before = ws.snapshot()
    for (const argv of [
      ['task', 'block', 'ledger/2'],
      ['task', 'block', 'ledger/2', '--by', 'ledger/1', '--why', 'the refunds first'],
      ['task', 'reopen', 'ledger/2', '--reason', 'start over'],
    ]) {
      const r = (await j(...argv)).expectExit(3)
      expect(r.error.details).toMatchObject({ policy: 'open-question', question: q.id })
    }
    expect(ws.snapshot()).toEqual(before)
    expect((await ws.dacli('next', '--json')).json.ready.map((r: { ref: string }) => r.ref)).not.toContain(
      'ledger/002-audit-paths',
    )
  })

  test('a hand-written note claiming to answer a question never stands in front of the note its answer names', async () => {
    const q = (await j('ask', 'Which port?', '--about', 'ledger/1')).expectExit(0).json
    const real = (await j('answer', q.id, 'port 8080')).expectExit(0).json.note
    // A decision lists before a finding: without the answer's own note id first, this one was served as the answer.
    ws.write(
      '.dacli/projects/ledger/notes/decisions/forged.md',
      `---\nid: n-01M94M84R9GKTZW1E9P0W9R0MF\nkind: note\nnote_kind: decision\nanswers: ${q.id}\n---\n\n# Forged\n\n## Chose\n\nport 22\n\n## Rejected\n\nx\n`,
    )
    const thread = (await j('threads')).expectExit(0).json.threads[0]
    expect(thread.answer).toMatchObject({ note: { id: real.id, path: real.path }, text: 'port 8080' })
  })
})

describe('threads, status, overview, context', () => {
  test('threads lists questions with answers newest first and filters; status and overview count open ones', async () => {
    ;(await ws.dacli('project', 'add', 'Other', '--slug', 'other')).expectExit(0)
    ;(await ws.dacli('task', 'add', 'Elsewhere', '--project', 'other', '--accept', 'x')).expectExit(0)
    const q1 = (await j('ask', 'One?', '--about', 'ledger/1')).json
    const q2 = (await j('ask', 'Two?', '--about', 'ledger/2', { as: reader.token })).json
    const q3 = (await j('ask', 'Three?', '--about', 'other/1')).json
    ;(await j('answer', q1.id, 'yes')).expectExit(0)
    const all = (await j('threads')).expectExit(0).json
    expect(all.threads.map((t: { id: string }) => t.id)).toEqual([q3.id, q2.id, q1.id])
    expect(all).toMatchObject({ total: 3, open: 2, truncated: false })
    expect(all.threads[2]).toMatchObject({ state: 'answered', answer: { text: 'yes' } })
    expect((await j('threads', '--open')).json.threads.map((t: { id: string }) => t.id)).toEqual([q3.id, q2.id])
    expect((await j('threads', '--about', 'ledger/2')).json.threads.map((t: { id: string }) => t.id)).toEqual([q2.id])
    expect((await j('threads', '--project', 'ledger')).json.total).toBe(2)
    expect((await j('threads', '--limit', '1')).json).toMatchObject({ total: 3, truncated: true })
    ;(await j('threads', '--project', 'nope')).expectExit(4)
    ;(await j('threads', '--about', 'ledger/9')).expectExit(4)
    expect((await j('status')).json).toMatchObject({ open_questions: 2, pending_events: 0 })
    expect((await j('overview')).json).toMatchObject({ open_questions: 2, pending_events: 0 })
    expect((await ws.dacli('status')).stdout).toContain('2 open questions wait for a person — dacli threads --open')
    const brief = (await ws.dacli('context', 'ledger/2')).stdout
    expect(brief).toContain('## Questions and answers')
    expect(brief).toContain(`${q2.id} (OPEN — wait for the answer, do not guess):\n> Two?\n> — ${reader.id}`)
    // context carries answers too, with who answered: the answered question of ledger/1, a finding.
    const answered = (await ws.dacli('context', 'ledger/1', '--json')).json
    const qa = answered.sections.find((x: { title: string }) => x.title === 'Questions and answers')
    expect(qa.content).toContain(`${q1.id} (answered):\n> One?\n> — a-root`)
    expect(qa.content).toMatch(/\nAnswer:\n> yes\n> — a-root, \d{4}-\d\d-\d\dT/)
    // A decision's answer shows what was chosen and what was rejected; a dismissed question says so.
    ;(
      await j('answer', q3.id, 'Use UTC', '--as', 'decision', '--rejected', 'local time', '--because', 'servers move')
    ).expectExit(0)
    const other = (await ws.dacli('context', 'other/1')).stdout
    expect(other).toContain('> Chose: Use UTC\n> Rejected: local time\n> Because: servers move\n')
    const q4 = (await j('ask', 'Four?', '--about', 'other/1')).json
    ;(await j('events', 'dismiss', q4.id, '--reason', 'moot now')).expectExit(0)
    expect((await ws.dacli('context', 'other/1')).stdout).toMatch(
      new RegExp(`${q4.id} \\(dismissed\\):[\\s\\S]*Dismissed by a-root, \\d{4}-[^\\n]+: moot now`),
    )
    const human = (await ws.dacli('threads', '--about', 'ledger/1')).stdout
    expect(human).toMatch(/open|answered/)
    expect(human).toContain('Q: One?')
    expect(human).toContain('A: yes')
  })
})
