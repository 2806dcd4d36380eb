// History (which commits touched one object) over a real repository made with the
// git program: the expected touches are the commits this test made, in order.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { nodeSystem } from '../../../cmd/system.js'
import { type Git, openGit } from '../../adapters/git/index.js'
import { isTaskFilePath, taskIdInText } from '../../format/rawtask.js'
import { seal } from '../../store/cachekey.js'
import { git, tempDir } from '../../testkit/ws.js'
import { HISTORY_CACHE, History } from './history.js'

const A = 't-01KBX3Q5M7E2RJ4T8W6YVZ0N1Q'
const B = 't-01KBX3Q5M7E2RJ4T8W6YVZ0N1R'
const SCOPE = '.dacli/projects'
const followed = { isFollowed: isTaskFilePath, identityOf: taskIdInText }

let dir: string
const head = () => git(dir, 'rev-parse', 'HEAD').trim()
const write = (rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
  fs.writeFileSync(path.join(dir, rel), text)
}
const task = (id: string, title: string, extra = '') => `---\nid: ${id}\nkind: task\n${extra}---\n# ${title}\n`
const commit = (message: string) => {
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', message)
  return head()
}

/** The Git adapter, counting the object reads History makes. */
function counted(): { git: Git; reads: () => number } {
  const real = openGit(dir, {}, nodeSystem)
  let n = 0
  const wrapped = new Proxy(real, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver)
      if (prop === 'readCommit' || prop === 'readBlob' || prop === 'diff') {
        return (...args: unknown[]) => {
          n++
          return (v as (...a: unknown[]) => unknown).apply(target, args)
        }
      }
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
  return { git: wrapped, reads: () => n }
}

beforeEach(() => {
  dir = tempDir('dacli-history-')
  git(dir, 'init', '-q', '-b', 'main')
  write('README.md', 'before any workspace\n')
  commit('code only')
})

describe('History.touches', () => {
  test('follows one task by its id through add, edit, move, renumber and removal; others’ commits are skipped', async () => {
    const made: [string, string, string][] = []
    write('.dacli/projects/p/tasks/open/001-a.md', task(A, 'A'))
    write('.dacli/projects/p/tasks/open/002-b.md', task(B, 'B'))
    made.push([commit('add'), 'added', '.dacli/projects/p/tasks/open/001-a.md'])
    write('.dacli/projects/p/tasks/open/001-a.md', task(A, 'A, sharper'))
    made.push([commit('edit'), 'modified', '.dacli/projects/p/tasks/open/001-a.md'])
    fs.mkdirSync(path.join(dir, '.dacli/projects/p/tasks/active'))
    git(dir, 'mv', '.dacli/projects/p/tasks/open/001-a.md', '.dacli/projects/p/tasks/active/001-a.md')
    made.push([commit('claim'), 'moved', '.dacli/projects/p/tasks/active/001-a.md'])
    write('.dacli/projects/p/tasks/open/002-b.md', task(B, 'B only'))
    commit('only B')
    git(dir, 'mv', '.dacli/projects/p/tasks/active/001-a.md', '.dacli/projects/p/tasks/active/003-a.md')
    made.push([commit('renumber'), 'moved', '.dacli/projects/p/tasks/active/003-a.md'])
    write('.dacli/projects/p/notes/n.md', '---\nid: t-01KBX3Q5M7E2RJ4T8W6YVZ0N1Q\n---\n# not a task file\n')
    commit('a note quoting the id')
    fs.rmSync(path.join(dir, '.dacli/projects/p/tasks/active/003-a.md'))
    made.push([commit('remove'), 'deleted', '.dacli/projects/p/tasks/active/003-a.md'])

    const h = new History(openGit(dir, {}, nodeSystem), SCOPE, null, followed)
    const r = await h.touches(head(), A)
    expect(r.truncated).toBe(false)
    expect(r.touches.map((t) => [t.commit, t.change, t.path])).toEqual(made)
    expect(r.touches.map((t) => t.message)).toEqual(['add', 'edit', 'claim', 'renumber', 'remove'])
    // The walk stops below the commit that created the workspace.
    expect(r.scanned).toBe(7)
  })

  test('an id written in lower case is the same task', async () => {
    write('.dacli/projects/p/tasks/open/001-a.md', task(A.toLowerCase().replace(/^t-/, 't-'), 'A'))
    const c = commit('add')
    const r = await new History(openGit(dir, {}, nodeSystem), SCOPE, null, followed).touches(head(), A)
    expect(r.touches.map((t) => t.commit)).toEqual([c])
  })

  test('a merge counts only where it differs from every parent, as git log -- <path> does', async () => {
    write('.dacli/projects/p/tasks/open/001-a.md', task(A, 'A'))
    write('.dacli/projects/p/tasks/open/002-b.md', task(B, 'B'))
    commit('add both')
    git(dir, 'checkout', '-q', '-b', 'side')
    write('.dacli/projects/p/tasks/open/002-b.md', task(B, 'B on the side'))
    const side = commit('side edits B')
    git(dir, 'checkout', '-q', 'main')
    write('.dacli/projects/p/tasks/open/001-a.md', task(A, 'A on main'))
    const main = commit('main edits A')
    git(dir, 'merge', '-q', '--no-edit', 'side')
    const touchesOf = async (id: string) =>
      (await new History(openGit(dir, {}, nodeSystem), SCOPE, null, followed).touches(head(), id)).touches.map(
        (t) => t.message,
      )
    expect(await touchesOf(B)).toEqual(['add both', 'side edits B'])
    expect(await touchesOf(A)).toEqual(['add both', 'main edits A'])
    expect([side, main]).not.toContain(head())
  })

  test('what was learnt is cached: a second walk of the same commits reads no git object', async () => {
    write('.dacli/projects/p/tasks/open/001-a.md', task(A, 'A'))
    commit('add')
    write('.dacli/projects/p/tasks/open/001-a.md', task(A, 'A2'))
    commit('edit')
    const cache = { file: path.join(tempDir('dacli-history-cache-'), 'history.json'), key: Buffer.alloc(32, 7) }
    const first = counted()
    const h1 = new History(first.git, SCOPE, cache, followed)
    const r1 = await h1.touches(head(), A)
    h1.save()
    expect(first.reads()).toBeGreaterThan(0)
    expect(fs.existsSync(cache.file)).toBe(true)

    const second = counted()
    const r2 = await new History(second.git, SCOPE, cache, followed).touches(head(), A)
    expect(r2).toEqual(r1)
    expect(second.reads()).toBe(0)

    // The same cache edited under its seal, or sealed under another key (planted, another clone's): not used.
    const text = fs.readFileSync(cache.file, 'utf8')
    const body = text.slice(text.indexOf('\n') + 1)
    for (const planted of [`${text} `, seal(Buffer.alloc(32, 9), HISTORY_CACHE, body)]) {
      fs.writeFileSync(cache.file, planted)
      const third = counted()
      expect(await new History(third.git, SCOPE, cache, followed).touches(head(), A)).toEqual(r1)
      expect(third.reads()).toBeGreaterThan(0)
    }
  })

  test('at most max commits are examined, and the answer says it was cut short', async () => {
    write('.dacli/projects/p/tasks/open/001-a.md', task(A, 'A'))
    commit('add')
    for (let i = 0; i < 4; i++) {
      write('.dacli/projects/p/tasks/open/001-a.md', task(A, `A ${i}`))
      commit(`edit ${i}`)
    }
    const r = await new History(openGit(dir, {}, nodeSystem), SCOPE, null, followed).touches(head(), A, 2)
    expect(r).toMatchObject({ scanned: 2, truncated: true })
    expect(r.touches.map((t) => t.message)).toEqual(['edit 2', 'edit 3'])
  })
})
