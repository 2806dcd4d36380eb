// Secrets never stored, config and refs checked (issue 28, items 6, 7 and the --branch low finding).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { dacliIn, type Fixture, fixture, git, snapshotOf } from '../testkit/ws.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
  git(fx.ws.root, 'commit', '-q', '--allow-empty', '-m', 'trunk')
})

const TASK = '.dacli/projects/alpha/tasks/open/001-first-thing.md'

describe('a --verify command’s secrets are never stored or printed (item 6)', () => {
  test.each([
    ['a GitHub token', 'true ghp_abcdefghijklmnopqrstuvwxyz0123', 'ghp_abcdefghijklmnopqrstuvwxyz0123', {}],
    ['a GitLab token', 'true glpat-abcdefghijklmnopqrst', 'glpat-abcdefghijklmnopqrst', {}],
    ['a Slack token', 'true xoxb-1234567890-abcdefghij', 'xoxb-1234567890-abcdefghij', {}],
    ['an AWS access key', 'true AKIAABCDEFGHIJKLMNOP', 'AKIAABCDEFGHIJKLMNOP', {}],
    ['an sk- key', 'true sk-abcdefghijklmnopqrstuvwxyz', 'sk-abcdefghijklmnopqrstuvwxyz', {}],
    ['an inline secret assignment', 'API_PASSWORD=hunter2hunter2 true', 'hunter2hunter2', {}],
    [
      'the value of a secret-looking env var',
      'test -n svc-0123456789-value',
      'svc-0123456789-value',
      { DEPLOY_KEY: 'svc-0123456789-value' },
    ],
  ])('%s: masked in the task file and the output, with a warning', async (_w, command, secret, env) => {
    const root = fx.copy()
    const r = await dacliIn(root, ['task', 'check', 'alpha/1', '--n', '1', '--verify', command, '--json'], { env })
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/carries a secret/)
    expect(r.stdout).not.toContain(secret)
    expect(r.stderr).not.toContain(secret)
    const text = fs.readFileSync(path.join(root, TASK), 'utf8')
    expect(text).toContain('[redacted]')
    expect(text).not.toContain(secret)
    for (const [, bytes] of snapshotOf(root)) expect(bytes).not.toContain(secret)
  })

  test('a failing command with a token: the error names the masked command', async () => {
    const root = fx.copy()
    const r = await dacliIn(root, [
      'task',
      'check',
      'alpha/1',
      '--n',
      '1',
      '--verify',
      'false ghp_abcdefghijklmnopqrstuvwxyz0123',
      '--json',
    ])
    expect(r.code).toBe(1)
    expect(r.stdout + r.stderr).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123')
  })
})

describe('record_branch is checked at load (item 7)', () => {
  test.each([
    ['the checked-out branch', 'main', /checked out here/],
    ['HEAD', 'HEAD', /not HEAD/],
    ['a full ref', 'refs/heads/records', /short branch name/],
    ['an option', '-x', /short branch name/],
    ['a name git refuses', 'a..b', /short branch name/],
  ])(
    '%s: every command exits 1 naming the file and field (a bad value of config.yml); nothing written',
    async (_w, value, why) => {
      const root = fx.copy()
      const cfg = path.join(root, '.dacli', 'config.yml')
      fs.writeFileSync(
        cfg,
        fs.readFileSync(cfg, 'utf8').replace(/^record_branch: .*$/m, `record_branch: ${JSON.stringify(value)}`),
      )
      const before = snapshotOf(root)
      const refs = git(root, 'for-each-ref')
      for (const argv of [
        ['record', '--json'],
        ['task', 'list', '--json'],
      ]) {
        const r = (await dacliIn(root, argv)).expectExit(1)
        expect(r.error.message).toMatch(why)
        expect(r.error.message).toContain('.dacli/config.yml: record_branch')
      }
      expect(snapshotOf(root)).toEqual(before)
      expect(git(root, 'for-each-ref')).toBe(refs)
    },
  )
})

describe('--branch is a short branch name (low finding)', () => {
  test('worktree add --branch refs/heads/main is refused (exit 2), nothing made', async () => {
    const root = fx.copy()
    const r = (await dacliIn(root, ['worktree', 'add', 'alpha/1', '--branch', 'refs/heads/main', '--json'])).expectExit(
      2,
    )
    expect(r.error.message).toMatch(/no refs\/heads/)
    expect(fs.existsSync(path.join(root, '.dacli', 'worktrees'))).toBe(false)
  })
})

describe('unreadable is not gone (item 9): answer and events dismiss', () => {
  const corrupt = (root: string) => {
    const dir = path.join(root, '.dacli/projects/alpha/tasks')
    const status = fs.readdirSync(dir).find((d) => fs.existsSync(path.join(dir, d, '001-first-thing.md')))
    const f = path.join(dir, status ?? 'open', '001-first-thing.md')
    fs.writeFileSync(f, Buffer.concat([fs.readFileSync(f), Buffer.from([0xff, 0xfe, 0x0a])]))
  }

  test('answer: a question about an unreadable task is exit 1 naming it; nothing written', async () => {
    const root = fx.copy()
    const q = (await dacliIn(root, ['ask', 'Which port?', '--about', 'alpha/1', '--json'])).expectExit(0).json.id
    corrupt(root)
    const before = snapshotOf(root)
    const r = (await dacliIn(root, ['answer', q, '8080', '--json'])).expectExit(1)
    expect(r.error.message).toMatch(/cannot be read/)
    expect(r.error.message).toContain('not treated as gone')
    expect(snapshotOf(root)).toEqual(before)
  })

  test('events dismiss: a proposal about an unreadable task is exit 1 naming it; nothing written', async () => {
    const root = fx.copy()
    const ev = (await dacliIn(root, ['task', 'done', 'alpha/1', '--json'], { as: fx.ro.token })).expectExit(0).json
      .event_id
    corrupt(root)
    const before = snapshotOf(root)
    const r = (await dacliIn(root, ['events', 'dismiss', ev, '--reason', 'no', '--json'])).expectExit(1)
    expect(r.error.message).toMatch(/cannot be read/)
    expect(snapshotOf(root)).toEqual(before)
  })
})
