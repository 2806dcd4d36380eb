// Paths from files are contained, and no write follows a link (issue 28, items 2 and 3): a task's
// `worktree.path` must name a folder inside `.dacli/worktrees/` (after realpath) or add/remove/prune refuse
// it, naming the file and field; a link planted at each place dacli writes changes nothing outside.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { dacliIn, type Fixture, fixture, git, tempDir } from '../testkit/ws.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
  git(fx.ws.root, 'commit', '-q', '--allow-empty', '-m', 'trunk')
})

const TASK = '.dacli/projects/alpha/tasks/open/001-first-thing.md'

/** A copy whose alpha/1 records `worktree: {path: <value>}`, with a user's own worktree at `outside`. */
function hostileWorktree(value: (root: string, outside: string) => string): { root: string; outside: string } {
  const root = fx.copy()
  const outside = path.join(tempDir('dacli-user-wt-'), 'mine')
  git(root, 'worktree', 'add', '-q', '-b', 'users-own', outside)
  fs.writeFileSync(path.join(outside, 'precious.txt'), 'uncommitted work\n')
  const f = path.join(root, TASK)
  const text = fs.readFileSync(f, 'utf8')
  fs.writeFileSync(
    f,
    text.replace(/^---\n/, `---\nworktree: {path: ${JSON.stringify(value(root, outside))}, branch: users-own}\n`),
  )
  return { root, outside }
}

describe('worktree.path from a task file is contained (item 2)', () => {
  test.each([
    ['a relative path out of the workspace', (root: string, outside: string) => path.relative(root, outside)],
    ['an absolute path', (_root: string, outside: string) => outside],
    [
      'a name inside .dacli/worktrees/ that is a link out',
      (root: string, outside: string) => {
        fs.mkdirSync(path.join(root, '.dacli', 'worktrees'), { recursive: true })
        fs.symlinkSync(outside, path.join(root, '.dacli', 'worktrees', 'alpha-001-first-thing'))
        return '.dacli/worktrees/alpha-001-first-thing'
      },
    ],
  ])('%s: add, remove and prune refuse it naming the file and field; the user’s worktree stays', async (_w, value) => {
    const { root, outside } = hostileWorktree(value)
    for (const argv of [
      ['worktree', 'remove', 'alpha/1', '--force', '--json'],
      ['worktree', 'add', 'alpha/1', '--json'],
    ]) {
      const r = (await dacliIn(root, argv)).expectExit(1)
      expect(r.error.message).toContain(TASK)
      expect(r.error.message).toContain('"worktree.path"')
    }
    const prune = (await dacliIn(root, ['worktree', 'prune', '--into', 'main', '--json'])).expectExit(0).json
    expect(prune.removed).toEqual([])
    expect(fs.readFileSync(path.join(outside, 'precious.txt'), 'utf8')).toBe('uncommitted work\n')
    expect(git(root, 'worktree', 'list')).toContain(outside)
    const doctor = (await dacliIn(root, ['doctor', '--json'])).json
    expect(doctor.findings).toContainEqual(
      expect.objectContaining({
        code: 'invalid-field',
        subject: TASK,
        message: expect.stringMatching(/worktree\.path/),
      }),
    )
  })
})

describe('no write follows a link (item 3)', () => {
  /** Where dacli writes, and how to plant a link there to a target outside the workspace. */
  const PLACES: [string, string, 'dir' | 'file', string[]][] = [
    ['the journal folder', '.dacli/journal', 'dir', ['task', 'add', 'One more', '--project', 'alpha']],
    ['the journal file', '.dacli/journal/changes.jsonl', 'file', ['task', 'add', 'One more', '--project', 'alpha']],
    [
      'the journal’s ignore file',
      '.dacli/journal/.gitignore',
      'file',
      ['task', 'add', 'One more', '--project', 'alpha'],
    ],
    ['the workspace ignore file', '.dacli/.gitignore', 'file', ['worktree', 'add', 'alpha/1']],
    ['the worktrees folder', '.dacli/worktrees', 'dir', ['worktree', 'add', 'alpha/1']],
    ['the cache folder', '.dacli/cache', 'dir', ['task', 'list']],
    ['the locks folder', '.dacli/locks', 'dir', ['task', 'add', 'One more', '--project', 'alpha']],
    ['an agents folder file', '.dacli/agents', 'dir', ['agent', 'spawn']],
    ['the events folder', '.dacli/events', 'dir', ['task', 'done', 'alpha/1']],
    ['a status folder', '.dacli/projects/alpha/tasks/open', 'dir', ['task', 'add', 'One more', '--project', 'alpha']],
  ]
  const bytesOf = (p: string): Map<string, string> => {
    const m = new Map<string, string>()
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const q = path.join(d, e.name)
        if (e.isDirectory()) walk(q)
        else m.set(path.relative(p, q), fs.readFileSync(q, 'latin1'))
      }
    }
    walk(p)
    return m
  }

  test.each(PLACES)('a link at %s (%s): nothing outside changes', async (_w, rel, kind, argv) => {
    const root = fx.copy()
    const outside = tempDir('dacli-outside-')
    const target = kind === 'dir' ? path.join(outside, 'folder') : path.join(outside, 'file.txt')
    const at = path.join(root, rel)
    if (kind === 'dir') {
      fs.mkdirSync(target)
      if (fs.existsSync(at)) fs.cpSync(at, target, { recursive: true })
    } else {
      fs.writeFileSync(target, fs.existsSync(at) ? fs.readFileSync(at) : 'outside\n')
    }
    fs.rmSync(at, { recursive: true, force: true })
    fs.mkdirSync(path.dirname(at), { recursive: true })
    fs.symlinkSync(target, at)
    const before = bytesOf(outside)
    const r = await dacliIn(root, argv, argv[1] === 'done' ? { as: fx.ro.token } : {})
    expect([0, 1]).toContain(r.code)
    expect(bytesOf(outside)).toEqual(before)
    expect(fs.lstatSync(at).isSymbolicLink()).toBe(true)
  })
})
