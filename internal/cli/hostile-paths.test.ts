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

describe('non-regular files are never opened (item 4)', () => {
  test('a FIFO in agents/, events/ and a notes folder: no command blocks; doctor names each (special-file)', async () => {
    const { spawnSync } = await import('node:child_process')
    const { baseEnv } = await import('../testkit/ws.js')
    const root = fx.copy()
    const fifos = [
      '.dacli/agents/a-pipe-abc123.md',
      '.dacli/events/2026/01/01/01JAAAAAAAAAAAAAAAAAAAAAAA-a-root-claim.md',
      '.dacli/projects/alpha/notes/decisions/pipe.md',
    ]
    for (const f of fifos) {
      fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true })
      spawnSync('mkfifo', [path.join(root, f)])
    }
    const bin = path.join(process.cwd(), 'build', 'dacli.js')
    const run = (argv: string[], as?: string) =>
      spawnSync(process.execPath, [bin, ...argv], {
        cwd: root,
        env: { ...baseEnv(), ...(as === undefined ? {} : { DACLI_AGENT: as }) },
        encoding: 'utf8',
        timeout: 30_000,
      })
    for (const [argv, as] of [
      [['whoami'], fx.rw.token],
      [['events', 'list', '--json'], undefined],
      [['sync', '--json'], undefined],
      [['note', 'list', '--json'], undefined],
      [['agent', 'list', '--json'], undefined],
    ] as const) {
      const r = run([...argv], as)
      expect(r.signal, `${argv.join(' ')} blocked`).toBeNull()
      expect(r.status, `${argv.join(' ')}: ${r.stderr}`).toBe(0)
    }
    const doctor = run(['doctor', '--json'])
    expect(doctor.signal).toBeNull()
    const findings = JSON.parse(doctor.stdout).findings as { code: string; subject: string }[]
    for (const f of fifos)
      expect(findings).toContainEqual(expect.objectContaining({ code: 'special-file', subject: f }))
  }, 120_000)
})
