// The terminal's loose ends a new user met (issue 34, item 7): each finding, as the user saw it, pinned.
// Usage lines are checked on a real pseudo-terminal (util-linux `script`) at 60, 80 and 120 columns.

import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { displayWidth } from '../clikit/width.js'
import { BIN, git, type Workspace, workspace } from '../testkit/ws.js'

let ws: Workspace
beforeAll(async () => {
  ws = await workspace()
  await ws.ok('project', 'add', 'api')
  await ws.ok('task', 'add', 'One', '--project', 'api', '--accept', 'it works', '--accept', 'docs')
  await ws.ok('task', 'add', 'Two', '--project', 'api', '--depends-on', 'api/1:SS')
})

/** The built bin on a pseudo-terminal of `cols` columns: what the terminal shows, escapes removed. */
function terminalText(cols: number, args: readonly string[]): string {
  let raw: string
  try {
    raw = execFileSync(
      'script',
      ['-qec', `stty cols ${cols}; node ${JSON.stringify(BIN)} ${args.join(' ')}`, '/dev/null'],
      {
        cwd: ws.root,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      },
    )
  } catch (e) {
    raw = String((e as { stdout?: string }).stdout ?? '')
  }
  return raw.replace(/\r/g, '').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
}

describe('usage lines fold to the terminal', () => {
  test.each([60, 80, 120])('%i columns: no line of a usage error or of --help is wider', (cols) => {
    for (const args of [
      ['task', 'add'],
      ['task', 'add', '--help'],
      ['task', 'check', 'api/1'],
    ]) {
      const text = terminalText(cols, args)
      expect(text).toMatch(/usage: dacli task|Usage:/)
      // Everything but the examples (whole commands, to copy as they are) fits.
      // An error's own message is prose the terminal folds; its usage synopsis is what dacli lays out.
      const lines = (text.split('\nExamples:')[0] as string).split('\n')
      const from = lines.findIndex((x) => /^(usage: |dacli task \w+ —)/.test(x))
      expect(from).toBeGreaterThanOrEqual(0)
      for (const l of lines.slice(from)) expect(displayWidth(l), `${args.join(' ')}: ${l}`).toBeLessThanOrEqual(cols)
    }
  })

  test('a pipe keeps the usage on one line (machines read it)', async () => {
    const r = await ws.dacli('task', 'add')
    expect(r.code).toBe(2)
    expect(
      r.stderr.split('\n').filter((l) => l.startsWith('usage: dacli task add <title>… --project SLUG [')),
    ).toHaveLength(1)
  })
})

describe('words that agree with their counts', () => {
  test('one open question waits; two wait', async () => {
    await ws.ok('ask', 'Which DB?', '--about', 'api/2')
    expect((await ws.ok('overview')).stdout).toContain('1 open question waits for a person')
    await ws.ok('ask', 'Which port?', '--about', 'api/2')
    expect((await ws.ok('overview')).stdout).toContain('2 open questions wait for a person')
  })

  test('lint has a header and a count line that agree', async () => {
    const out = (await ws.ok('lint')).stdout
    expect(out.split('\n')[0]).toMatch(/^SEVERITY +CODE +SUBJECT +FINDING$/)
    expect(out).toMatch(/\d+ findings?: \d+ errors?, \d+ warnings?, \d+ info/)
    expect(out).not.toMatch(/\b1 errors\b|\b1 warnings\b|\b[02-9] error\b|\b[02-9] warning\b/)
  })
})

describe('hints where a user was left guessing', () => {
  test('--owner naming no identity warns, with the closest id', async () => {
    const r = await ws.ok('task', 'list', '--owner', 'a-rot')
    expect(r.stdout).toContain('no tasks match')
    expect(r.stderr).toContain('no identity "a-rot" in this workspace')
    expect(r.stderr).toContain('did you mean a-root?')
    // A known owner with nothing held is not warned about.
    expect((await ws.ok('task', 'list', '--owner', 'a-root')).stderr).not.toContain('no identity')
  })

  test('answer given a task points at its open questions by id (exit 4)', async () => {
    const open = (await ws.ok('threads', '--open', '--json')).json.threads.map((t: { id: string }) => t.id)
    const r = await ws.dacli('answer', 'api/2', 'postgres', '--json')
    expect(r.code).toBe(4)
    expect(r.error.message).toMatch(
      /^"api\/2" is the task api\/002-two, not a question; answer its open questions by id: /,
    )
    expect([...r.error.details.open_questions].sort()).toEqual([...open].sort())
    expect(r.error.next_actions[0]).toMatch(/^dacli answer q-[0-9A-Z]{26} "<answer>"$/)
    const none = await ws.dacli('answer', 'api/1', 'x', '--json')
    expect(none.code).toBe(4)
    expect(none.error.message).toContain('no question about it is open')
  })

  test('a one-letter flag is pointed at its long form, with the corrected command', async () => {
    const r = await ws.dacli('record', '-m', 'x')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('-m is perhaps --message')
    expect(r.stderr).toContain('dacli record --message x')
  })

  test('a control character in a title is named, with its place', async () => {
    const before = ws.snapshot()
    for (const [ch, name] of [
      ['\u001b', 'ESC (U+001B) at character 4'],
      ['\u0007', 'BEL (U+0007) at character 4'],
    ] as const) {
      const r = await ws.dacli('task', 'add', `bad${ch}title`, '--project', 'api', '--json')
      expect(r.code).toBe(2)
      expect(r.error.message).toBe(
        `title contains the control character ${name}: a title is one line of printable text`,
      )
    }
    expect(ws.snapshot()).toEqual(before)
  })

  test('task add names each dependency with its link type', async () => {
    const r = await ws.ok(
      'task',
      'add',
      'Three',
      '--project',
      'api',
      '--depends-on',
      'api/1',
      '--depends-on',
      'api/2:FF',
    )
    expect(r.stdout).toContain('depends on api/1 (FS), api/2 (FF)')
  })

  test('a check on your word says it is attested, not verified', async () => {
    await ws.ok('task', 'claim', 'api/1')
    const r = await ws.ok('task', 'check', 'api/1', '--n', '1')
    expect(r.stdout).toContain('attested, not verified: #1 checked on your word')
    const v = await ws.ok('task', 'check', 'api/1', '--n', '2', '--verify', 'true')
    expect(v.stdout).not.toContain('attested')
  })

  test('init’s config.yml points at nothing the user lacks', () => {
    const head = ws.file('.dacli/config.yml').split('\n')[0]
    expect(head).toContain('shipped with dacli')
  })
})

describe('worktrees say what is true', () => {
  test('explain: a branch with no commits has nothing to land; list has no stray line; prune clears the task', async () => {
    git(ws.root, 'add', '-A')
    git(ws.root, 'commit', '-qm', 'base')
    await ws.ok('worktree', 'add', 'api/1')
    const ex = await ws.ok('explain', 'api/1')
    expect(ex.stdout).toContain('landing:   dacli/api-001-one has no commits beyond main yet (nothing to land)')
    expect((await ws.ok('explain', 'api/1', '--json')).json.landing.head).toMatch(/^[0-9a-f]{40}$/)
    const list = (await ws.ok('worktree', 'list')).stdout.trimEnd().split('\n')
    expect(list[0]).toMatch(/VS main/)
    expect(list).toHaveLength(3) // the header, the main worktree, the task's
    const file = '.dacli/projects/api/tasks/active/001-one.md'
    expect(ws.file(file)).toContain('worktree: {path: .dacli/worktrees/api-001-one')
    fs.rmSync(path.join(ws.root, '.dacli/worktrees/api-001-one'), { recursive: true })
    const pruned = await ws.ok('worktree', 'prune')
    expect(pruned.stdout).toContain('its folder was deleted; git and the task forget it')
    expect(pruned.stderr).toBe('')
    expect(ws.file(file)).not.toMatch(/^worktree:/m)
  })
})
