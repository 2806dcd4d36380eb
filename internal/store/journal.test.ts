import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { spawnBin, workspace } from '../testkit/ws.js'
import {
  appendChange,
  changesSince,
  formatCursor,
  headCursor,
  journalFile,
  journalMark,
  parseCursor,
  readChanges,
  validateCursor,
} from './journal.js'

const dirOf = (root: string) => path.join(root, '.dacli')

describe('the change journal', () => {
  test('every write appends one line after it; a cursor replays exactly what came after it', async () => {
    const ws = await workspace()
    const dir = dirOf(ws.root)
    ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    const start = headCursor(dir)
    ;(await ws.dacli('task', 'add', 'One', '--project', 'p', '--accept', 'x')).expectExit(0)
    ;(await ws.dacli('task', 'claim', 'p/1')).expectExit(0)
    const mid = headCursor(dir)
    ;(await ws.dacli('task', 'check', 'p/1', '--all')).expectExit(0)
    ;(await ws.dacli('task', 'done', 'p/1')).expectExit(0)
    ;(await ws.dacli('task', 'list')).expectExit(0) // a read appends nothing
    const all = readChanges(dir, start).changes
    expect(all.map((c) => c.kind)).toEqual(['task.created', 'claim.taken', 'task.changed', 'task.moved'])
    expect(all[1]).toMatchObject({ ref: 'p/001-one', project: 'p', actor: 'a-root', from: 'open', to: 'active' })
    expect(all[3]).toMatchObject({ from: 'active', to: 'done', summary: expect.stringMatching(/^active → done: done/) })
    expect(all[1]?.cursor).toBe(formatCursor(mid))
    expect(readChanges(dir, mid).changes).toEqual(all.slice(2))
    expect(readChanges(dir, parseCursor(all[3]?.cursor as string)).changes).toEqual([])
    // The folder ignores itself, so git never sees it.
    expect(fs.readFileSync(path.join(dir, 'journal', '.gitignore'), 'utf8')).toMatch(/^\*$/m)
  })

  test('a cursor of another journal, past the end or inside a line is refused; a malformed one is a usage error', async () => {
    const ws = await workspace()
    const dir = dirOf(ws.root)
    ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    const head = headCursor(dir)
    expect(() => validateCursor(dir, head)).not.toThrow()
    expect(() => validateCursor(dir, { tag: '000000000000', offset: head.offset })).toThrow(/another change journal/)
    expect(() => validateCursor(dir, { ...head, offset: head.offset + 1 })).toThrow(/beyond the end/)
    expect(() => validateCursor(dir, { ...head, offset: head.offset - 3 })).toThrow(/end of a change/)
    expect(() => parseCursor('nope')).toThrow(/not a watch cursor/)
  })

  test('a torn line (a writer died mid-line, no newline) does not swallow the next change', async () => {
    const ws = await workspace()
    const dir = dirOf(ws.root)
    ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    const start = headCursor(dir)
    ;(await ws.dacli('task', 'add', 'One', '--project', 'p')).expectExit(0)
    const full = fs.readFileSync(journalFile(dir), 'utf8').trimEnd().split('\n').at(-1) as string
    fs.appendFileSync(journalFile(dir), full.slice(0, 40))
    ;(await ws.dacli('task', 'add', 'Two', '--project', 'p')).expectExit(0)
    appendChange(dir, {
      at: '2026-12-01T10:00:00Z',
      kind: 'note.added',
      ref: null,
      id: null,
      project: 'p',
      actor: null,
      summary: 'x',
    })
    const got = readChanges(dir, start).changes
    expect(got.map((c) => c.kind)).toEqual(['task.created', 'task.created', 'note.added'])
    expect(got[1]?.ref).toBe('p/002-two')
    // Every line the journal keeps after the torn one is whole, and a cursor still points at the end of a line.
    expect(() => validateCursor(dir, parseCursor(got[1]?.cursor as string))).not.toThrow()
  })

  test('processes writing at once never interleave or lose a line', async () => {
    const ws = await workspace()
    const dir = dirOf(ws.root)
    ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    const start = headCursor(dir)
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        spawnBin(['task', 'add', `Parallel task number ${i} of many`, '--project', 'p', '--force'], { cwd: ws.root }),
      ),
    )
    for (const r of runs) r.expectExit(0)
    const text = fs.readFileSync(journalFile(dir), 'utf8')
    for (const line of text.trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow()
    const created = readChanges(dir, start).changes
    expect(created.map((c) => c.kind)).toEqual(Array(6).fill('task.created'))
    expect(new Set(created.map((c) => c.ref)).size).toBe(6)
  })

  test('the journal is cut into bounded segments; a cursor reads on across them; the oldest are deleted', async () => {
    const ws = await workspace()
    const dir = dirOf(ws.root)
    const env = { DACLI_JOURNAL_SEGMENT_BYTES: '400' }
    ;(await ws.dacli('project', 'add', 'P', '--slug', 'p', { env })).expectExit(0)
    const start = headCursor(dir)
    for (let i = 1; i <= 6; i++)
      (await ws.dacli('task', 'add', `Task number ${i}`, '--project', 'p', '--accept', 'x', { env })).expectExit(0)
    const folder = path.join(dir, 'journal')
    const sealed = fs.readdirSync(folder).filter((n) => /^changes-\d+\.jsonl$/.test(n))
    expect(sealed.length).toBeGreaterThanOrEqual(2)
    for (const n of [...sealed, 'changes.jsonl']) expect(fs.statSync(path.join(folder, n)).size).toBeLessThan(800)
    // From the cursor before them: all six, in order, across the segments; each cursor resumes just after its change.
    const all = readChanges(dir, start).changes
    expect(all.map((c) => c.summary)).toEqual([1, 2, 3, 4, 5, 6].map((i) => `Task number ${i}`))
    for (let i = 0; i < all.length; i++) {
      const c = parseCursor(all[i]?.cursor as string)
      expect(() => validateCursor(dir, c)).not.toThrow()
      expect(readChanges(dir, c).changes.map((x) => x.summary)).toEqual(all.slice(i + 1).map((x) => x.summary))
    }
    expect(formatCursor(readChanges(dir, start).next)).toBe(formatCursor(headCursor(dir)))
    // watch --since reads across segments too.
    const doc = (await ws.dacli('watch', '--json', '--since', formatCursor(start), '--timeout', '0')).expectExit(0).json
    expect(doc.events.map((e: { summary: string }) => e.summary)).toEqual(all.map((c) => c.summary))
    // Many more changes: only the last eight sealed segments are kept; a cursor into a deleted one is refused (3).
    for (let i = 0; i < 40; i++) appendChange(dir, { ...entry, summary: `filler ${i}` }, { segmentBytes: 700 })
    const left = fs.readdirSync(folder).filter((n) => /^changes-\d+\.jsonl$/.test(n))
    expect(left.length).toBeLessThanOrEqual(8)
    expect(() => validateCursor(dir, start)).toThrow(/no longer keeps/)
    const r = await ws.dacli('watch', '--json', '--since', formatCursor(start), '--timeout', '0')
    expect(r.expectExit(3).error.details.policy).toBe('cursor')
  })

  test('a journal written before segments (no segment in its header) still reads, and its cursors stay valid', async () => {
    const ws = await workspace()
    const dir = dirOf(ws.root)
    fs.rmSync(path.join(dir, 'journal'), { recursive: true, force: true })
    fs.mkdirSync(path.join(dir, 'journal'))
    const header = `${JSON.stringify({ journal: 'dacli-change-journal', version: 1, tag: 'abcdef012345' })}\n`
    const line = (n: number) => `${JSON.stringify({ ...entry, at: '2026-11-30T10:00:00Z', summary: `old ${n}` })}\n`
    fs.writeFileSync(journalFile(dir), header + line(1) + line(2))
    const afterFirst = { tag: 'abcdef012345', offset: Buffer.byteLength(header + line(1)) }
    expect(() => validateCursor(dir, afterFirst)).not.toThrow()
    expect(readChanges(dir, afterFirst).changes.map((c) => c.summary)).toEqual(['old 2'])
    // It is sealed as segment 0 when it grows past the bound; the old cursor reads on into the new segment.
    for (let i = 0; i < 3; i++) appendChange(dir, { ...entry, summary: `new ${i}` }, { segmentBytes: 300 })
    expect(fs.existsSync(path.join(dir, 'journal', 'changes-0.jsonl'))).toBe(true)
    expect(readChanges(dir, afterFirst).changes.map((c) => c.summary)).toEqual(['old 2', 'new 0', 'new 1', 'new 2'])
  })

  test('a follower reads on from its mark: into a journal made or sealed since; anything it cannot tell is null', async () => {
    const ws = await workspace()
    const dir = dirOf(ws.root)
    fs.rmSync(path.join(dir, 'journal'), { recursive: true, force: true })
    const summaries = (got: ReturnType<typeof changesSince>) => got?.changes.map((c) => c.summary)
    expect(changesSince(dir, null)).toEqual({ changes: [], mark: null })
    // A journal made since the last look: every line in it is new.
    appendChange(dir, { ...entry, summary: 'one' })
    appendChange(dir, { ...entry, summary: 'two' })
    const made = changesSince(dir, null)
    expect(summaries(made)).toEqual(['one', 'two'])
    const markNow = () => {
      const m = journalMark(dir)
      return m === null ? null : { ino: m.ino, offset: m.offset }
    }
    expect(made?.mark).toEqual(markNow())
    expect(changesSince(dir, made?.mark ?? null)).toEqual({ changes: [], mark: made?.mark })
    // Sealed once since: the rest of the file it knew (now changes-0.jsonl), then the new current file.
    appendChange(dir, { ...entry, summary: 'three' }, { segmentBytes: 100 })
    appendChange(dir, { ...entry, summary: 'four' })
    expect(fs.existsSync(path.join(dir, 'journal', 'changes-0.jsonl'))).toBe(true)
    const sealed = changesSince(dir, made?.mark ?? null)
    expect(summaries(sealed)).toEqual(['three', 'four'])
    expect(sealed?.mark).toEqual(markNow())
    // Sealed twice since: what lies between cannot be told from two files.
    appendChange(dir, { ...entry, summary: 'five' }, { segmentBytes: 100 })
    appendChange(dir, { ...entry, summary: 'six' }, { segmentBytes: 100 })
    expect(changesSince(dir, sealed?.mark ?? null)).toBeNull()
    // A complete line that does not parse could name anything; a line still being written is read by the next look.
    const at = markNow()
    fs.appendFileSync(journalFile(dir), '{"kind": "task.cha\n')
    expect(changesSince(dir, at)).toBeNull()
    const torn = markNow()
    fs.appendFileSync(journalFile(dir), JSON.stringify({ ...entry, summary: 'seven' }).slice(0, 30))
    expect(changesSince(dir, torn)).toEqual({ changes: [], mark: torn })
    // Cut short, or deleted: null.
    expect(changesSince(dir, torn === null ? null : { ...torn, offset: torn.offset + 10_000 })).toBeNull()
    // A link planted in its place is never read through, whatever it points at.
    const outside = path.join(ws.root, 'outside.jsonl')
    fs.copyFileSync(journalFile(dir), outside)
    fs.rmSync(journalFile(dir))
    fs.symlinkSync(outside, journalFile(dir))
    expect(changesSince(dir, null)).toBeNull()
    expect(changesSince(dir, torn)).toBeNull()
    // Nor when the follower's own mark was taken of the link: what is written where it points is not read.
    const ofLink = journalMark(dir)
    fs.appendFileSync(outside, `${JSON.stringify({ ...entry, summary: 'planted' })}\n`.repeat(4))
    expect(changesSince(dir, ofLink === null ? null : { ino: ofLink.ino, offset: ofLink.offset })).toBeNull()
    fs.rmSync(path.join(dir, 'journal'), { recursive: true })
    expect(changesSince(dir, torn)).toBeNull()
  })
})

const entry = {
  at: '2026-12-01T10:00:00Z',
  kind: 'task.changed' as const,
  ref: 'p/001-x',
  id: 't-01KBX3Q5M7E2RJ4T8W6YVZ0N1P',
  project: 'p',
  actor: 'a-root',
  summary: '',
}
