// A flood of files a listing cannot use (planted to fill an agent's context, or a workspace of unsigned 0.1.0
// events) must not turn a page into thousands of entries: with --limit, `skipped` lists at most that many and
// `skipped_total` counts them all; stderr names ten and counts the rest.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { cleanupTempDirs, snapshotOf, workspace } from '../../testkit/ws.js'

afterAll(cleanupTempDirs)

const named = (stderr: string) => stderr.split('\n').filter((l) => /^warning: skipped \.dacli\//.test(l))

test('task, note, project and event listings: a page lists at most its limit of skipped files, all counted', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'P', '--slug', 'p')
  await ws.ok('task', 'add', 'Kept', '--project', 'p')
  await ws.ok('note', 'add', 'finding', 'Kept finding', '--project', 'p')
  const open = path.join(ws.root, '.dacli', 'projects', 'p', 'tasks', 'open')
  for (let i = 0; i < 25; i++) fs.writeFileSync(path.join(open, `${100 + i}-junk.md`), `---\nid: [\n---\n`)
  const day = path.join(ws.root, '.dacli', 'events', '2026', '01', '02')
  fs.mkdirSync(day, { recursive: true })
  for (let i = 0; i < 12; i++) {
    const id = `01KAAAAAAA${String(i).padStart(2, '0')}AAAAAAAAAAAAAA`
    fs.writeFileSync(
      path.join(day, `${id}-a-root-comment.md`),
      `---\nid: ${id}\nkind: event\nschema_version: 1\nevent_kind: comment\ncreated: 2026-01-02T00:00:00Z\ncreated_by: a-root\ndata: {}\napplied: true\n---\n\nplanted ${i}\n`,
    )
  }
  const before = snapshotOf(ws.root)

  for (const argv of [
    ['task', 'list'],
    ['task', 'list', '--status', 'open'],
    ['project', 'list'],
  ]) {
    const page = await ws.ok(...argv, '--limit', '3', '--json')
    const doc = JSON.parse(page.stdout)
    expect(doc.skipped, argv.join(' ')).toHaveLength(3)
    expect(doc.skipped_total).toBe(25)
    expect(named(page.stderr)).toHaveLength(10)
    expect(page.stderr).toContain('warning: skipped 15 more files (dacli doctor names each)')
    const all = JSON.parse((await ws.ok(...argv, '--json')).stdout)
    expect(all.skipped).toHaveLength(25)
    expect(all.skipped_total).toBe(25)
    expect(all.skipped.slice(0, 3)).toEqual(doc.skipped)
  }

  const events = JSON.parse((await ws.ok('events', 'list', '--limit', '2', '--json')).stdout)
  expect(events.skipped).toHaveLength(2)
  expect(events.skipped_total).toBe(12)
  expect(events.skipped.map((s: { code: string }) => s.code)).toEqual(['forged-event', 'forged-event'])
  const notes = JSON.parse((await ws.ok('note', 'list', '--limit', '1', '--json')).stdout)
  expect(notes).toMatchObject({ skipped: [], skipped_total: 0, total: 1 })
  // Reading changed nothing on disk.
  expect(snapshotOf(ws.root)).toEqual(before)
})
