// Several clones of one repository whose `.dacli/` is committed with the code: a clone's first record starts
// from what the record branch or the code branch holds, so one-sided changes never conflict (FORMAT.md,
// "Merging records").

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { type Checkout, checkoutAt, commitStore, originWithCode } from '../../testkit/coordination.js'
import { git, tempDir, type Workspace, workspace } from '../../testkit/ws.js'

let remote: string
let a: Workspace

const ONE_OPEN = '.dacli/projects/api/tasks/open/001-one.md'
const ONE_ACTIVE = '.dacli/projects/api/tasks/active/001-one.md'
const TWO_ACTIVE = '.dacli/projects/api/tasks/active/002-two.md'

function conflictCopies(root: string): string[] {
  return (fs.readdirSync(path.join(root, '.dacli'), { recursive: true }) as string[]).filter((p) =>
    p.includes('.conflict-'),
  )
}

function cloneOf(url: string): Checkout {
  const dir = tempDir('dacli-clone-')
  git(dir, 'clone', '-q', url, '.')
  return checkoutAt(dir)
}

beforeEach(async () => {
  a = await workspace()
  remote = originWithCode(a)
  ;(await a.dacli('project', 'add', 'API', '--slug', 'api')).expectExit(0)
  ;(await a.dacli('task', 'add', 'One', '--project', 'api', '--accept', 'x')).expectExit(0)
  ;(await a.dacli('task', 'add', 'Two', '--project', 'api', '--accept', 'y')).expectExit(0)
})

describe('a clone whose .dacli/ came with the code', () => {
  test('the story: claim, push refused, pull merges without a conflict, push succeeds the first time', async () => {
    commitStore(a)
    git(a.root, 'push', '-q', 'origin', 'main')
    ;(await a.dacli('record', 'push')).expectExit(0)
    ;(await a.dacli('task', 'claim', 'api/2')).expectExit(0)
    ;(await a.dacli('record', 'push')).expectExit(0)

    const b = cloneOf(remote)
    ;(await b.dacli('task', 'claim', 'api/1')).expectExit(0)
    expect((await b.dacli('record', 'push', '--json')).expectExit(5).error.kind).toBe('conflict')
    const pulled = (await b.dacli('record', 'pull', '--json')).expectExit(0).json
    expect(pulled.outcome).toBe('merged')
    expect(conflictCopies(b.root)).toEqual([])
    expect(fs.existsSync(path.join(b.root, ONE_ACTIVE))).toBe(true)
    expect(fs.existsSync(path.join(b.root, TWO_ACTIVE))).toBe(true)
    expect(fs.existsSync(path.join(b.root, ONE_OPEN))).toBe(false)
    expect((await b.dacli('record', 'push', '--json')).expectExit(0).json.outcome).toBe('pushed')

    const back = (await a.dacli('record', 'pull', '--json')).expectExit(0).json
    expect(back.outcome).toBe('fast-forward')
    expect(a.file(ONE_ACTIVE)).toBe(b.file(ONE_ACTIVE))
    expect(conflictCopies(a.root)).toEqual([])
    // The first record of b started on a's first record: the history is one graph.
    const first = git(b.root, 'rev-list', '--max-parents=0', 'dacli/record').trim().split('\n')
    expect(first).toHaveLength(1)
    for (const r of [a.root, b.root]) git(r, 'fsck', '--strict', '--no-progress')
  })

  test('a clone that changed nothing is brought up to date (no stale copy)', async () => {
    commitStore(a)
    git(a.root, 'push', '-q', 'origin', 'main')
    ;(await a.dacli('record', 'push')).expectExit(0)
    ;(await a.dacli('task', 'claim', 'api/1')).expectExit(0)
    ;(await a.dacli('record', 'push')).expectExit(0)
    const b = cloneOf(remote)
    const r = (await b.dacli('record', 'pull', '--json')).expectExit(0).json
    expect(r.outcome).toBe('fast-forward')
    expect(b.file(ONE_ACTIVE)).toBe(a.file(ONE_ACTIVE))
    expect(fs.existsSync(path.join(b.root, ONE_OPEN))).toBe(false)
    expect(conflictCopies(b.root)).toEqual([])
  })

  test('the record branch does not know the committed files: the code branch is the base', async () => {
    ;(await a.dacli('record', 'push')).expectExit(0)
    // The code carries a task the record never saw.
    ;(await a.dacli('task', 'add', 'Three', '--project', 'api', '--accept', 'z')).expectExit(0)
    commitStore(a)
    git(a.root, 'push', '-q', 'origin', 'main')
    const b = cloneOf(remote)
    ;(await b.dacli('task', 'claim', 'api/1')).expectExit(0)
    ;(await b.dacli('record')).expectExit(0)
    // b's record starts on a commit of the code's workspace (no author, time 0), made alike by every clone.
    const root = git(b.root, 'rev-list', '--max-parents=0', 'dacli/record').trim()
    expect(git(b.root, 'log', '-1', '--format=%an %at %s', root).trim()).toBe(
      'dacli 0 dacli: the workspace as the code branch commits it',
    )
    ;(await a.dacli('task', 'claim', 'api/2')).expectExit(0)
    ;(await a.dacli('record', 'push')).expectExit(0)
    const pulled = (await b.dacli('record', 'pull', '--json')).expectExit(0).json
    expect(pulled.outcome).toBe('merged')
    expect(conflictCopies(b.root)).toEqual([])
    expect(fs.existsSync(path.join(b.root, ONE_ACTIVE))).toBe(true)
    expect(fs.existsSync(path.join(b.root, TWO_ACTIVE))).toBe(true)
    expect(fs.existsSync(path.join(b.root, '.dacli/projects/api/tasks/open/003-three.md'))).toBe(true)
    ;(await b.dacli('record', 'push')).expectExit(0)
  })

  test('two records that share no commit merge against the code branch', async () => {
    commitStore(a)
    git(a.root, 'push', '-q', 'origin', 'main')
    const b = cloneOf(remote)
    // Both record before anything is on the remote: a makes a root commit of its own workspace ...
    ;(await a.dacli('task', 'claim', 'api/2')).expectExit(0)
    ;(await a.dacli('record')).expectExit(0)
    // ... and b's record branch starts from a root made elsewhere (as records made before this rule did).
    ;(await b.dacli('task', 'claim', 'api/1')).expectExit(0)
    const tree = git(b.root, 'write-tree').trim()
    const orphan = git(b.root, 'commit-tree', tree, '-m', 'an unrelated record').trim()
    git(b.root, 'update-ref', 'refs/heads/dacli/record', orphan)
    ;(await a.dacli('record', 'push')).expectExit(0)
    const pulled = (await b.dacli('record', 'pull', '--json')).expectExit(0).json
    expect(pulled.outcome).toBe('merged')
    expect(conflictCopies(b.root)).toEqual([])
    expect(fs.existsSync(path.join(b.root, ONE_ACTIVE))).toBe(true)
    expect(fs.existsSync(path.join(b.root, TWO_ACTIVE))).toBe(true)
  })
})
