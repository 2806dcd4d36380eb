// Hostile values in the files that are not task files (review 19): a note's kind, references and severity, a
// risk's impact and likelihood, a project's GitHub link, what a signed proposal carries for sync to write. Each is checked where its kind is read: a value out of its format is refused naming
// the field (`invalid-field`) — lists skip the file and say so, the commands that need it exit 1, lint and doctor name
// it — never served as it stands, never coerced into a default, and the workspace is left as it was.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { agentSigner } from '../domain/identity/signing.js'
import { cacheKey, seal } from '../store/cachekey.js'
import { eventContent } from '../store/events.js'
import { FakeGitHub } from '../testkit/fakegithub.js'
import { eventFiles, forge } from '../testkit/hostile.js'
import { dacliIn, type Fixture, fixture, snapshotOf } from '../testkit/ws.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
})

const NOTE = '.dacli/projects/alpha/notes/decisions/use-x.md'

/** `text` with the frontmatter line of `key` replaced by `line` (or `line` added when there is none). */
function withLine(text: string, key: string, line: string): string {
  const lines = text.split('\n')
  const at = lines.findIndex((l) => l.startsWith(`${key}:`))
  if (at === -1) lines.splice(1, 0, line)
  else lines[at] = line
  return lines.join('\n')
}

function plant(root: string, rel: string, key: string, line: string): void {
  const file = path.join(root, rel)
  fs.writeFileSync(file, withLine(fs.readFileSync(file, 'utf8'), key, line))
}

describe('a note’s fields are checked where a note is read', () => {
  test.each([
    ['note_kind', 'note_kind: finding', 'its folder is notes/decisions/'],
    ['note_kind', 'note_kind: [decision]', 'expected decision, finding'],
    ['severity', 'severity: catastrophic', 'expected major, moderate, minor'],
    ['severity', 'severity: [1, 2]', 'expected major, moderate, minor'],
    ['about', 'about: "--upload-pack=touch /tmp/x"', 'a task id or reference'],
    ['about', 'about: "../../x"', 'a task id or reference'],
    ['about', 'about: {id: 1}', 'a task id or reference'],
    ['answers', 'answers: "q-../../x"', 'a question id'],
    ['answers', 'answers: t-01KBX3Q5M7E2RJ4T8W6YVZ0N1P', 'a question id'],
    ['source_event', 'source_event: {a: 1}', 'an event id'],
    ['created', 'created: [2026]', 'an RFC 3339 time'],
    ['created_by', 'created_by: 7', 'an agent id'],
  ])('%s planted as `%s`: skipped and reported, show exits 1, nothing changes', async (field, line, want) => {
    const root = fx.copy()
    plant(root, NOTE, field, line)
    const before = snapshotOf(root)
    const reason = expect.stringContaining(`field "${field}"`)
    for (const argv of [
      ['note', 'list', '--json'],
      ['search', 'use', '--json'],
    ]) {
      const r = (await dacliIn(root, argv)).expectExit(0).json
      expect(r.skipped).toContainEqual(expect.objectContaining({ path: NOTE, code: 'invalid-field', reason }))
    }
    const list = (await dacliIn(root, ['note', 'list', '--json'])).json
    expect(list.notes).toEqual([])
    const shown = (await dacliIn(root, ['note', 'show', 'alpha/use-x'])).expectExit(1)
    expect(shown.stderr).toContain(`field "${field}"`)
    expect(shown.stderr).toContain(want)
    expect(shown.stderr).not.toContain('    at ')
    const edited = (await dacliIn(root, ['note', 'edit', 'alpha/use-x', '--body', 'more', '--json'])).expectExit(1)
    expect(edited.error.message).toContain(`field "${field}"`)
    const doctor = (await dacliIn(root, ['doctor', '--json'])).json
    expect(doctor.findings).toContainEqual(
      expect.objectContaining({ code: 'invalid-field', subject: NOTE, message: reason }),
    )
    const lint = (await dacliIn(root, ['lint', '--json'])).json
    expect(JSON.stringify(lint)).toContain(`field \\"${field}\\"`)
    expect(snapshotOf(root)).toEqual(before)
  })

  test('a note without note_kind is of its folder’s kind; valid references read as they are', async () => {
    const root = fx.copy()
    const file = path.join(root, NOTE)
    const text = fs.readFileSync(file, 'utf8').replace(/^note_kind:.*\n/m, '')
    fs.writeFileSync(file, withLine(text, 'about', 'about: t-01KBX3Q5M7E2RJ4T8W6YVZ0N1P'))
    const shown = (await dacliIn(root, ['note', 'show', 'alpha/use-x', '--json'])).expectExit(0).json
    expect(shown.kind).toBe('decision')
    expect(shown.about).toEqual({ id: 't-01KBX3Q5M7E2RJ4T8W6YVZ0N1P', ref: null })
  })
})

describe('a risk’s impact and likelihood are checked where a risk is read', () => {
  test.each([
    ['impact', 'impact: catastrophic'],
    ['impact', 'impact: {x: 1}'],
    ['likelihood', 'likelihood: 9'],
    ['likelihood', 'likelihood: "high\\e[31m"'],
    ['created_by', 'created_by: [a-root]'],
  ])('%s planted as `%s`: no rank is computed from it; skipped and reported, edit exits 1', async (field, line) => {
    const root = fx.copy()
    const added = (
      await dacliIn(root, [
        'risk',
        'add',
        'Disk fills',
        '--project',
        'alpha',
        '--impact',
        'high',
        '--likelihood',
        'low',
        '--json',
      ])
    ).expectExit(0).json
    const rel = added.path as string
    plant(root, rel, field, line)
    const before = snapshotOf(root)
    const reason = expect.stringContaining(`field "${field}"`)
    const list = (await dacliIn(root, ['risk', 'list', '--json'])).expectExit(0).json
    expect(list.risks).toEqual([])
    expect(list.skipped).toContainEqual(expect.objectContaining({ path: rel, code: 'invalid-field', reason }))
    const human = (await dacliIn(root, ['risk', 'list'])).expectExit(0)
    expect(human.stdout).not.toContain('Disk fills')
    const edited = (
      await dacliIn(root, ['risk', 'edit', 'alpha/disk-fills', '--action', 'watch it', '--json'])
    ).expectExit(1)
    expect(edited.error.message).toContain(`field "${field}"`)
    const doctor = (await dacliIn(root, ['doctor', '--json'])).json
    expect(doctor.findings).toContainEqual(
      expect.objectContaining({ code: 'invalid-field', subject: rel, message: reason }),
    )
    expect(snapshotOf(root)).toEqual(before)
  })
})

describe('a project’s GitHub link is a repository name, checked where a project is read', () => {
  test.each([
    ['repo', 'github: {repo: "../../user", public_confirmed: null}'],
    ['repo', 'github: {repo: "--upload-pack=x/y", public_confirmed: null}'],
    ['repo', 'github: {repo: "acme/widgets/../../orgs/x", public_confirmed: null}'],
    ['public_confirmed', 'github: {repo: acme/widgets, public_confirmed: "acme widgets"}'],
  ])('%s planted as `%s`: no request names it; the project is refused naming the field', async (_key, line) => {
    const root = fx.copy()
    const rel = '.dacli/projects/alpha/project.md'
    plant(root, rel, 'github', line)
    const before = snapshotOf(root)
    const gh = await FakeGitHub.start()
    try {
      gh.addRepo('acme/widgets')
      const doctor = (await dacliIn(root, ['github', 'doctor', 'alpha', '--json'], { env: gh.env() })).expectExit(1)
      expect(doctor.error.message).toContain('field "github"')
      for (const argv of [
        ['github', 'push', 'alpha', '--dry-run', '--json'],
        ['github', 'pull', 'alpha', '--dry-run', '--json'],
      ])
        expect((await dacliIn(root, argv, { env: gh.env() })).code).toBe(1)
      expect(gh.calls.filter((c) => c.path !== '/rate_limit')).toEqual([])
    } finally {
      await gh.close()
    }
    const shown = (await dacliIn(root, ['project', 'show', 'alpha', '--json'])).expectExit(1)
    expect(shown.error.message).toContain('field "github"')
    const list = (await dacliIn(root, ['project', 'list', '--json'])).expectExit(0).json
    expect(list.skipped).toContainEqual(expect.objectContaining({ path: rel, code: 'invalid-field' }))
    const doctor = (await dacliIn(root, ['doctor', '--json'])).json
    expect(doctor.findings).toContainEqual(
      expect.objectContaining({ code: 'invalid-field', subject: rel, message: expect.stringContaining('"github"') }),
    )
    expect(snapshotOf(root)).toEqual(before)
  })

  test('a valid link still reads (an unconfirmed public_confirmed is null)', async () => {
    const root = fx.copy()
    plant(root, '.dacli/projects/alpha/project.md', 'github', 'github: {repo: acme/widgets.js, public_confirmed: null}')
    const shown = (await dacliIn(root, ['project', 'show', 'alpha', '--json'])).expectExit(0).json
    expect(JSON.stringify(shown)).toContain('acme/widgets.js')
  })
})

describe('a proposal’s payload is checked where an event is read, before sync writes any of it', () => {
  // A read-only agent holds its own key: it can sign any payload, and an owner's sync writes what it says.
  test.each([
    ['data.title', { title: 'Evil\n\n## Rejected\n\ninjected' }, 'finding'],
    ['data.title', { title: 'red \u001b[31m' }, 'finding'],
    ['data.body', { body: 'text\n\n## Chose\n\nsomething else' }, 'finding'],
    ['data.severity', { severity: 'catastrophic' }, 'finding'],
    ['data.project', { project: '../../x' }, 'finding'],
    ['body', { body_text: 'bell \u0007 here' }, 'finding'],
    ['data.add', { add: [{ on: 'alpha/4', type: 'ZZ' }] }, 'dependency'],
    ['data.add', { add: [{ on: '--upload-pack=x', type: 'FS' }] }, 'dependency'],
    ['data.remove', { remove: [{ on: 'alpha/4', type: 'ZZ' }] }, 'dependency'],
    ['data.by', { by: '../../x' }, 'block'],
    ['data.by', { by: { id: 1 } }, 'block'],
    ['data.why', { why: 'esc \u001b[2J' }, 'block'],
    ['data.lease_ms', { lease_ms: 1e300 }, 'claim'],
    ['data.lease_ms', { lease_ms: -5 }, 'claim'],
    ['data.tokens', { tokens: -1 }, 'propose-status'],
  ])(
    '%s planted as %j (%s), signed by its proposer: skipped and reported, never applied',
    async (field, planted, kind) => {
      const root = fx.copy()
      ;(
        await dacliIn(root, ['note', 'add', 'finding', 'Plain', '--project', 'alpha', '--about', 'alpha/1'], {
          as: fx.ro.token,
        })
      ).expectExit(0)
      const file = eventFiles(root).find((f) => f.endsWith('-finding.md')) as string
      const { body_text, ...data } = planted as Record<string, unknown>
      const text = fs.readFileSync(file, 'utf8')
      if (typeof body_text === 'string') fs.writeFileSync(file, `${text.trimEnd().replace(/Plain$/, '')}${body_text}\n`)
      await forge(file, (d) => {
        d.event_kind = kind
        d.data = { ...(d.data as Record<string, unknown>), ...data }
        const body = typeof body_text === 'string' ? body_text : 'Plain'
        const rec = { ...d, about: d.about ?? null, body } as Parameters<typeof eventContent>[0]
        d.signature = agentSigner(fx.ro.token).sign(eventContent(rec))
      })
      const before = snapshotOf(root)
      const reason = expect.stringContaining(`field "${field}"`)
      const rel = path.relative(root, file)
      const sync = (await dacliIn(root, ['sync', '--json'])).expectExit(0).json
      expect(sync.applied).toEqual([])
      expect(sync.skipped).toContainEqual(expect.objectContaining({ path: rel, code: 'invalid-field', reason }))
      const doctor = (await dacliIn(root, ['doctor', '--json'])).json
      expect(doctor.findings).toContainEqual(
        expect.objectContaining({ code: 'invalid-field', subject: rel, message: reason }),
      )
      expect(snapshotOf(root)).toEqual(before)
    },
  )

  test('a dependency proposal follows task depend: two types to one task stand, a removal of one type leaves the other', async () => {
    const root = fx.copy()
    const propose = async (data: Record<string, unknown>) => {
      const before = new Set(eventFiles(root))
      ;(
        await dacliIn(root, ['note', 'add', 'finding', 'Plain', '--project', 'alpha', '--about', 'alpha/2'], {
          as: fx.ro.token,
        })
      ).expectExit(0)
      const file = eventFiles(root).find((f) => !before.has(f)) as string
      await forge(file, (d) => {
        d.event_kind = 'dependency'
        d.data = data
        const rec = { ...d, about: d.about ?? null, body: 'Plain' } as Parameters<typeof eventContent>[0]
        d.signature = agentSigner(fx.ro.token).sign(eventContent(rec))
      })
      const sync = (await dacliIn(root, ['sync', '--json'])).expectExit(0).json
      expect(sync.applied, JSON.stringify(sync)).toHaveLength(1)
      return (await dacliIn(root, ['task', 'show', 'alpha/2', '--json'])).json.depends_on.map(
        (d: { ref: string; type: string }) => `${d.ref}:${d.type}`,
      )
    }
    const four = (await dacliIn(root, ['task', 'show', 'alpha/4', '--json'])).json.ref
    const one = (await dacliIn(root, ['task', 'show', 'alpha/1', '--json'])).json.ref
    // alpha/2 depends on alpha/1 (FS) in the fixture.
    const added = await propose({
      add: [
        { on: 'alpha/4', type: 'SS' },
        { on: 'alpha/4', type: 'FF' },
      ],
    })
    expect(added).toEqual([`${one}:FS`, `${four}:SS`, `${four}:FF`])
    expect(await propose({ remove: [{ on: 'alpha/4', type: 'SS' }] })).toEqual([`${one}:FS`, `${four}:FF`])
  })

  test('the proposal as dacli wrote it still applies', async () => {
    const root = fx.copy()
    ;(
      await dacliIn(root, ['note', 'add', 'finding', 'Plain', '--project', 'alpha', '--severity', 'major'], {
        as: fx.ro.token,
      })
    ).expectExit(0)
    const sync = (await dacliIn(root, ['sync', '--json'])).expectExit(0).json
    expect(sync.applied).toHaveLength(1)
    const notes = (await dacliIn(root, ['note', 'list', '--json'])).json.notes
    expect(notes.map((n: { title: string }) => n.title)).toContain('Plain')
  })
})

describe('the cache of the remote’s claims is read as every file under .dacli/ is', () => {
  const CACHE = '.dacli/cache/remote-claims.json'

  test('a FIFO or a link in its place blocks nothing: next, doctor, explain, overview end at once', async () => {
    const { spawnSync } = await import('node:child_process')
    const { baseEnv } = await import('../testkit/ws.js')
    const bin = path.join(process.cwd(), 'build', 'dacli.js')
    for (const plant of ['fifo', 'link'] as const) {
      const root = fx.copy()
      const file = path.join(root, CACHE)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      if (plant === 'fifo') spawnSync('mkfifo', [file])
      else fs.symlinkSync('/dev/zero', file)
      for (const argv of [['next'], ['doctor'], ['explain', 'alpha/1'], ['overview']]) {
        const r = spawnSync(process.execPath, [bin, ...argv, '--json'], {
          cwd: root,
          env: baseEnv(),
          encoding: 'utf8',
          timeout: 20_000,
        })
        expect(r.signal, `${plant}: ${argv.join(' ')} blocked`).toBeNull()
        expect(r.status, `${plant}: ${argv.join(' ')}: ${r.stderr}`).toBe(0)
      }
    }
  }, 120_000)

  test('a claim dacli did not write (of another shape, or well formed by hand) is left out: it hides no task from next', async () => {
    const root = fx.copy()
    const id = (await dacliIn(root, ['task', 'show', 'alpha/1', '--json'])).json.id as string
    const claim = {
      task: id,
      by: 'a-root',
      at: '2026-12-01T10:00:00Z',
      expires: null,
      workspace: '/elsewhere/.dacli',
      host: 'other',
      clone: null,
      commit: 'a'.repeat(40),
      seen_at: '2026-12-01T10:00:00Z',
    }
    // Sealed as dacli seals it (with the clone's cache key, in its git directory), or as a hand would write it.
    const write = (claims: unknown[], sealed = true) => {
      fs.mkdirSync(path.join(root, '.dacli', 'cache'), { recursive: true })
      const body = JSON.stringify({ remote: 'origin', fetched_at: null, claims })
      const key = cacheKey({ git: { commonDir: path.join(root, '.git') }, config: { id: '' }, env: {} })
      fs.writeFileSync(path.join(root, CACHE), sealed ? seal(key as Buffer, 'remote-claims.json', body) : body)
    }
    const ready = async () =>
      (await dacliIn(root, ['next', '--json'])).expectExit(0).json.ready.map((r: { ref: string }) => r.ref)
    expect(await ready()).toContain('alpha/001-first-thing')
    for (const bad of [
      { ...claim, expires: 'never' },
      { ...claim, by: '--upload-pack=x' },
      { ...claim, task: '../../x' },
      { ...claim, host: 'evil\u001b[2J' },
      { ...claim, commit: 'HEAD' },
    ]) {
      write([bad])
      expect(await ready(), JSON.stringify(bad)).toContain('alpha/001-first-thing')
    }
    // A well-formed claim written by hand, unsealed or under the seal of another file, is no claim seen on the remote.
    write([claim], false)
    expect(await ready()).toContain('alpha/001-first-thing')
    const sealed = seal(
      Buffer.alloc(32, 9),
      'remote-claims.json',
      JSON.stringify({ remote: 'origin', claims: [claim] }),
    )
    fs.writeFileSync(path.join(root, CACHE), sealed)
    expect(await ready()).toContain('alpha/001-first-thing')
    // The claims dacli sealed are read.
    write([claim])
    expect(await ready()).not.toContain('alpha/001-first-thing')
  })
})

describe('no cache, artifact or lock under .dacli/ is waited on', () => {
  test('a FIFO at the record, history and lock files, a cleanup artifact and a conflict copy: every command ends', async () => {
    const { spawnSync } = await import('node:child_process')
    const { baseEnv } = await import('../testkit/ws.js')
    const bin = path.join(process.cwd(), 'build', 'dacli.js')
    const root = fx.copy()
    const run = (argv: string[]) =>
      spawnSync(process.execPath, [bin, ...argv], { cwd: root, env: baseEnv(), encoding: 'utf8', timeout: 20_000 })
    const note = '.dacli/projects/alpha/notes/decisions/use-x.md'
    const fifos = [
      '.dacli/cache/record-stat.json',
      '.dacli/cache/history.json',
      '.dacli/locks/record.lock',
      '.dacli/cleanup/evil/restore.json',
      `${note}.conflict-0123456789abcdef`,
    ]
    for (const f of fifos) {
      fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true })
      spawnSync('mkfifo', [path.join(root, f)])
    }
    const restore = run(['cleanup', '--restore', 'evil', '--json'])
    expect(restore.signal, 'cleanup --restore blocked').toBeNull()
    expect(restore.status).toBe(2)
    expect(restore.stdout + restore.stderr).toContain('.dacli/cleanup/evil/restore.json cannot be read')
    const dry = run(['cleanup', '--dry-run', '--json'])
    expect(dry.signal, 'cleanup --dry-run blocked').toBeNull()
    expect(dry.status, dry.stderr).toBe(0)
    fs.rmSync(path.join(root, '.dacli/cleanup'), { recursive: true })
    fs.rmSync(path.join(root, `${note}.conflict-0123456789abcdef`))
    for (const argv of [['task', 'log', 'alpha/1'], ['record']]) {
      const r = run([...argv, '--json'])
      expect(r.signal, `${argv.join(' ')} blocked`).toBeNull()
      expect(r.status, `${argv.join(' ')}: ${r.stderr}`).toBe(0)
    }
  }, 120_000)
})

test('a FIFO at a repository’s issue cache: github pull reads no cache and ends', async () => {
  const { spawnSync, spawn } = await import('node:child_process')
  const { baseEnv } = await import('../testkit/ws.js')
  const root = fx.copy()
  plant(root, '.dacli/projects/alpha/project.md', 'github', 'github: {repo: acme/widgets, public_confirmed: null}')
  const cache = path.join(root, '.dacli/cache/github/acme/widgets.json')
  fs.mkdirSync(path.dirname(cache), { recursive: true })
  spawnSync('mkfifo', [cache])
  const gh = await FakeGitHub.start()
  try {
    gh.addRepo('acme/widgets')
    gh.addIssue('acme/widgets', { title: 'From GitHub' })
    const child = spawn(
      process.execPath,
      [path.join(process.cwd(), 'build', 'dacli.js'), 'github', 'pull', 'alpha', '--dry-run', '--json'],
      {
        cwd: root,
        env: { ...baseEnv(), ...gh.env() },
      },
    )
    let stderr = ''
    child.stderr.on('data', (d) => {
      stderr += d
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on('close', (c, sig) => resolve([c, sig])),
    )
    clearTimeout(timer)
    expect(signal, 'github pull blocked on the cache').toBeNull()
    expect(code, stderr).toBe(0)
  } finally {
    await gh.close()
  }
}, 60_000)

test('a FIFO named as a task’s file in another status folder: a move of the task ends, leaving it alone', async () => {
  const { spawnSync } = await import('node:child_process')
  const { baseEnv } = await import('../testkit/ws.js')
  const root = fx.copy()
  const fifo = path.join(root, '.dacli/projects/alpha/tasks/blocked/001-first-thing.md')
  fs.mkdirSync(path.dirname(fifo), { recursive: true })
  spawnSync('mkfifo', [fifo])
  const r = spawnSync(
    process.execPath,
    [path.join(process.cwd(), 'build', 'dacli.js'), 'task', 'claim', 'alpha/1', '--json'],
    {
      cwd: root,
      env: baseEnv(),
      encoding: 'utf8',
      timeout: 20_000,
    },
  )
  expect(r.signal, 'task claim blocked').toBeNull()
  expect(r.status, r.stderr).toBe(0)
  expect(fs.lstatSync(fifo).isFIFO()).toBe(true)
}, 60_000)

test('a FIFO at each parse cache (index, items, search, records): listings, show and search end and answer', async () => {
  const { spawnSync } = await import('node:child_process')
  const { baseEnv } = await import('../testkit/ws.js')
  const root = fx.copy()
  fs.rmSync(path.join(root, '.dacli/cache'), { recursive: true, force: true })
  fs.mkdirSync(path.join(root, '.dacli/cache/records'), { recursive: true })
  for (const f of ['index', 'items', 'search', 'records/alpha'])
    spawnSync('mkfifo', [path.join(root, '.dacli/cache', f)])
  const run = (argv: string[]) =>
    spawnSync(process.execPath, [path.join(process.cwd(), 'build', 'dacli.js'), ...argv, '--json'], {
      cwd: root,
      env: baseEnv(),
      encoding: 'utf8',
      timeout: 20_000,
    })
  for (const argv of [['task', 'list'], ['task', 'show', 'alpha/1'], ['note', 'list'], ['search', 'first'], ['next']]) {
    const r = run(argv)
    expect(r.signal, `${argv.join(' ')} blocked`).toBeNull()
    expect(r.status, `${argv.join(' ')}: ${r.stderr}`).toBe(0)
  }
  expect(JSON.parse(run(['task', 'list']).stdout).tasks.length).toBe(5)
}, 120_000)

test('a journal replaced by hand (no header, or a FIFO): watch says so, exit 1, never an internal error', async () => {
  const { spawnSync } = await import('node:child_process')
  const { baseEnv } = await import('../testkit/ws.js')
  for (const plant of ['text', 'fifo'] as const) {
    const root = fx.copy()
    const file = path.join(root, '.dacli/journal/changes.jsonl')
    fs.rmSync(file, { force: true })
    if (plant === 'text') fs.writeFileSync(file, 'not a journal\n')
    else spawnSync('mkfifo', [file])
    const r = spawnSync(
      process.execPath,
      [path.join(process.cwd(), 'build', 'dacli.js'), 'watch', '--timeout', '0', '--json'],
      { cwd: root, env: baseEnv(), encoding: 'utf8', timeout: 20_000 },
    )
    expect(r.signal, `${plant}: watch blocked`).toBeNull()
    expect(r.status).toBe(1)
    const out = r.stdout + r.stderr
    expect(out).toContain('.dacli/journal/changes.jsonl is not a change journal')
    expect(out).not.toContain('internal error')
  }
}, 60_000)
