// A removal is no decision: a task removed in one clone while another clone claimed or edited it is removed in
// both, whichever pushed first; its tombstone takes the other side's changes, holds no claim, and keeps this clone's
// value of each field both changed in its `## Log`. Two real clones of one bare remote; the tombstone's bytes on disk.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { type Checkout, committedClones } from '../../testkit/coordination.js'
import type { Workspace } from '../../testkit/ws.js'

let a: Workspace
let b: Checkout

/** Every file of task p/2 (status folder/name → bytes). */
function filesOf(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const status of ['open', 'active', 'blocked', 'done', 'removed']) {
    const dir = path.join(root, '.dacli/projects/p/tasks', status)
    if (!fs.existsSync(dir)) continue
    for (const name of fs.readdirSync(dir).filter((f) => f.startsWith('002-')))
      out[`${status}/${name}`] = fs.readFileSync(path.join(dir, name), 'utf8')
  }
  return out
}

async function setUp() {
  ;({ a, b } = await committedClones(async (w) => {
    ;(await w.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    ;(await w.dacli('task', 'add', 'One', '--project', 'p', '--accept', 'x')).expectExit(0)
    ;(await w.dacli('task', 'add', 'Two', '--project', 'p', '--accept', 'y')).expectExit(0)
  }))
}

describe('a task removed on one side, claimed on the other', () => {
  test('removed first, then the claim merged: the sync converges (exit 0), the tombstone drops the claim, and the other clone gets the same bytes', async () => {
    await setUp()
    ;(await a.dacli('task', 'rm', 'p/2')).expectExit(0)
    ;(await a.dacli('record', 'sync')).expectExit(0)
    ;(await b.dacli('task', 'claim', 'p/2')).expectExit(0)
    ;(await b.dacli('task', 'edit', 'p/2', '--title', 'Two, as b had it')).expectExit(0)
    const r = (await b.dacli('record', 'sync', '--json')).expectExit(0)
    expect(r.json).toMatchObject({ outcome: 'converged', pulled: 'merged', pushed: 'pushed', decisions: [] })
    const files = filesOf(b.root)
    expect(Object.keys(files)).toEqual(['removed/002-two.md'])
    const tomb = files['removed/002-two.md'] as string
    expect(tomb).not.toMatch(/^claim:/m)
    expect(tomb).toMatch(/^# Two, as b had it$/m) // b's edit is kept in the tombstone
    expect(tomb).toMatch(
      /^- \S+ a-root edited claim dropped \(a-root's\): a record pull left the task removed, and a removed task holds no claim$/m,
    )
    expect((await b.dacli('threads', '--open', '--json')).expectExit(0).json.threads).toEqual([])
    ;(await a.dacli('record', 'sync')).expectExit(0)
    expect(filesOf(a.root)).toEqual(files)
  })

  test('claimed and pushed first, then removed with a title both changed: the remover’s sync keeps it removed, its own title in the log', async () => {
    await setUp()
    ;(await b.dacli('task', 'claim', 'p/2')).expectExit(0)
    ;(await b.dacli('task', 'edit', 'p/2', '--title', 'Title by b')).expectExit(0)
    ;(await b.dacli('record', 'sync')).expectExit(0)
    ;(await a.dacli('task', 'edit', 'p/2', '--title', 'Title by a')).expectExit(0)
    ;(await a.dacli('task', 'rm', 'p/2')).expectExit(0)
    const r = (await a.dacli('record', 'sync', '--json')).expectExit(0)
    expect(r.json).toMatchObject({ outcome: 'converged', decisions: [] })
    const files = filesOf(a.root)
    expect(Object.keys(files)).toEqual(['removed/002-two.md'])
    const tomb = files['removed/002-two.md'] as string
    // The remote's value stands (every clone has it); this clone's is in the log, word for word.
    expect(tomb).toMatch(/^# Title by b$/m)
    expect(tomb).toContain(
      `edited title kept as the other side of a record pull had it; this side's was "# Title by a\\n\\n" (the task was removed on one side: a removed task raises no question)`,
    )
    expect(tomb).not.toMatch(/^claim:/m)
    ;(await b.dacli('record', 'sync')).expectExit(0)
    expect(filesOf(b.root)).toEqual(files)
    expect((await b.dacli('task', 'show', 'p/2', '--json')).expectExit(0).json).toMatchObject({
      status: 'removed',
      claim: null,
      title: 'Title by b',
    })
  })
})
