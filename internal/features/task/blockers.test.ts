// One refusal names every blocker of a close (issue 34 item 6), and a task held by an identity that no longer
// exists can be taken over by a read-write identity, never by a read-only one (issue 34 item 5).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { dacliJson } from '../../testkit/schemas.js'
import { git, type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
const j = (...args: Parameters<Workspace['dacli']>) => dacliJson(ws, ...args)

beforeEach(async () => {
  ws = await workspace()
  await ws.ok('project', 'add', 'P', '--slug', 'p')
  await ws.ok('task', 'add', 'Ship it', '--project', 'p', '--accept', 'tests pass', '--accept', 'docs updated')
})

describe('closing a task with several things in the way', () => {
  test('unmet criteria, an open question and an unlanded branch: one refusal lists all three', async () => {
    // A branch with a commit trunk does not carry.
    fs.writeFileSync(path.join(ws.root, 'a.txt'), 'a\n')
    git(ws.root, 'add', 'a.txt')
    git(ws.root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base')
    git(ws.root, 'checkout', '-qb', 'feature')
    fs.writeFileSync(path.join(ws.root, 'a.txt'), 'b\n')
    git(ws.root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qam', 'the work')
    git(ws.root, 'checkout', '-q', 'main')
    await ws.ok('task', 'claim', 'p/1')
    await ws.ok('task', 'check', 'p/1', '--n', '1')
    const q = (await j('ask', 'Which port?', '--about', 'p/1')).expectExit(0).json.id
    const before = ws.snapshot()
    const r = (await j('task', 'done', 'p/1', '--branch', 'feature', '--into', 'main')).expectExit(3)
    expect(r.error.details.policy).toBe('acceptance') // the first blocker's policy, as a single refusal had
    expect(r.error.details.unmet).toEqual([{ n: 2, text: 'docs updated' }])
    expect(r.error.details.blockers.map((b: { policy: string }) => b.policy)).toEqual([
      'acceptance',
      'open-question',
      'unlanded',
    ])
    expect(r.error.details.blockers[1].details.question).toBe(q)
    expect(r.error.details.blockers[2].details.branch).toBe('feature')
    expect(r.error.message).toMatch(/3 things stand in the way/)
    expect(r.error.next_actions.join('\n')).toContain(`answer ${q}`)
    expect(r.error.next_actions.join('\n')).toContain('task check p/001-ship-it --n 2')
    expect(ws.snapshot()).toEqual(before)
  })

  test('one blocker alone keeps its own message, with details.blockers holding just it', async () => {
    const r = (await j('task', 'done', 'p/1')).expectExit(3)
    expect(r.error.message).toContain('2 unmet acceptance criteria')
    expect(r.error.details.blockers).toHaveLength(1)
  })

  test('a task blocked by another task is not closed behind its block', async () => {
    await ws.ok('task', 'add', 'Other', '--project', 'p', '--accept', 'o')
    await ws.ok('task', 'check', 'p/1', '--all')
    await ws.ok('task', 'block', 'p/1', '--by', 'p/2', '--why', 'needs the schema')
    const r = (await j('task', 'done', 'p/1')).expectExit(3)
    expect(r.error.details.policy).toBe('blocked')
    expect(r.error.next_actions).toContain('dacli task unblock p/001-ship-it')
    await ws.ok('task', 'unblock', 'p/1')
    expect((await j('task', 'done', 'p/1')).expectExit(0).json.task.status).toBe('done')
  })
})

test('task show of a task a question holds names the question as it stands and how to answer it, not "does not resolve"', async () => {
  const asked = (await ws.dacli('ask', 'Which window?', '--about', 'p/1', '--json')).expectExit(0).json
  const qid = asked.id as string
  const shown = (await ws.dacli('task', 'show', 'p/1')).expectExit(0).stdout
  expect(shown).toMatch(new RegExp(`by {3}${qid} {2}open question`))
  expect(shown).toContain(`why  waiting on an answer: dacli answer ${qid} "<answer>"`)
  expect(shown).not.toContain('does not resolve')
})

describe('a task held by an identity that no longer exists', () => {
  test('a read-write identity takes it over (logged with the reason); a read-only one is refused', async () => {
    const gone = await ws.agent('rw', 'gone')
    const heir = await ws.agent('rw', 'heir')
    const reader = await ws.agent('ro', 'reader')
    await ws.ok('task', 'claim', 'p/1', '--lease', '8h', { as: gone.token })
    fs.rmSync(path.join(ws.root, '.dacli', 'agents', `${gone.id}.md`))
    const file = '.dacli/projects/p/tasks/active/001-ship-it.md'
    const before = ws.snapshot()
    const ro = (await j('task', 'claim', 'p/1', { as: reader.token })).expectExit(3)
    expect(ro.error.details).toMatchObject({ policy: 'grant', owner: gone.id, reason: 'owner missing' })
    expect(ws.snapshot()).toEqual(before)
    const r = (await j('task', 'claim', 'p/1', { as: heir.token })).expectExit(0).json
    expect(r.task.owner).toBe(heir.id)
    expect(r.details.previous_owner).toBe(gone.id)
    expect(ws.file(file)).toMatch(new RegExp(`taken-over from ${gone.id} \\(owner missing\\)`))
  })

  test('an identity whose file is unreadable is not missing: its live claim still holds', async () => {
    const owner = await ws.agent('rw', 'owner')
    const other = await ws.agent('rw', 'other')
    await ws.ok('task', 'claim', 'p/1', '--lease', '8h', { as: owner.token })
    fs.writeFileSync(path.join(ws.root, '.dacli', 'agents', `${owner.id}.md`), '---\nid: [broken\n---\n')
    expect((await j('task', 'claim', 'p/1', { as: other.token })).code).toBe(5)
  })
})

describe('agent spawn --name', () => {
  test('the name becomes the id; a second spawn of that name is a conflict; a bad name is 2', async () => {
    const r = (await j('agent', 'spawn', '--name', 'reviewer-1', '--role', 'reviewer')).expectExit(0).json
    expect(r).toMatchObject({ id: 'a-reviewer-1', role: 'reviewer', grant: 'ro' })
    const file = ws.file('.dacli/agents/a-reviewer-1.md')
    expect(file).toContain('\nid: a-reviewer-1\n')
    expect(file).toContain('\n# reviewer-1\n')
    expect((await j('whoami', { as: r.token })).expectExit(0).json.id).toBe('a-reviewer-1')
    const before = ws.snapshot()
    expect((await j('agent', 'spawn', '--name', 'reviewer-1')).expectExit(5).error.details.agent).toBe('a-reviewer-1')
    for (const bad of ['Reviewer', 'root', 'a b', '-x', 'x--y', '../x'])
      expect((await j('agent', 'spawn', '--name', bad)).code).toBe(2)
    expect(ws.snapshot()).toEqual(before)
  })
})
