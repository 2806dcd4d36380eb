// A done task holds no claim (`task done` deletes it), and a record merge or a merge decision's answer that leaves
// a task done drops the claim too: two real clones of one bare remote, the task file's bytes read on disk.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { type Checkout, committedClones } from '../../testkit/coordination.js'
import type { Workspace } from '../../testkit/ws.js'

let a: Workspace
let b: Checkout

/** The one file of task p/2 in its status folder, and its bytes. */
function taskFile(root: string): { path: string; text: string } {
  for (const status of ['open', 'active', 'blocked', 'done']) {
    const dir = path.join(root, '.dacli/projects/p/tasks', status)
    if (!fs.existsSync(dir)) continue
    const name = fs.readdirSync(dir).find((f) => f.startsWith('002-'))
    if (name !== undefined) return { path: `${status}/${name}`, text: fs.readFileSync(path.join(dir, name), 'utf8') }
  }
  throw new Error('p/2 has no file')
}

/** a's workspace with p/2 (no criteria), recorded on the remote; b a clone of it. `claimed`: a holds p/2 first. */
async function setUp(claimed: boolean) {
  ;({ a, b } = await committedClones(async (w) => {
    ;(await w.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    ;(await w.dacli('task', 'add', 'One', '--project', 'p', '--accept', 'x')).expectExit(0)
    ;(await w.dacli('task', 'add', 'Two', '--project', 'p')).expectExit(0)
    if (claimed) (await w.dacli('task', 'claim', 'p/2')).expectExit(0)
  }))
}

describe('a done task holds no claim after a merge', () => {
  test('a status decision answered `theirs` (done): the claim the merge kept while in question is dropped and logged; doctor is clean', async () => {
    await setUp(false)
    ;(await a.dacli('task', 'done', 'p/2', '--allow-unverified')).expectExit(0)
    ;(await a.dacli('record', 'sync')).expectExit(0)
    ;(await b.dacli('task', 'claim', 'p/2')).expectExit(0)
    const r = (await b.dacli('record', 'sync', '--json')).expectExit(5)
    const [d] = r.error.details.decisions
    expect(d).toMatchObject({ field: 'status', ours: 'active', theirs: 'done', ref: 'p/002-two' })
    // While the status is in question the claim stays: `ours` would make the task active again, claimed.
    expect(taskFile(b.root).text).toMatch(/^claim: \{by: a-root, /m)
    ;(await b.dacli('answer', d.question, 'theirs')).expectExit(0)
    const after = taskFile(b.root)
    expect(after.path).toBe('done/002-two.md')
    expect(after.text).not.toMatch(/^claim:/m)
    expect(after.text).toMatch(/^owner: a-root$/m)
    expect(after.text).toMatch(
      new RegExp(
        `^- \\S+ a-root edited claim dropped \\(a-root's\\): ${d.question} left the task done, and a done task holds no claim$`,
        'm',
      ),
    )
    const shown = (await b.dacli('task', 'show', 'p/2', '--json')).expectExit(0).json
    expect(shown).toMatchObject({ status: 'done', owner: 'a-root', claim: null })
    expect((await b.dacli('doctor', '--json')).expectExit(0).json.findings).toEqual([])
    // Recorded and carried to the other clone as it is.
    ;(await b.dacli('record', 'sync')).expectExit(0)
    ;(await a.dacli('record', 'sync')).expectExit(0)
    expect(taskFile(a.root).text).toBe(after.text)
  })

  test('done on one side, the lease renewed on the other: the merged done task drops the claim, and no question is raised on it', async () => {
    await setUp(true)
    // b renews a's claim (the same identity in both clones) and records it first; a closes the task, then syncs.
    ;(await b.dacli('task', 'renew', 'p/2', '--lease', '5h')).expectExit(0)
    ;(await b.dacli('record', 'sync')).expectExit(0)
    ;(await a.dacli('task', 'done', 'p/2', '--allow-unverified')).expectExit(0)
    const r = (await a.dacli('record', 'sync', '--json')).expectExit(0)
    expect(r.json).toMatchObject({ outcome: 'converged', pulled: 'merged', decisions: [] })
    const merged = taskFile(a.root)
    expect(merged.path).toBe('done/002-two.md')
    // Both sides rewrote version 2 (claimed) to 3: the merge makes 4, dropping the claim 5.
    expect(merged.text).toMatch(/^version: 5$/m)
    expect(merged.text).not.toMatch(/^claim:/m)
    expect(merged.text).toMatch(
      /^- \S+ a-root edited claim dropped \(a-root's\): a record pull left the task done, and a done task holds no claim$/m,
    )
    expect((await a.dacli('task', 'show', 'p/2', '--json')).expectExit(0).json).toMatchObject({
      status: 'done',
      claim: null,
    })
    ;(await b.dacli('record', 'sync')).expectExit(0)
    expect(taskFile(b.root)).toEqual(merged)
    expect((await b.dacli('doctor', '--json')).expectExit(0).json.findings).toEqual([])
  })

  test('closed on one side while the other added a criterion: the close is a decision on the status, never a done task with a criterion open', async () => {
    await setUp(false)
    ;(await a.dacli('task', 'edit', 'p/2', '--accept', 'added by a')).expectExit(0)
    ;(await a.dacli('record', 'sync')).expectExit(0)
    ;(await b.dacli('task', 'done', 'p/2', '--allow-unverified')).expectExit(0)
    const r = (await b.dacli('record', 'sync', '--json')).expectExit(5)
    const [d] = r.error.details.decisions
    expect(d).toMatchObject({ field: 'status', ours: 'done', theirs: 'open', ref: 'p/002-two' })
    // The task keeps the remote's status (open) with the criterion, held by the question until a person answers.
    const merged = taskFile(b.root)
    expect(merged.path).toBe('blocked/002-two.md')
    expect(merged.text).toMatch(/^- \[ \] added by a$/m)
    // What the sync changed here, as it ended: the task moved from done/ (as this clone had it) to blocked/ by the
    // question, and the question itself.
    const changed = r.error.details.files_changed as { path: string; change: string }[]
    expect(changed).toContainEqual({ path: '.dacli/projects/p/tasks/done/002-two.md', change: 'deleted' })
    expect(changed).toContainEqual({ path: '.dacli/projects/p/tasks/blocked/002-two.md', change: 'added' })
    expect(changed.filter((f) => /\/events\/.*-question\.md$/.test(f.path))).toHaveLength(1)
    expect(changed.map((f) => f.path)).not.toContain('.dacli/projects/p/tasks/open/002-two.md')
    const q = (await b.dacli('threads', '--open', '--json')).expectExit(0).json.threads[0]
    expect(q.question).toContain(`ours (the clone that merged, `)
    expect(q.question).not.toContain('this clone')
  })
})
