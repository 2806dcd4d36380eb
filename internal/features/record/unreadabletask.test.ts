// A task file changed on both sides where one version does not parse (a hand edit that broke its frontmatter): the
// field merge cannot run, so `record sync` and `record pull` keep this clone's version in place and write the other
// side's into the project's `tasks/` folder as a `.conflict-<commit>` copy (never inside a status folder), exit 5,
// and push nothing until a person resolves it. Over two real clones of a bare remote, in both directions.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { type Checkout, originWithCode, pulledClone } from '../../testkit/coordination.js'
import { git, type Workspace, workspace } from '../../testkit/ws.js'

const TASK = '.dacli/projects/api/tasks/open/001-one.md'
const TASKS = '.dacli/projects/api/tasks'

let a: Workspace
let b: Checkout
let remote: string

beforeEach(async () => {
  a = await workspace()
  remote = originWithCode(a)
  ;(await a.dacli('project', 'add', 'API', '--slug', 'api')).expectExit(0)
  ;(await a.dacli('task', 'add', 'One', '--project', 'api', '--accept', 'x')).expectExit(0)
  ;(await a.dacli('record', 'push')).expectExit(0)
  b = await pulledClone(remote)
})

const breakIt = (c: { root: string }) => {
  const file = path.join(c.root, TASK)
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^version: 1$/m, 'version: [unclosed'))
}
const bytes = (c: { root: string }, rel: string) => fs.readFileSync(path.join(c.root, rel))
const copies = (c: { root: string }) => fs.readdirSync(path.join(c.root, TASKS)).filter((n) => n.includes('.conflict-'))
const remoteTip = () => git(a.root, 'ls-remote', remote, 'refs/heads/dacli/record').split('\t')[0]

describe('a task changed on both sides, one side unreadable', () => {
  test('theirs broken, ours edited: sync keeps ours in place and theirs as a copy in tasks/, exit 5, nothing pushed', async () => {
    breakIt(a)
    ;(await a.dacli('record', 'sync')).expectExit(0)
    const theirs = bytes(a, TASK)
    ;(await b.dacli('task', 'edit', 'api/1', '--priority', 'must')).expectExit(0)
    const ours = bytes(b, TASK)
    const published = remoteTip()
    const r = (await b.dacli('record', 'sync', '--json')).expectExit(5)
    expect(r.error.details).toMatchObject({ outcome: 'conflicts', pushed: 'not-pushed', decisions: [] })
    const [copy] = copies(b)
    expect(copy).toMatch(/^001-one\.md\.conflict-[0-9a-f]{7}$/)
    expect(r.error.details.conflicts).toEqual([`${TASKS}/${copy}`])
    // Both versions on disk, byte for byte; nothing written inside a status folder but the task itself.
    expect(bytes(b, TASK).equals(ours)).toBe(true)
    expect(bytes(b, `${TASKS}/${copy}`).equals(theirs)).toBe(true)
    expect(fs.readdirSync(path.join(b.root, TASKS, 'open'))).toEqual(['001-one.md'])
    expect(remoteTip()).toBe(published)
    // Reported as the conflict it is (of the task file), not as a stray file of the tasks folder.
    const doc = (await b.dacli('doctor', '--json')).json
    const found = doc.findings.filter((f: { subject: string }) => f.subject.includes('.conflict-'))
    expect(found).toMatchObject([{ code: 'record-conflict', subject: `${TASKS}/${copy}` }])
    expect(found[0].message).toContain(TASK)
    // Resolved by a person (ours kept, the copy deleted): the next sync pushes and a follows.
    fs.rmSync(path.join(b.root, TASKS, copy as string))
    ;(await b.dacli('record', 'sync')).expectExit(0)
    ;(await a.dacli('record', 'sync')).expectExit(0)
    expect(bytes(a, TASK).equals(ours)).toBe(true)
  })

  test('ours broken, theirs edited: pull keeps our broken file in place and their edit as a copy, exit 5', async () => {
    ;(await a.dacli('task', 'edit', 'api/1', '--priority', 'must')).expectExit(0)
    ;(await a.dacli('record', 'sync')).expectExit(0)
    const theirs = bytes(a, TASK)
    breakIt(b)
    const ours = bytes(b, TASK)
    const r = (await b.dacli('record', 'pull', '--json')).expectExit(5)
    const [copy] = copies(b)
    expect(copy).toMatch(/^001-one\.md\.conflict-[0-9a-f]{7}$/)
    expect(r.error.details.conflicts).toMatchObject([{ path: TASK, copy: `${TASKS}/${copy}` }])
    expect(bytes(b, TASK).equals(ours)).toBe(true)
    expect(bytes(b, `${TASKS}/${copy}`).equals(theirs)).toBe(true)
    expect(fs.readdirSync(path.join(b.root, TASKS, 'open'))).toEqual(['001-one.md'])
    // record sync says the same and pushes nothing; record push refuses.
    const s = (await b.dacli('record', 'sync', '--json')).expectExit(5)
    expect(s.error.details).toMatchObject({
      outcome: 'conflicts',
      pushed: 'not-pushed',
      conflicts: [`${TASKS}/${copy}`],
    })
    ;(await b.dacli('record', 'push')).expectExit(3)
    expect(bytes(b, TASK).equals(ours)).toBe(true)
  })
})
