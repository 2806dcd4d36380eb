import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { spawnBin, workspace } from '../testkit/ws.js'
import { formatCursor, headCursor, journalFile, parseCursor, readChanges, validateCursor } from './journal.js'

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
})
