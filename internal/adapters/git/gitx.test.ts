// The adapter against the real git: object ids, trees, commits and the ref
// compare-and-swap must agree byte for byte with what git computes and accepts.

import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import fc from 'fast-check'
import { beforeEach, describe, expect, test } from 'vitest'
import { nodeSystem } from '../../../cmd/system.js'
import { git, tempDir } from '../../testkit/ws.js'
import { openGit } from './index.js'
import { diffTreeBodies } from './loose.js'
import { commitBody, objectId, treeBody } from './objects.js'
import { ABANDONED_REF_LOCK_MS, compareAndSwapRef, readRef } from './refs.js'

let dir: string
beforeEach(() => {
  dir = tempDir('dacli-gitx-')
  git(dir, 'init', '-q', '-b', 'main')
})

const gitIn = (input: string | Buffer, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, input }).toString().trim()

describe('objects', () => {
  test('blob and tree ids match git, including git’s order for a folder next to a longer name', () => {
    const body = Buffer.from('hello\n')
    expect(objectId('blob', body)).toBe(gitIn(body, 'hash-object', '--stdin'))
    const blob = objectId('blob', body)
    const sub = gitIn('', 'mktree')
    const items = [
      { name: 'a.md', mode: '100644', oid: blob },
      { name: 'a', mode: '40000', oid: sub },
      { name: 'a-b', mode: '100755', oid: blob },
    ]
    gitIn(body, 'hash-object', '-w', '--stdin')
    const listing = `100644 blob ${blob}\ta.md\n040000 tree ${sub}\ta\n100755 blob ${blob}\ta-b\n`
    expect(objectId('tree', treeBody(items))).toBe(gitIn(listing, 'mktree'))
  })

  test('a commit written by the adapter is one git accepts under fsck --strict', async () => {
    const g = openGit(dir, {}, nodeSystem)
    const blob = await g.writeBlob(Buffer.from('x\n'))
    const tree = await g.writeFiles(new Map([['.dacli/config.yml', { oid: blob, mode: '100644' }]]))
    const sig = { name: 'A <b>', email: 'a@b\n', timestamp: 1_800_000_000, timezoneOffset: -90 }
    const commit = await g.writeCommit({ tree, parents: [], author: sig, committer: sig, message: 'm' })
    expect(objectId('commit', commitBody({ tree, parents: [], author: sig, committer: sig, message: 'm' }))).toBe(
      commit,
    )
    expect(git(dir, 'cat-file', '-p', commit)).toContain('author A b <a@b> 1800000000 +0130')
    expect(await g.updateRef('refs/heads/x', commit, null)).toBe(true)
    git(dir, 'fsck', '--strict', '--no-progress')
    const read = await g.readCommit(commit)
    expect(read).toMatchObject({ tree, parents: [], message: 'm\n', agent: null, command: null })
    expect(read.author).toMatchObject({ name: 'A b', email: 'a@b', timestamp: 1_800_000_000, timezoneOffset: -90 })
  })
})

describe('refs', () => {
  test('compare-and-swap moves a ref only from the expected value', async () => {
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'one')
    const one = git(dir, 'rev-parse', 'HEAD').trim()
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'two')
    const two = git(dir, 'rev-parse', 'HEAD').trim()
    const common = path.join(dir, '.git')
    expect(await compareAndSwapRef(common, 'refs/heads/r', null, one)).toBe(true)
    expect(await compareAndSwapRef(common, 'refs/heads/r', null, two)).toBe(false)
    expect(await compareAndSwapRef(common, 'refs/heads/r', two, one)).toBe(false)
    expect(readRef(common, common, 'refs/heads/r')).toBe(one)
    expect(await compareAndSwapRef(common, 'refs/heads/r', one, two)).toBe(true)
    expect(git(dir, 'rev-parse', 'r').trim()).toBe(two)
    expect(fs.existsSync(path.join(common, 'refs', 'heads', 'r.lock'))).toBe(false)
    // Packed refs are read, and swapped from, too.
    git(dir, 'pack-refs', '--all')
    expect(fs.existsSync(path.join(common, 'refs', 'heads', 'r'))).toBe(false)
    expect(readRef(common, common, 'refs/heads/r')).toBe(two)
    expect(readRef(common, common, 'HEAD')).toBe(two)
    expect(await compareAndSwapRef(common, 'refs/heads/r', two, one)).toBe(true)
    expect(git(dir, 'rev-parse', 'r').trim()).toBe(one)
  })

  test('a ref git is updating (its .lock exists) is waited for', async () => {
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'one')
    const one = git(dir, 'rev-parse', 'HEAD').trim()
    const common = path.join(dir, '.git')
    const lock = path.join(common, 'refs', 'heads', 'main.lock')
    fs.writeFileSync(lock, '')
    const swap = compareAndSwapRef(common, 'refs/heads/main', one, one)
    setTimeout(() => fs.rmSync(lock), 50)
    expect(await swap).toBe(true)
  })

  test('a lock left by a writer killed mid-update (untouched for longer than any writer holds one) is removed', async () => {
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'one')
    const one = git(dir, 'rev-parse', 'HEAD').trim()
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'two')
    const two = git(dir, 'rev-parse', 'HEAD').trim()
    const common = path.join(dir, '.git')
    const lock = path.join(common, 'refs', 'heads', 'main.lock')
    fs.writeFileSync(lock, `${one}\n`)
    const old = new Date(Date.now() - ABANDONED_REF_LOCK_MS - 1_000)
    fs.utimesSync(lock, old, old)
    const t0 = Date.now()
    expect(await compareAndSwapRef(common, 'refs/heads/main', two, one)).toBe(true)
    expect(Date.now() - t0).toBeLessThan(2_000)
    expect(git(dir, 'rev-parse', 'main').trim()).toBe(one)
    expect(fs.existsSync(lock)).toBe(false)
  })
})

describe('history reads', () => {
  test('diff and walk agree with git log --name-status', async () => {
    const w = (name: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
      fs.writeFileSync(path.join(dir, name), text)
    }
    w('.dacli/a.md', '1')
    w('.dacli/sub/b.md', '1')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'first')
    w('.dacli/a.md', '2')
    fs.rmSync(path.join(dir, '.dacli/sub/b.md'))
    w('.dacli/sub/c.md', '1')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'second')
    git(dir, 'gc', '-q') // packed objects: read through isomorphic-git
    const g = openGit(dir, {}, nodeSystem)
    const head = (await g.mainHead()) as string
    const subjects: string[] = []
    for await (const c of g.walk([head])) subjects.push(c.message.trim())
    expect(subjects).toEqual(['second', 'first'])
    const c = await g.readCommit(head)
    const p = await g.readCommit(c.parents[0] as string)
    const changes = await g.diff(p.tree, c.tree, '.dacli')
    expect(changes.map((x) => `${x.change[0]?.toUpperCase()}\t${x.path}`).join('\n')).toBe(
      git(dir, 'diff', '--no-renames', '--name-status', 'HEAD~1', 'HEAD').trim(),
    )
    expect(await g.isAncestor(p.id, c.id)).toBe(true)
    expect(await g.isAncestor(c.id, p.id)).toBe(false)
    expect(await g.mergeBase(p.id, c.id)).toBe(p.id)
  })

  test('outside a repository: a clear failure', () => {
    expect(() => openGit(tempDir(), {}, nodeSystem)).toThrow(/not inside a git repository/)
  })
})

describe('raw tree diff', () => {
  test('diffTreeBodies equals a diff of the parsed entries, for any two trees (property)', () => {
    const name = fc.stringMatching(/^[a-z0-9._-]{1,6}$/)
    const entry = fc.record({
      name,
      dir: fc.boolean(),
      oid: fc.constantFrom('1'.repeat(40), '2'.repeat(40), '3'.repeat(40)),
    })
    const tree = fc.uniqueArray(entry, { selector: (e) => e.name, maxLength: 12 })
    const items = (t: { name: string; dir: boolean; oid: string }[]) =>
      t.map((e) => ({ name: e.name, mode: e.dir ? '40000' : '100644', oid: e.oid }))
    fc.assert(
      fc.property(tree, tree, (x, y) => {
        const key = (i: { name: string; mode: string }) => `${i.name}${i.mode === '40000' ? '/' : ''}`
        const xm = new Map(items(x).map((i) => [key(i), i]))
        const ym = new Map(items(y).map((i) => [key(i), i]))
        const expected = [...new Set([...xm.keys(), ...ym.keys()])]
          .filter((k) => xm.get(k)?.oid !== ym.get(k)?.oid)
          .map((k) => `${k}:${xm.get(k)?.oid ?? '-'}:${ym.get(k)?.oid ?? '-'}`)
          .sort()
        const got = diffTreeBodies(treeBody(items(x)), treeBody(items(y)))
          .map((d) => {
            const i = (d.before ?? d.after) as { name: string; mode: string }
            return `${key(i)}:${d.before?.oid ?? '-'}:${d.after?.oid ?? '-'}`
          })
          .sort()
        expect(got).toEqual(expected)
      }),
      { numRuns: 500 },
    )
  })
})
